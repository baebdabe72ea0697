/**
 * `effect-tool-system mcp --audit FILE`: every call the server serves is one audit record,
 * written out when the server shuts down with its client.
 */
import { describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeTempDirSync } from "../helpers/tempDir.js"

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..")
const ws = makeTempDirSync("ets-mcp-audit-")
fs.writeFileSync(path.join(ws, "hello.txt"), "hello\n")
const logDir = makeTempDirSync("ets-mcp-audit-log-")

describe("effect-tool-system mcp --audit", { timeout: 120_000 }, () => {
  it.live("writes one record per served call, with the code of a refused one", () =>
    Effect.gen(function*() {
      const file = path.join(logDir, "audit.jsonl")
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: ["--import", "tsx", path.join(root, "src/cli/main.ts"), "mcp", "--workspace", ws, "--audit", file],
        cwd: root,
        stderr: "pipe"
      })
      const client = new Client({ name: "audit-test", version: "1.0.0" })
      yield* Effect.promise(() => client.connect(transport, { timeout: 60_000 }))
      const read = yield* Effect.promise(() =>
        client.callTool({ name: "read_file", arguments: { filepath: "hello.txt" } })
      )
      expect(read.isError).not.toBe(true)
      const write = yield* Effect.promise(() =>
        client.callTool({ name: "write_file", arguments: { filepath: "new.txt", content: "x" } })
      )
      expect(write.isError).toBe(true)
      yield* Effect.promise(() => client.close())
      // the server drains its audit queue when its scope closes, after the client has gone
      const deadline = Date.now() + 30_000
      let lines: Array<string> = []
      while (Date.now() < deadline) {
        lines = fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "") : []
        if (lines.length >= 2) break
        yield* Effect.sleep("100 millis")
      }
      const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>)
      expect(records.map((r) => [r.tool, r.success, r.errorCode])).toEqual([
        ["read_file", true, null],
        ["write_file", false, "CONFIRMATION_REQUIRED"]
      ])
      expect(lines.join("\n")).not.toContain("hello.txt")
      expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    }))
})
