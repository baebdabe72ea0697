/**
 * `runMcpCommand` (what `effect-tool-system mcp` runs) in this process, on streams of the test's
 * own instead of stdin and stdout: the builtins listed, `--yes` confirming what needs it and
 * its absence refusing it (the client cannot be asked), the workspace and the audit log it is
 * given, only protocol messages on its output, and the command ending when its input ends.
 */
import { NodeServices } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { Effect, Fiber } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { PassThrough } from "node:stream"
import { AuditLog } from "../../../src/index.js"
import { resultText as text } from "../../../src/tools/mcp/proxy.js"
import { runMcpCommand } from "../../../src/tools/mcp/stdio.js"
import { StreamClientTransport } from "../../helpers/streamClientTransport.js"
import { tempDir } from "../../helpers/tempDir.js"

/** `runMcpCommand` on fresh streams in a fresh workspace, with a connected client. */
const command = (options: { readonly yes?: boolean; readonly audit?: string }) =>
  Effect.gen(function*() {
    const workspace = yield* tempDir("mcp-streams-")
    const stdin = new PassThrough()
    const stdout = new PassThrough()
    const written: Array<string> = []
    stdout.on("data", (chunk: Buffer) => written.push(chunk.toString("utf8")))
    const serving = yield* runMcpCommand({
      workspace,
      yes: options.yes,
      audit: options.audit === undefined ? undefined : AuditLog.layerJsonl({ file: options.audit }),
      streams: { stdin, stdout }
    }).pipe(Effect.provide(NodeServices.layer), Effect.forkChild)
    const client = new Client({ name: "streams", version: "1.0.0" })
    yield* Effect.promise(() => client.connect(new StreamClientTransport(stdout, stdin)))
    const call = (name: string, args: Record<string, unknown>) => Effect.promise(() => client.callTool({ name, arguments: args }))
    return { workspace, client, call, serving, stdin, written }
  })

// live clock: the mcp command and a real SDK client on real Node streams (the SDK's request timeouts are Node timers)
describe("runMcpCommand on streams of its own", () => {
  it.live("serves the builtins; --yes confirms a write, which lands in its workspace; the end of its input ends it", () =>
    Effect.gen(function*() {
      const { call, client, serving, stdin, workspace, written } = yield* command({ yes: true })
      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["read_file", "write_file", "list_files"]))
      const wrote = yield* call("write_file", { filepath: "a.txt", content: "hi" })
      expect(wrote.isError).toBeUndefined()
      expect(Fs.readFileSync(Path.join(workspace, "a.txt"), "utf8")).toBe("hi")
      expect(text(yield* call("read_file", { filepath: "a.txt" }))).toBe("hi")
      // the output is the protocol, one JSON-RPC message a line
      const lines = written.join("").split("\n").filter((line) => line !== "")
      expect(lines.length).toBeGreaterThanOrEqual(4)
      for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" })
      stdin.end()
      yield* Fiber.join(serving).pipe(Effect.timeout("5 seconds"))
    }))

  it.live("without --yes a write is refused (this client cannot be asked) and nothing is written", () =>
    Effect.gen(function*() {
      const { call, serving, stdin, workspace } = yield* command({})
      const refused = yield* call("write_file", { filepath: "b.txt", content: "no" })
      expect(refused.isError).toBe(true)
      expect(text(refused)).toMatch(/^CONFIRMATION_REQUIRED: /)
      expect(Fs.existsSync(Path.join(workspace, "b.txt"))).toBe(false)
      stdin.end()
      yield* Fiber.join(serving).pipe(Effect.timeout("5 seconds"))
    }))

  it.live("interrupted, it leaves no listener on its input stream", () =>
    Effect.gen(function*() {
      const { client, serving, stdin } = yield* command({})
      yield* Effect.promise(() => client.listTools())
      // the server watches for the end of its input while it serves
      expect(stdin.listenerCount("end")).toBe(1)
      yield* Fiber.interrupt(serving)
      expect(stdin.listenerCount("end")).toBe(0)
    }))

  it.live("--audit records each served call in its file", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("mcp-streams-audit-")
      const file = Path.join(dir, "audit.jsonl")
      const { call, serving, stdin } = yield* command({ yes: true, audit: file })
      yield* call("list_files", {})
      stdin.end()
      yield* Fiber.join(serving).pipe(Effect.timeout("5 seconds"))
      const records = Fs.readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line))
      expect(records).toHaveLength(1)
      expect(records[0]).toMatchObject({ tool: "list_files", success: true })
    }))
})
