/**
 * `serveMcpHttp`: the registry over Streamable HTTP on 127.0.0.1, talked to by SDK v2's client
 * (`@modelcontextprotocol/client` 2.4.0) in both eras, and by hand for what no client sends.
 */
import { describe, expect, it } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import * as Http from "node:http"
import { ToolSystem, Workspace } from "../../../src/index.js"
import { serveMcpHttp } from "../../../src/tools/mcp/http.js"
import type { McpConfirmation } from "../../../src/tools/mcp/server.js"
import { tempDir } from "../../helpers/tempDir.js"
import { echoTool as echo, eventually, makeDeleteThing, makeForever } from "./helpers.js"
import { replyText as text } from "./replyText.js"

const { deletions, tool: deleteThing } = makeDeleteThing()

const { started, stopped, tool: forever } = makeForever()

/** The tools served on 127.0.0.1 (a free port) for the scope. */
const served = (confirmation?: McpConfirmation, extra: { readonly maxConcurrent?: number; readonly maxBodyBytes?: number } = {}) =>
  Effect.gen(function*() {
    const ws = yield* tempDir("mcp-http-")
    return yield* serveMcpHttp({ confirmation, ...extra }).pipe(
      Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [deleteThing, echo, forever], workspace: Workspace.layerFixed(ws) }))
    )
  })

type Era = "legacy" | "auto"

/** An SDK v2 client of `url` for the scope: `legacy` speaks 2025-11-25, `auto` 2026-07-28. */
const clientOf = (url: string, era: Era, answer?: "accept" | "decline") =>
  Effect.gen(function*() {
    const client = new Client(
      { name: "http-test", version: "1.0.0" },
      { capabilities: answer === undefined ? {} : { elicitation: { form: {} } }, versionNegotiation: { mode: era } }
    )
    let asked = 0
    if (answer !== undefined) {
      client.setRequestHandler("elicitation/create", () => {
        asked++
        return Promise.resolve(answer === "accept" ? { action: "accept", content: { confirm: true } } : { action: "decline" })
      })
    }
    yield* Effect.acquireRelease(
      Effect.promise(() => client.connect(new StreamableHTTPClientTransport(new URL(url)))),
      () => Effect.promise(() => client.close())
    )
    return { client, asked: () => asked }
  })

/** A raw POST on node:http (it lets a test set `Host`); the status and the body. */
const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  Effect.callback<{ readonly status: number; readonly body: string }>((resume) => {
    const req = Http.request(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }
    }, (res) => {
      let data = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (data += chunk))
      res.on("end", () => resume(Effect.succeed({ status: res.statusCode ?? 0, body: data })))
    })
    req.on("error", (error) => resume(Effect.succeed({ status: 0, body: error.message })))
    req.end(body)
    // interrupted (a test's timeout): the connection goes, and the server hears of it
    return Effect.sync(() => req.destroy())
  })

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
})

const callDelete = JSON.stringify({
  jsonrpc: "2.0",
  id: 2,
  method: "tools/call",
  params: { name: "delete_thing", arguments: { id: 1 } }
})

// live clock: a real HTTP server and SDK client (Node timers and sockets)
describe("serveMcpHttp", () => {
  for (const era of ["legacy", "auto"] as const) {
    it.live(`serves a ${era === "legacy" ? "2025-11-25" : "2026-07-28"} client: lists the tools with annotations, calls one`, () =>
      Effect.scoped(Effect.gen(function*() {
        const { url } = yield* served()
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
        const { client } = yield* clientOf(url, era)
        expect(client.getProtocolEra()).toBe(era === "legacy" ? "legacy" : "modern")
        const { tools } = yield* Effect.promise(() => client.listTools())
        expect(tools.map((t) => t.name)).toEqual(["delete_thing", "echo", "forever"])
        expect(tools.find((t) => t.name === "echo")?.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true })
        expect(tools.find((t) => t.name === "delete_thing")?.annotations).toMatchObject({ destructiveHint: true })
        const reply = yield* Effect.promise(() => client.callTool({ name: "echo", arguments: { text: "over http" } }))
        expect(text(reply)).toBe("over http")
      })))
  }

  it.live("2026-07-28: a call that needs confirmation asks through input_required; yes runs it once, no runs nothing", () =>
    Effect.scoped(Effect.gen(function*() {
      const { url } = yield* served()
      const before = deletions()
      const yes = yield* clientOf(url, "auto", "accept")
      const ran = yield* Effect.promise(() => yes.client.callTool({ name: "delete_thing", arguments: { id: 4 } }))
      expect(text(ran)).toMatch(/^"?deleted 4/)
      expect(yes.asked()).toBe(1)
      expect(deletions()).toBe(before + 1)
      const no = yield* clientOf(url, "auto", "decline")
      const refused = yield* Effect.promise(() => no.client.callTool({ name: "delete_thing", arguments: { id: 5 } }))
      expect(refused.isError).toBe(true)
      expect(text(refused)).toMatch(/^CONFIRMATION_REQUIRED: /)
      expect(no.asked()).toBe(1)
      expect(deletions()).toBe(before + 1)
    })))

  it.live("2025-11-25 over HTTP cannot be asked: the call is refused, saying why and what to do; auto confirms", () =>
    Effect.scoped(Effect.gen(function*() {
      const { url } = yield* served()
      const before = deletions()
      const { asked, client } = yield* clientOf(url, "legacy", "accept")
      const refused = yield* Effect.promise(() => client.callTool({ name: "delete_thing", arguments: { id: 6 } }))
      expect(refused.isError).toBe(true)
      expect(text(refused)).toMatch(/^CONFIRMATION_REQUIRED: .*stateless.*2026-07-28.*--yes/s)
      expect(asked()).toBe(0)
      expect(deletions()).toBe(before)
      const auto = yield* served("auto")
      const confirmed = yield* clientOf(auto.url, "legacy")
      const ran = yield* Effect.promise(() => confirmed.client.callTool({ name: "delete_thing", arguments: { id: 7 } }))
      expect(text(ran)).toMatch(/deleted 7/)
      expect(deletions()).toBe(before + 1)
    })))

  it.live("a foreign Host or Origin is 403 and runs nothing (DNS rebinding)", () =>
    Effect.scoped(Effect.gen(function*() {
      const { url } = yield* served("auto")
      const before = deletions()
      const host = yield* post(url, callDelete, { host: "evil.example:80" })
      expect(host.status).toBe(403)
      const origin = yield* post(url, callDelete, { origin: "http://evil.example" })
      expect(origin.status).toBe(403)
      expect(deletions()).toBe(before)
      // a loopback origin passes
      const ok = yield* post(url, initialize, { origin: "http://localhost:5173" })
      expect(ok.status).toBe(200)
    })))

  it.live("an oversize body is 413, malformed JSON a parse error, a flood past the cap 503; the server keeps serving", () =>
    Effect.scoped(Effect.gen(function*() {
      const { url } = yield* served(undefined, { maxBodyBytes: 10_000, maxConcurrent: 4 })
      const big = yield* post(url, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(20_000) } }))
      expect(big.status).toBe(413)
      const malformed = yield* post(url, "{ not json")
      expect(malformed.status).toBe(400)
      expect(malformed.body).toContain("-32700")
      // many slow requests at once: those past the cap are turned away, none of them breaks the server
      const floods = yield* Effect.forEach(
        Array.from({ length: 12 }, (_, i) => i),
        (i) =>
          post(url, JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "forever", arguments: {} } }), {
            "mcp-protocol-version": "2025-11-25"
          }).pipe(Effect.timeout("300 millis"), Effect.option),
        { concurrency: "unbounded" }
      )
      expect(floods.length).toBe(12)
      const busy = floods.filter((f) => f._tag === "Some" && f.value.status === 503)
      expect(busy.length).toBeGreaterThan(0)
      // the dropped connections cancel their calls: their places free up
      const stoppedNow = stopped()
      expect(yield* eventually(() => stopped() >= stoppedNow + 4 || stopped() >= started())).toBe(true)
      const { client } = yield* clientOf(url, "auto")
      expect(text(yield* Effect.promise(() => client.callTool({ name: "echo", arguments: { text: "alive" } })))).toBe("alive")
    })))

  it.live("a call the client cancels is interrupted: its finalizer runs", () =>
    Effect.scoped(Effect.gen(function*() {
      const { url } = yield* served()
      const { client } = yield* clientOf(url, "auto")
      const startedBefore = started()
      const stoppedBefore = stopped()
      const controller = new AbortController()
      const call = client.callTool({ name: "forever", arguments: {} }, { signal: controller.signal })
      expect(yield* eventually(() => started() > startedBefore)).toBe(true)
      controller.abort("enough")
      yield* Effect.promise(() => call.then(() => "answered", () => "rejected"))
      expect(yield* eventually(() => stopped() > stoppedBefore)).toBe(true)
    })))
})
