/**
 * `effect-tool-system mcp` run in this process (`cliInProcess`), on this process's stdin and
 * stdout as the command uses them, which the test replaces by streams of its own for the
 * while: the command's options reach the server (`--workspace`, `--yes`, `--tag`), and the
 * end of its input ends it with exit code 0. test/tools/mcp/server.slow.test.ts runs the real
 * executable; test/tools/mcp/stdioStreams.test.ts calls `runMcpCommand` directly.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { restoreProcessStreams, serveInProcess, textOf } from "./mcpInProcess.js"

restoreProcessStreams()

/** `mcp ARGS...` in this process on fresh streams, with a connected client. */
const serve = (...args: Array<string>) => serveInProcess("mcp-command", ...args)

describe("effect-tool-system mcp (in process)", { timeout: 60_000 }, () => {
  it("--workspace and --yes reach the server: a write is confirmed and lands there; the end of input ends the command with 0", async () => {
    const workspace = makeTempDirSync("ets-mcp-command-")
    try {
      const { client, done, end } = await serve("--workspace", workspace, "--yes")
      const wrote = await client.callTool({ name: "write_file", arguments: { filepath: "a.txt", content: "hi" } })
      expect(wrote.isError).toBeUndefined()
      expect(fs.readFileSync(path.join(workspace, "a.txt"), "utf8")).toBe("hi")
      end()
      expect(await done).toEqual({ code: 0, stdout: "", stderr: "" })
    } finally {
      fs.rmSync(workspace, { recursive: true, force: true })
    }
  })

  it("without --yes a write is refused (this client cannot be asked) and nothing is written", async () => {
    const workspace = makeTempDirSync("ets-mcp-command-")
    try {
      const { client, done, end } = await serve("--workspace", workspace)
      const refused = await client.callTool({ name: "write_file", arguments: { filepath: "b.txt", content: "no" } })
      expect(refused.isError).toBe(true)
      expect(textOf(refused)).toMatch(/^CONFIRMATION_REQUIRED: /)
      expect(fs.existsSync(path.join(workspace, "b.txt"))).toBe(false)
      end()
      expect((await done).code).toBe(0)
    } finally {
      fs.rmSync(workspace, { recursive: true, force: true })
    }
  })

  it("--tag and --mode narrow what is served", async () => {
    const { client, done, end } = await serve("--tag", "files", "--mode", "explore")
    const names = (await client.listTools()).tools.map((tool) => tool.name)
    expect(names).toEqual(expect.arrayContaining(["read_file", "list_files"]))
    expect(names).not.toContain("write_file") // read-only mode
    expect(names).not.toContain("calculator") // not tagged files
    end()
    expect((await done).code).toBe(0)
  })
})
