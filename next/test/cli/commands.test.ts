/**
 * What the commands print, exactly, run in process: `list`'s table (its header, flags, first
 * sentences, the count), `describe`'s fields that may be absent, `docs`' messages, the usage
 * error of arguments that are not JSON, and `--version` left to `effect/cli` outside `call` and
 * `explain`. `list --mcp-config` (the column cut, a bridged tool's description and name made
 * clean) is in commandsMcp.test.ts.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { cliInProcess as cli } from "./helpers.js"

const dir = makeTempDirSync("ets-commands-")
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

/** A row of `list`'s table, as the command pads it. */
const row = (name: string, flags: string, sentence: string) => `${name.padEnd(22)} 1.0.0    ${flags}  ${sentence}`

describe("list", { timeout: 120_000 }, () => {
  it("prints a table: a header, one row per tool with its flags and first sentence, and the count", async () => {
    const { code, stdout } = await cli("list", "--tag", "builtin")
    expect(code).toBe(0)
    expect(stdout).toBe([
      "NAME                   VERSION  FLAGS  DESCRIPTION",
      row("execute_javascript", "-- cf", "Run JavaScript (ES2023, QuickJS) in an isolated sandbox and return what it printed and the value of its last expression."),
      row("list_files", "ro --", "List files and directories in a workspace directory that match a glob pattern."),
      row("read_file", "ro --", "Read a UTF-8 text file from the workspace."),
      row("read_pdf", "ro --", "Read the text of a PDF in the workspace, page by page (`--- Page N ---` headers)."),
      row("web_search", "ro --", "Search the web (Tavily) and return numbered results with title, URL and a snippet."),
      row("write_file", "-- cf", "Write UTF-8 text to a file in the workspace, creating parent directories."),
      "",
      "6 tools (ro = read-only, cf = requires confirmation)",
      ""
    ].join("\n"))
  })

  it("--version prints the program's version (only after call and explain is it the tool's range)", async () => {
    expect(await cli("list", "--version")).toEqual({ code: 0, stdout: "0.1.0\n\n", stderr: "" })
  })
})

describe("describe", { timeout: 120_000 }, () => {
  it("prints every field, null where a tool has none", async () => {
    const { code, stdout } = await cli("describe", "read_file")
    expect(code).toBe(0)
    const described: Record<string, unknown> = JSON.parse(stdout)
    expect(described).toMatchObject({ timeoutMs: 30_000, rateLimitRpm: null, deprecated: null })
    expect(Object.keys(described)).toEqual([
      "name", "version", "versions", "description", "readOnly", "requiresConfirmation", "tags", "timeoutMs",
      "rateLimitRpm", "deprecated", "parameters"
    ])
  })
})

describe("docs", { timeout: 120_000 }, () => {
  it("says what it did, or why it could not", async () => {
    const file = path.join(dir, "tools.md")
    fs.writeFileSync(file, "# Tools\n<!-- AUTO:tools -->\nold\n<!-- /AUTO:tools -->\n")
    expect(await cli("docs", "--check", "--file", file)).toEqual({
      code: 1,
      stdout: "",
      stderr: `${file} is stale: run \`npm run docs\`\n`
    })
    expect(await cli("docs", "--file", file)).toEqual({ code: 0, stdout: `${file} updated\n`, stderr: "" })
    expect(await cli("docs", "--check", "--file", file)).toEqual({ code: 0, stdout: `${file} is up to date\n`, stderr: "" })
    const bare = path.join(dir, "bare.md")
    fs.writeFileSync(bare, "# Tools\n")
    expect(await cli("docs", "--file", bare)).toEqual({
      code: 1,
      stdout: "",
      stderr: `${bare} has no <!-- AUTO:tools --> ... <!-- /AUTO:tools --> markers\n`
    })
    expect(fs.readFileSync(bare, "utf8")).toBe("# Tools\n")
  })
})

describe("call", { timeout: 120_000 }, () => {
  it("arguments that are not JSON: a usage error naming what the parser found", async () => {
    // What this process's JSON.parse says of the text: V8 in Node 22 adds where it is
    // (" (line 1 column 2)"), V8 in Node 20 does not. Either way the usage error is exactly it.
    const parserSays = ((): string => {
      try {
        return `parsed: ${JSON.stringify(JSON.parse("{not"))}`
      } catch (error) {
        return error instanceof Error ? error.message : String(error)
      }
    })()
    expect(parserSays).toMatch(/^Expected property name or '}' in JSON at position 1( \(line 1 column 2\))?$/)
    expect(await cli("call", "read_file", "{not")).toEqual({
      code: 2,
      stdout: "",
      stderr: `Invalid JSON arguments: ${parserSays}\n`
    })
  })
})
