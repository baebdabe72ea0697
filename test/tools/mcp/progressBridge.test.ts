/**
 * A bridged server's progress reaches whoever listens to the proxy's call: over stdio in both
 * eras (2025-11-25 through the bridge's own call table, 2026-07-28 through the SDK client) and
 * over Streamable HTTP in both, checked and throttled by the proxy call's channel like any
 * tool's (a hostile server's flood, values going back, a huge message, tokens not the call's,
 * progress after the answer: a handful of clean updates, the call's answer unchanged); no
 * listener, no token asked for. And the whole way: a remote server's progress through the
 * bridge and our HTTP server to an SDK client.
 */
import { describe, expect, it } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport, type Transport } from "@modelcontextprotocol/client"
import { Effect, Layer } from "effect"
import { MAX_PROGRESS_MESSAGE_CHARS, type ProgressUpdate, ToolSystem, Workspace } from "../../../src/index.js"
import { McpBridge } from "../../../src/services/McpBridge.js"
import { serveMcpHttp } from "../../../src/tools/mcp/http.js"
import { until } from "../../helpers/testClock.js"
import { tempDir } from "../../helpers/tempDir.js"
import { fast, nodeServer, openBridged } from "./helpers.js"
import { receivedOn, steps } from "./progressHarness.js"
import { replyText as text } from "./replyText.js"

/** A listener that keeps what it hears. */
const recorder = () => {
  const heard: Array<ProgressUpdate> = []
  return { heard, onProgress: (update: ProgressUpdate) => Effect.sync(() => void heard.push(update)) }
}

/** Our registry (holding `steps`) over HTTP on 127.0.0.1: the remote server of the HTTP cases. */
const remote = Effect.gen(function*() {
  const ws = yield* tempDir("mcp-progress-remote-")
  const { url } = yield* serveMcpHttp({ name: "remote" }).pipe(
    Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [steps], workspace: Workspace.layerFixed(ws) }))
  )
  return url
})

// live clock: real child processes, HTTP servers and SDK clients
describe("a bridged server's progress", () => {
  for (const protocol of ["legacy", "2026-07-28"] as const) {
    it.live(`stdio, ${protocol}: each step reaches the proxy call's listener, its message made safe to show`, () =>
      Effect.gen(function*() {
        const ws = yield* tempDir("mcp-progress-bridge-")
        const { system } = yield* openBridged(ws, { p: nodeServer("progress.mjs", [], { protocol, trusted: true }) })
        const { heard, onProgress } = recorder()
        const result = yield* system.execute("p__steps", {}, { onProgress })
        expect(result).toMatchObject({ success: true, output: "stepped" })
        yield* until(() => heard.length === 3, `three updates (heard ${JSON.stringify(heard)})`)
        expect(heard.map((u) => [u.progress, u.total])).toEqual([[1, 3], [2, 3], [3, 3]])
        // no escape sequence or bidi control from the server reaches the listener
        expect(heard[0]?.message).toBe("first red evil")
        expect(heard[2]?.message).toBe("done")
      }))

    it.live(`stdio, ${protocol}: a hostile server's progress is a handful of clean updates, and the call's answer stands`, () =>
      Effect.gen(function*() {
        const ws = yield* tempDir("mcp-progress-bridge-")
        const { bridge, system } = yield* openBridged(ws, { p: nodeServer("progress.mjs", [], { protocol, trusted: true }) })
        const { heard, onProgress } = recorder()
        const start = Date.now()
        const result = yield* system.execute("p__hostile", {}, { onProgress })
        expect(result).toMatchObject({ success: true, output: "survived" })
        yield* until(() => heard.at(-1)?.progress === 900, `the last update (heard ${JSON.stringify(heard).slice(0, 500)})`)
        // at most one update per 100 ms (the notifications may take a while to read), and the last
        expect(heard.length).toBeLessThanOrEqual(2 + Math.floor((Date.now() - start) / 100))
        for (let i = 1; i < heard.length; i++) expect(heard[i]!.progress).toBeGreaterThan(heard[i - 1]!.progress)
        for (const update of heard) expect(update.message?.length ?? 0).toBeLessThanOrEqual(MAX_PROGRESS_MESSAGE_CHARS)
        expect(heard.some((u) => u.progress === 10_000)).toBe(false)
        // progress sent after the answer: nothing reaches the listener once the call has ended
        // (read with the answer, it may still be taken as the call's last); the server is still up
        const late = recorder()
        expect(yield* system.execute("p__late", {}, { onProgress: late.onProgress })).toMatchObject({ success: true, output: "answered" })
        const atEnd = late.heard.length
        yield* Effect.sleep("50 millis")
        expect(late.heard).toHaveLength(atEnd)
        expect((yield* bridge.servers).map((s) => s.state)).toEqual(["up"])
      }))
  }

  for (const protocol of ["legacy", "2026-07-28"] as const) {
    it.live(`http, ${protocol}: each step of a remote tool reaches the proxy call's listener`, () =>
      Effect.gen(function*() {
        const url = yield* remote
        const ws = yield* tempDir("mcp-progress-bridge-")
        const { system } = yield* openBridged(ws, { r: { url, protocol, trusted: true } })
        const { heard, onProgress } = recorder()
        const result = yield* system.execute("r__steps", {}, { onProgress })
        expect(result).toMatchObject({ success: true, output: "stepped" })
        yield* until(() => heard.length === 3, `three updates (heard ${JSON.stringify(heard)})`)
        expect(heard).toEqual([
          { progress: 1, total: 3, message: "first" },
          { progress: 2, total: 3 },
          { progress: 3, total: 3, message: "done" }
        ])
        // without a listener the call is as it was
        expect(yield* system.execute("r__steps", {})).toMatchObject({ success: true, output: "stepped" })
      }))
  }

  it.live("the whole way: remote server → bridge → our HTTP server → an SDK client, with the client's token", () =>
    Effect.gen(function*() {
      const url = yield* remote
      const ws = yield* tempDir("mcp-progress-chain-")
      const bridged = McpBridge.layer({ r: { url, trusted: true } }, fast).pipe(
        Layer.provideMerge(ToolSystem.layerNode({ builtins: false, workspace: Workspace.layerFixed(ws) }))
      )
      // built in the test's scope: the bridge's connections live as long as the test
      const services = yield* Layer.build(bridged)
      const served = yield* serveMcpHttp({}).pipe(Effect.provide(services))
      const client = new Client({ name: "chain", version: "1.0.0" })
      const transport: Transport = new StreamableHTTPClientTransport(new URL(served.url))
      yield* Effect.acquireRelease(Effect.promise(() => client.connect(transport)), () => Effect.promise(() => client.close()))
      const received = receivedOn(transport)
      const heard: Array<number> = []
      const reply = yield* Effect.promise(() =>
        client.callTool({ name: "r__steps", arguments: {} }, { onprogress: (p) => void heard.push(p.progress) })
      )
      expect(text(reply)).toBe("stepped")
      expect(heard).toEqual([1, 2, 3])
      const notes = received.filter((m) => "method" in m && m.method === "notifications/progress")
      expect(notes).toHaveLength(3)
    }).pipe(Effect.scoped))
})
