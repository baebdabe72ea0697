/**
 * An unknown tool name is echoed cut: a 1 MB name gives a short `TOOL_NOT_FOUND` message (the
 * name's head, that it was cut, and its length), to the model through the call handler, to an
 * MCP client and in the audit log, never the megabyte itself.
 */
import { describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { Effect, Layer, Schema } from "effect"
import { ToolNotFound } from "../../src/domain/errors.js"
import { Tool } from "../../src/index.js"
import { AuditLog, type AuditRecord } from "../../src/services/AuditLog.js"
import { ToolCallHandler } from "../../src/services/ToolCallHandler.js"
import { ToolSystem } from "../../src/services/ToolSystem.js"
import { Workspace } from "../../src/services/Workspace.js"
import { serveMcp } from "../../src/tools/mcp/serve.js"
import { resultText as text } from "../../src/tools/mcp/proxy.js"
import { tempDir } from "../helpers/tempDir.js"

/** The one registered tool, for "did you mean" to name. */
const readFile = Tool.make("read_file", {
  description: "Reads nothing",
  parameters: Schema.Struct({}),
  readOnly: true,
  handler: () => Effect.succeed("")
})

const LENGTH = 1_000_000
// close to a registered name, so that "did you mean" has something to say
const HUGE = `read_file${"x".repeat(LENGTH - 9)}`

/** The message is short, shows the head of the name, and says it was cut and how long it is. */
const expectCut = (message: string | undefined) => {
  expect(message?.length).toBeLessThan(1024)
  expect(message).toContain("read_filexxx")
  expect(message).toContain(`cut: showing 100 of ${LENGTH} characters`)
}

describe("an unknown tool name of 1 MB", () => {
  it("ToolNotFound's message cuts the name, and a range as long", () => {
    expectCut(new ToolNotFound({ name: HUGE, suggestions: ["read_file"] }).message)
    const ranged = new ToolNotFound({ name: "read_file", versionRange: `^${"9".repeat(LENGTH - 1)}`, suggestions: [] }).message
    expect(ranged.length).toBeLessThan(1024)
    expect(ranged).toContain(`of ${LENGTH} characters`)
    // hiding characters in a name are shown as escapes
    expect(new ToolNotFound({ name: "a\u202Eb\nc", suggestions: [] }).message).toBe("Tool \"a\\u202Eb\\nc\" not found")
  })

  it.effect("the result, the model's tool message, an MCP reply and the audit record are short", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("huge-name-")
      const records: Array<AuditRecord> = []
      const audit = Layer.succeed(AuditLog, {
        enabled: true,
        includeArguments: false,
        write: (record) => Effect.sync(() => void records.push(record))
      })
      const system = ToolSystem.layerNode({ builtins: false, tools: [readFile], workspace: Workspace.layerFixed(ws), audit })
      yield* Effect.gen(function*() {
        const result = yield* Effect.flatMap(ToolSystem, (tools) => tools.execute(HUGE, {}))
        expect(result.errorCode).toBe("TOOL_NOT_FOUND")
        expectCut(result.tool)
        expectCut(result.error ?? undefined)
        expect(result.error).toContain("did you mean: read_file")

        const session = yield* Effect.flatMap(ToolCallHandler, (handler) => handler.session())
        const [message] = yield* session.handleOpenAI([
          { id: "call_1", type: "function", function: { name: HUGE, arguments: "{}" } }
        ])
        expect(message?.content).toMatch(/^Error \[TOOL_NOT_FOUND\]: /)
        expectCut(message?.content)

        const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
        yield* Effect.forkScoped(serveMcp(serverSide, {}))
        const client = new Client({ name: "c", version: "1.0.0" })
        yield* Effect.acquireRelease(Effect.promise(() => client.connect(clientSide)), () => Effect.promise(() => client.close()))
        const reply = yield* Effect.promise(() => client.callTool({ name: HUGE, arguments: {} }))
        expect(reply.isError).toBe(true)
        expect(text(reply)).toMatch(/^TOOL_NOT_FOUND: /)
        expectCut(text(reply))
      }).pipe(Effect.provide(ToolCallHandler.layer.pipe(Layer.provideMerge(system))))

      expect(records).toHaveLength(3)
      for (const record of records) {
        expect(record.errorCode).toBe("TOOL_NOT_FOUND")
        expectCut(record.tool)
        expectCut(record.gates[0]?.reason)
      }
    }))
})
