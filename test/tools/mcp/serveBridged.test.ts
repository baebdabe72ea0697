/**
 * `serveMcp` with an `McpBridge` in its context (the changing test server bridged in): it
 * tells the client up front that its list of tools can change, and sends
 * `notifications/tools/list_changed` when a bridged server's tools change. A notice that cannot
 * be sent is logged, and serving goes on. test/tools/mcp/server.slow.test.ts runs the same through
 * the `mcp` command in a child process; this one runs in the test's process.
 */
import { describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect, LogLevel } from "effect"
import { replyText as text } from "./replyText.js"
import { serveMcp } from "../../../src/tools/mcp/serve.js"
import { recordingLogsWith, textOf } from "../../helpers/recordingLogs.js"
import { tempDir } from "../../helpers/tempDir.js"
import { bridged, eventually, nodeServer } from "./helpers.js"

/**
 * The changing server bridged into a system served on `transport` (made from the server side of
 * an in-memory pair) for the scope, and a client on the other side that counts the notices.
 */
const served = (wrap: (serverSide: InMemoryTransport) => Transport = (serverSide) => serverSide) =>
  Effect.gen(function*() {
    const ws = yield* tempDir("mcp-bridged-")
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    yield* serveMcp(wrap(serverSide), { confirmation: "auto" }).pipe(
      Effect.provide(bridged(ws, { changing: nodeServer("changing.mjs") })),
      Effect.forkScoped
    )
    const client = new Client({ name: "c", version: "1.0.0" })
    const notices = { count: 0 }
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void notices.count++)
    yield* Effect.acquireRelease(Effect.promise(() => client.connect(clientSide)), () => Effect.promise(() => client.close()))
    const control = (actions: ReadonlyArray<string>) =>
      Effect.promise(() => client.callTool({ name: "changing__control", arguments: { actions } }))
    const names = Effect.map(Effect.promise(() => client.listTools()), ({ tools }) => tools.map((tool) => tool.name))
    return { client, control, names, notices }
  })

// live clock: a real bridged server process (the bridge's timers on the live clock) served to a real SDK client
describe("serveMcp with bridged MCP servers", () => {
  it.live("says its tools can change, and tells the client when a bridged server's do", () =>
    Effect.gen(function*() {
      const { client, control, names, notices } = yield* served()
      expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true })
      expect(yield* names).not.toContain("changing__extra")
      yield* control(["add"])
      expect(yield* eventually(() => notices.count >= 1, 5000)).toBe(true)
      expect(yield* names).toContain("changing__extra")
    }), 30_000)

  it.live("a notice that cannot be sent is logged, and the server keeps serving", () =>
    Effect.gen(function*() {
      const [[notices, after], lines] = yield* recordingLogsWith((lines) =>
        Effect.gen(function*() {
          // the in-memory transport, but for the notices of changed tools, which it cannot send
          const { control, notices } = yield* served((serverSide) => {
            const broken: Transport = {
              start: () => {
                serverSide.onmessage = (message, extra) => broken.onmessage?.(message, extra)
                serverSide.onclose = () => broken.onclose?.()
                return serverSide.start()
              },
              send: (message) =>
                "method" in message && message.method === "notifications/tools/list_changed"
                  ? Promise.reject(new Error("the pipe broke"))
                  : serverSide.send(message),
              close: () => serverSide.close()
            }
            return broken
          })
          yield* control(["add"])
          const warned = () => lines.some((line) => textOf(line).startsWith("Telling the MCP client of changed tools failed:"))
          expect(yield* eventually(warned, 5000)).toBe(true)
          return [notices.count, yield* control(["count"])] as const
        })
      )
      expect(notices).toBe(0)
      expect(text(after)).toMatch(/^listings \d+$/)
      const warning = lines.find((line) => textOf(line).startsWith("Telling the MCP client of changed tools failed:"))
      expect(warning?.level).toBe("Warn")
      expect(warning && textOf(warning)).toContain("the pipe broke")
    }), 30_000)
})
