/**
 * The MCP server gives a tool's output as readable text whatever the output is: a bigint, a
 * `Map`, a `Set` or a cycle reads as `readableText` has it (never a crashed call, never `{}`).
 */
import { describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { Effect, Schema } from "effect"
import { Tool, ToolSystem, Workspace } from "../../../src/index.js"
import { serveMcp } from "../../../src/tools/mcp/serve.js"
import { replyText as text } from "./replyText.js"
import { tempDir } from "../../helpers/tempDir.js"

const cyclic: Record<string, unknown> = { name: "loop" }
cyclic.self = cyclic
const outputs: Record<string, unknown> = {
  big: { n: 10n },
  bare: 7n,
  map: new Map([["a", 1]]),
  set: new Set(["x"]),
  cyclic
}

const odd = Tool.make("odd_output", {
  description: "Returns a value with no JSON form",
  parameters: Schema.Struct({ kind: Schema.String }),
  readOnly: true,
  handler: ({ kind }) => Effect.succeed(outputs[kind])
})

// live clock: the MCP SDK's real client and server on an in-memory transport (its request timeouts are Node timers)
describe("serveMcp: outputs with no JSON form", () => {
  it.live("a bigint, a Map, a Set, a cycle: a readable text result, the server keeps serving", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-readable-")
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
      yield* serveMcp(serverSide, {}).pipe(
        Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [odd], workspace: Workspace.layerFixed(ws) })),
        Effect.forkScoped
      )
      const client = new Client({ name: "c", version: "1.0.0" })
      yield* Effect.acquireRelease(Effect.promise(() => client.connect(clientSide)), () => Effect.promise(() => client.close()))
      const texts: Record<string, string> = {}
      for (const kind of Object.keys(outputs)) {
        const reply = yield* Effect.promise(() => client.callTool({ name: "odd_output", arguments: { kind } }))
        expect(reply.isError, kind).toBeUndefined()
        texts[kind] = text(reply)
      }
      expect(JSON.parse(texts.big ?? "")).toEqual({ n: "10n" })
      expect(texts.bare).toBe("7n")
      expect(JSON.parse(texts.map ?? "")).toEqual({ Map: [["a", 1]] })
      expect(JSON.parse(texts.set ?? "")).toEqual({ Set: ["x"] })
      expect(JSON.parse(texts.cyclic ?? "")).toEqual({ name: "loop", self: "[Circular]" })
    }))
})
