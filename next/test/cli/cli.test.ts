/**
 * The commands, run in process (`cliInProcess`: the program `main` runs, its output captured):
 * list, describe, call and its exit codes, `--version` after `call`, export, docs. What only
 * the executable does is in executable.slow.test.ts.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { cliInProcess as cli } from "./helpers.js"

const ws = makeTempDirSync("ets-cli-")
fs.writeFileSync(path.join(ws, "notes.txt"), "one\ntwo\nthree\n")
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))

describe("effect-tool-system CLI", { timeout: 120_000 }, () => {
  it("list --json describes every tool", async () => {
    const { code, stdout } = await cli("list", "--json")
    expect(code).toBe(0)
    const tools: Array<Record<string, unknown>> = JSON.parse(stdout)
    const readFile = tools.find((t) => t.name === "read_file")
    expect(readFile).toMatchObject({ version: "1.0.0", readOnly: true, requiresConfirmation: false })
    expect(Object.keys(readFile ?? {}).sort()).toEqual(
      ["description", "name", "parameters", "readOnly", "requiresConfirmation", "tags", "version"]
    )
    expect(tools.find((t) => t.name === "write_file")).toMatchObject({ readOnly: false, requiresConfirmation: true })
  })

  it("list filters by mode and prints a table", async () => {
    const { code, stdout } = await cli("list", "--mode", "explore")
    expect(code).toBe(0)
    expect(stdout).toContain("read_file")
    expect(stdout).not.toContain("write_file")
  })

  it("describe prints the spec; an unknown name exits 1", async () => {
    const ok = await cli("describe", "read_file")
    expect(ok.code).toBe(0)
    expect(JSON.parse(ok.stdout)).toMatchObject({ name: "read_file", parameters: { type: "object" } })
    const missing = await cli("describe", "read_fil")
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain("read_file")
  })

  it("call prints the result; exit 0 on success, 1 when a gate refuses", async () => {
    const read = await cli("call", "read_file", JSON.stringify({ filepath: "notes.txt", max_lines: 1 }), "--workspace", ws)
    expect(read.code).toBe(0)
    expect(JSON.parse(read.stdout)).toMatchObject({ success: true, output: "one\n... (2 more lines)", tool: "read_file" })

    const unconfirmed = await cli("call", "write_file", JSON.stringify({ filepath: "out.txt", content: "x" }), "--workspace", ws)
    expect(unconfirmed.code).toBe(1)
    expect(JSON.parse(unconfirmed.stdout)).toMatchObject({ errorCode: "CONFIRMATION_REQUIRED", confirmed: false })
    expect(fs.existsSync(path.join(ws, "out.txt"))).toBe(false)

    const blocked = await cli(
      "call",
      "write_file",
      JSON.stringify({ filepath: "out.txt", content: "x" }),
      "--workspace",
      ws,
      "--yes",
      "--mode",
      "explore"
    )
    expect(blocked.code).toBe(1)
    expect(JSON.parse(blocked.stdout).errorCode).toBe("MODE_BLOCKED")

    const written = await cli("call", "write_file", JSON.stringify({ filepath: "out.txt", content: "x" }), "--workspace", ws, "--yes")
    expect(written.code).toBe(0)
    expect(fs.readFileSync(path.join(ws, "out.txt"), "utf8")).toBe("x")
  })

  it("call: bad JSON is a usage error (2); an escape exits 3 with PATH_TRAVERSAL on stderr", async () => {
    const bad = await cli("call", "read_file", "{not json", "--workspace", ws)
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("Invalid JSON")
    expect(bad.stdout).toBe("")

    const escape = await cli("call", "read_file", JSON.stringify({ filepath: "../../etc/passwd" }), "--workspace", ws)
    expect(escape.code).toBe(3)
    expect(escape.stderr).toContain("PATH_TRAVERSAL")
    expect(escape.stdout).toBe("")

    const badMode = await cli("call", "read_file", "{}", "--mode", "nope")
    expect(badMode.code).toBe(2)
  })

  it("call --version selects a range", async () => {
    const r = await cli("call", "read_file", JSON.stringify({ filepath: "notes.txt" }), "--workspace", ws, "--version", "^2")
    expect(r.code).toBe(1)
    expect(JSON.parse(r.stdout)).toMatchObject({ errorCode: "TOOL_NOT_FOUND" })
    const ok = await cli("call", "read_file", JSON.stringify({ filepath: "notes.txt" }), "--workspace", ws, "--version", "1.x")
    expect(JSON.parse(ok.stdout)).toMatchObject({ success: true, version: "1.0.0" })
  })

  it("export prints a JSON array in each format", async () => {
    const openai = await cli("export", "--format", "openai-strict", "--mode", "explore")
    expect(openai.code).toBe(0)
    const tools: Array<{ type: string; function: { name: string; strict: boolean } }> = JSON.parse(openai.stdout)
    expect(tools.length).toBeGreaterThan(0)
    expect(tools.every((t) => t.type === "function" && t.function.strict)).toBe(true)
    expect(tools.map((t) => t.function.name)).not.toContain("write_file")
    const mcp = await cli("export", "--format", "mcp", "--tag", "files")
    expect(JSON.parse(mcp.stdout).every((t: { inputSchema: unknown }) => typeof t.inputSchema === "object")).toBe(true)
  })

  it("docs --check passes on the committed table and fails on a stale one", async () => {
    expect((await cli("docs", "--check")).code).toBe(0)
    const stale = path.join(ws, "tools.md")
    fs.writeFileSync(stale, "# Tools\n<!-- AUTO:tools -->\nold\n<!-- /AUTO:tools -->\n")
    const checked = await cli("docs", "--check", "--file", stale)
    expect(checked.code).toBe(1)
    expect(fs.readFileSync(stale, "utf8")).toContain("old")
    expect((await cli("docs", "--file", stale)).code).toBe(0)
    expect(fs.readFileSync(stale, "utf8")).toContain("| `read_file` |")
    expect((await cli("docs", "--check", "--file", stale)).code).toBe(0)
  })
})
