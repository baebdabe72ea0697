/**
 * Progress over MCP: a `tools/call` whose request carries `_meta.progressToken` hears the
 * tool's `reportProgress` as `notifications/progress` with that token, before the call's
 * result, on stdio (`serveMcp` on the SDK's stdio transport over streams of the test's own)
 * and over Streamable HTTP (`serveMcpHttp` on 127.0.0.1), in both eras (2025-11-25 and
 * 2026-07-28); a call without a token hears none; a tool that reports in a tight loop sends a
 * handful, not a flood. What reaches the client is read off its transport, as it came.
 */
import { describe, expect, it } from "@effect/vitest"
import { Client, type JSONRPCMessage, StreamableHTTPClientTransport, type Transport } from "@modelcontextprotocol/client"
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio"
import { Effect, Schema } from "effect"
import { PassThrough } from "node:stream"
import { reportProgress, Tool, ToolSystem, Workspace } from "../../../src/index.js"
import { serveMcpHttp } from "../../../src/tools/mcp/http.js"
import { serveMcp } from "../../../src/tools/mcp/serve.js"
import { StreamClientTransport } from "../../helpers/streamClientTransport.js"
import { tempDir } from "../../helpers/tempDir.js"
import { receivedOn, steps } from "./progressHarness.js"
import { replyText as text } from "./replyText.js"

/** 200,000 reports in a loop, with no wait between them. */
const flood = Tool.make("flood", {
  description: "Reports progress 200,000 times in a loop",
  parameters: Schema.Struct({}),
  readOnly: true,
  handler: () =>
    Effect.gen(function*() {
      for (let i = 1; i <= 200_000; i++) yield* reportProgress({ progress: i, total: 200_000, message: `item ${i}` })
      return "flooded"
    })
})

const systemOf = (ws: string) =>
  ToolSystem.layerNode({ builtins: false, tools: [steps, flood], workspace: Workspace.layerFixed(ws) })

type Era = "legacy" | "auto"

/** `client` connected over `transport` for the scope; every message it receives, as it came. */
const connected = (era: Era, transport: Transport) =>
  Effect.gen(function*() {
    const client = new Client({ name: "progress-test", version: "1.0.0" }, { versionNegotiation: { mode: era } })
    yield* Effect.acquireRelease(Effect.promise(() => client.connect(transport)), () => Effect.promise(() => client.close()))
    expect(client.getProtocolEra()).toBe(era === "legacy" ? "legacy" : "modern")
    return { client, received: receivedOn(transport) }
  })

/** The registry served on stdio (the SDK's stdio transport on streams of the test's own), and a client. */
const overStdio = (era: Era) =>
  Effect.gen(function*() {
    const ws = yield* tempDir("mcp-progress-stdio-")
    const toServer = new PassThrough()
    const toClient = new PassThrough()
    yield* serveMcp(new StdioServerTransport(toServer, toClient)).pipe(Effect.provide(systemOf(ws)), Effect.forkScoped)
    return yield* connected(era, new StreamClientTransport(toClient, toServer))
  })

/** The registry served over Streamable HTTP on 127.0.0.1, and a client. */
const overHttp = (era: Era) =>
  Effect.gen(function*() {
    const ws = yield* tempDir("mcp-progress-http-")
    const { url } = yield* serveMcpHttp({}).pipe(Effect.provide(systemOf(ws)))
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:/)
    return yield* connected(era, new StreamableHTTPClientTransport(new URL(url)))
  })

interface ProgressParams {
  readonly progressToken: string | number
  readonly progress: number
  readonly total?: number
  readonly message?: string
}

/** The `notifications/progress` among `received`, and where the first response came. */
const progressOf = (received: ReadonlyArray<JSONRPCMessage>) => {
  const notes: Array<{ readonly at: number; readonly params: ProgressParams }> = []
  received.forEach((message, at) => {
    if ("method" in message && message.method === "notifications/progress") {
      const params = message.params
      notes.push({ at, params: { progressToken: "", progress: Number.NaN, ...params } })
    }
  })
  const resultAt = received.findIndex((message) => "result" in message)
  return { notes, resultAt }
}

// live clock: real transports (streams, a node:http server and SDK v2's client)
describe("progress over MCP", () => {
  const transports = { stdio: overStdio, http: overHttp } as const
  for (const [name, open] of Object.entries(transports)) {
    for (const era of ["legacy", "auto"] as const) {
      const label = `${name}, ${era === "legacy" ? "2025-11-25" : "2026-07-28"}`
      it.live(`${label}: a call with a progress token hears each step with the token, before its result`, () =>
        Effect.scoped(Effect.gen(function*() {
          const { client, received } = yield* open(era)
          const heard: Array<number> = []
          const reply = yield* Effect.promise(() =>
            client.callTool({ name: "steps", arguments: {} }, { onprogress: (progress) => void heard.push(progress.progress) })
          )
          expect(text(reply)).toBe("stepped")
          const { notes, resultAt } = progressOf(received)
          expect(notes.map((note) => note.params.progress)).toEqual([1, 2, 3])
          expect(heard).toEqual([1, 2, 3])
          const token = notes[0]?.params.progressToken
          expect(token).toBeDefined()
          for (const note of notes) {
            expect(note.params.progressToken).toBe(token)
            expect(note.at).toBeLessThan(resultAt)
          }
          expect(notes[0]?.params).toMatchObject({ total: 3, message: "first" })
          expect(notes[2]?.params).toMatchObject({ progress: 3, total: 3, message: "done" })
        })))

      it.live(`${label}: a call without a progress token hears none`, () =>
        Effect.scoped(Effect.gen(function*() {
          const { client, received } = yield* open(era)
          const reply = yield* Effect.promise(() => client.callTool({ name: "steps", arguments: {} }))
          expect(text(reply)).toBe("stepped")
          expect(progressOf(received).notes).toEqual([])
        })))
    }
  }

  for (const era of ["legacy", "auto"] as const) {
    it.live(`http, ${era === "legacy" ? "2025-11-25" : "2026-07-28"}: a tool reporting 200,000 times in a loop sends a handful of notifications`, () =>
      Effect.scoped(Effect.gen(function*() {
        const { client, received } = yield* overHttp(era)
        const start = performance.now()
        const reply = yield* Effect.promise(() => client.callTool({ name: "flood", arguments: {} }, { onprogress: () => {} }))
        const elapsedMs = performance.now() - start
        expect(text(reply)).toBe("flooded")
        const { notes } = progressOf(received)
        expect(notes.length).toBeGreaterThanOrEqual(1)
        // one update per 100 ms at most, and the last: a slow machine makes the loop (and the count) longer
        expect(notes.length).toBeLessThanOrEqual(Math.ceil(elapsedMs / 100) + 1)
        expect(notes.length).toBeLessThan(100)
        expect(notes.at(-1)?.params).toMatchObject({ progress: 200_000, total: 200_000, message: "item 200000" })
      })))
  }
})
