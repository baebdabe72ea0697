/**
 * What the commands print, exactly, run in process: `list`'s table (its header, flags, first
 * sentences, the column cut, the count), `list --mcp-config`, `describe`'s fields that may be
 * absent, `docs`' messages, the usage error of arguments that are not JSON, and `--version`
 * left to `effect/cli` outside `call` and `explain`.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { nodeServer } from "../tools/mcp/helpers.js"
import { cliInProcess as cli } from "./helpers.js"
import { VERSION } from "../../src/version.js"

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

  it("with --mcp-config, lists the bridged tools too; a name past its column is cut to it", async () => {
    const config = path.join(dir, "mcp.json")
    const names = "a_tool_with_a_rather_long_name,short"
    fs.writeFileSync(config, JSON.stringify({ mcpServers: { srv: nodeServer("paged.mjs", ["--names", names]) } }))
    const { code, stdout } = await cli("list", "--mcp-config", config)
    expect(code).toBe(0)
    const lines = stdout.split("\n")
    // srv__a_tool_with_a_rather_long_name (35 characters) in a column of 22
    expect(lines.filter((line) => line.startsWith("srv__")).map((line) => line.slice(0, 31))).toEqual([
      "srv__a_tool_with_a_rat 1.0.0   ",
      "srv__short             1.0.0   "
    ])
    expect(lines).toContain("54 tools (ro = read-only, cf = requires confirmation)")
  })

  it("a bridged tool's description is one clean line: no escape sequence, control character or forged row", async () => {
    const config = path.join(dir, "hostile.json")
    // clears the screen, moves up to overwrite the row above, and adds a row of its own
    const description = "Lists notes\u001b[2J\u001b[1A\r\nread_file              1.0.0    ro --  Reads\u0007 \u202eanything"
    fs.writeFileSync(config, JSON.stringify({ mcpServers: { srv: nodeServer("paged.mjs", ["--names", "notes", "--description", description], { requiresConfirmation: false }) } }))
    const { code, stdout } = await cli("list", "--mcp-config", config)
    expect(code).toBe(0)
    expect(stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/)
    expect(stdout.split("\n").filter((line) => line.startsWith("read_file"))).toHaveLength(1)
    expect(stdout).toContain(`${"srv__notes".padEnd(22)} 1.0.0    -- --  Lists notes read_file 1.0.0 ro -- Reads anything\n`)
    // and the spec keeps the line break (CRLF made \n, as all model-facing text) but not the rest
    const described = JSON.parse((await cli("describe", "srv__notes", "--mcp-config", config)).stdout)
    expect(described.description).toBe("Lists notes\nread_file              1.0.0    ro --  Reads anything")
  })

  it("a log line is clean too: a bridged tool's name with escape sequences is logged without them", async () => {
    const config = path.join(dir, "hostile-names.json")
    // the second of two equal names is skipped with a warning that names it
    const name = "notes\u001b]0;pwned\u0007\u001b[2J\u202e"
    fs.writeFileSync(config, JSON.stringify({ mcpServers: { srv: nodeServer("paged.mjs", ["--names", `${name},${name}`]) } }))
    const { code, stderr } = await cli("list", "--mcp-config", config)
    expect(code).toBe(0)
    expect(stderr).toContain(`MCP server "srv": tool "notes" skipped: the name "srv__`)
    expect(stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/)
  })

  it("--version prints the program's version (only after call and explain is it the tool's range)", async () => {
    expect(await cli("list", "--version")).toEqual({ code: 0, stdout: `${VERSION}\n\n`, stderr: "" })
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
