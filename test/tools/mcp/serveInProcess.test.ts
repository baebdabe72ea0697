/**
 * `serveMcp` on a transport the application brings (here the SDK's in-memory pair): the
 * function behind `effect-tool-system mcp`, without a process. Tags filter the list, outputs
 * that are not text are JSON, a tool that escapes the workspace is an error result, and the
 * serving fiber ends when the client closes.
 */
import { describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { Effect, Fiber, Schema } from "effect"
import { Tool, ToolSystem, Workspace, WorkspacePath } from "../../../src/index.js"
import { serveMcp } from "../../../src/tools/mcp/server.js"
import { resultText as text } from "../../../src/tools/mcp/proxy.js"
import { tempDir } from "../../helpers/tempDir.js"

const stats = Tool.make("stats", {
  description: "Counts things",
  parameters: Schema.Struct({ n: Schema.Number }),
  readOnly: true,
  tags: ["numbers"],
  handler: ({ n }) => Effect.succeed({ n, double: n * 2 })
})

const escape = Tool.make("escape", {
  description: "Resolves a path it made itself, outside the workspace",
  parameters: Schema.Struct({}),
  readOnly: true,
  tags: ["paths"],
  handler: () => Effect.flatMap(Workspace, (ws) => ws.resolve("/etc/passwd"))
})

const pathArg = Tool.make("path_arg", {
  description: "Takes a path",
  parameters: Schema.Struct({ file: WorkspacePath }),
  readOnly: true,
  tags: ["paths"],
  handler: ({ file }) => Effect.succeed(file)
})

describe("serveMcp", () => {
  it.scopedLive("serves a ToolSystem on the application's transport until the client closes", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-inproc-")
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
      const serving = yield* serveMcp(serverSide, { tags: ["numbers", "paths"], name: "in-process" }).pipe(
        Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [stats, escape, pathArg], workspace: Workspace.layerFixed(ws) })),
        Effect.fork
      )
      const client = new Client({ name: "c", version: "1.0.0" })
      yield* Effect.promise(() => client.connect(clientSide))
      expect(client.getServerVersion()?.name).toBe("in-process")
      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(tools.map((t) => [t.name, t.title])).toEqual([["escape", "Escape"], ["path_arg", "Path arg"], ["stats", "Stats"]])
      const r = yield* Effect.promise(() => client.callTool({ name: "stats", arguments: { n: 21 } }))
      expect(JSON.parse(text(r))).toEqual({ n: 21, double: 42 })
      // an escape raised by a handler, and one in an argument: error results, no crash
      const died = yield* Effect.promise(() => client.callTool({ name: "escape", arguments: {} }))
      expect(died.isError).toBe(true)
      expect(text(died)).toMatch(/^PATH_TRAVERSAL: the path "\/etc\/passwd" is outside the workspace/)
      const arg = yield* Effect.promise(() => client.callTool({ name: "path_arg", arguments: { file: "../../x" } }))
      expect(text(arg)).toMatch(/^PATH_TRAVERSAL: /)
      const fine = yield* Effect.promise(() => client.callTool({ name: "path_arg", arguments: { file: "a.txt" } }))
      expect(text(fine)).toBe(`${ws}/a.txt`)
      yield* Effect.promise(() => client.close())
      yield* Fiber.join(serving).pipe(Effect.timeout("2 seconds"))
    }))
})
