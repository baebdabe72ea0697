/**
 * `serveMcpHttp` with `sessions` against hostile and careless clients: the session cap (503,
 * the open sessions keep working), a flood of `initialize`s, another subject's token on a
 * session's id (404, the session untouched), a client that vanishes mid-confirmation (nothing
 * left running: no call, no timer), the Host/Origin/body/concurrency checks on session requests,
 * one standalone stream a session, and the scope's end closing every session.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Scope } from "effect"
import * as Exit from "effect/Exit"
import * as Http from "node:http"
import { ToolSystem, Workspace } from "../../../src/index.js"
import { type McpHttpOptions, serveMcpHttp } from "../../../src/tools/mcp/http.js"
import { tempDir } from "../../helpers/tempDir.js"
import { startAuthServer } from "./authServer.js"
import { echoTool as echo, eventually, makeDeleteThing, makeForever } from "./helpers.js"

const { deletions, tool: deleteThing } = makeDeleteThing()
const { started, stopped, tool: forever } = makeForever()

const served = (options: McpHttpOptions) =>
  Effect.gen(function*() {
    const ws = yield* tempDir("mcp-sessions-hostile-")
    return yield* serveMcpHttp(options).pipe(
      Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [deleteThing, echo, forever], workspace: Workspace.layerFixed(ws) }))
    )
  })

interface Answer {
  readonly status: number
  readonly sessionId: string | undefined
  readonly body: string
}

/**
 * A raw request on node:http (it lets a test set `Host` and drop the connection): its answer, or
 * with `until`, the answer so far once its body contains `until` (the connection then dropped).
 */
const raw = (
  url: string,
  method: string,
  options: {
    readonly body?: unknown
    readonly sessionId?: string | undefined
    readonly headers?: Record<string, string>
    readonly until?: string
    /** Answer with the status as soon as the headers are in (the connection then dropped). */
    readonly headersOnly?: boolean
  } = {}
) =>
  Effect.callback<Answer>((resume) => {
    const req = Http.request(url, {
      method,
      headers: {
        "content-type": "application/json",
        accept: method === "GET" ? "text/event-stream" : "application/json, text/event-stream",
        ...(options.sessionId === undefined ? {} : { "mcp-session-id": options.sessionId, "mcp-protocol-version": "2025-11-25" }),
        ...options.headers
      }
    }, (res) => {
      let data = ""
      const answer = (): Answer => ({
        status: res.statusCode ?? 0,
        sessionId: typeof res.headers["mcp-session-id"] === "string" ? res.headers["mcp-session-id"] : undefined,
        body: data
      })
      if (options.headersOnly === true) {
        req.destroy()
        return resume(Effect.succeed(answer()))
      }
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => {
        data += chunk
        if (options.until !== undefined && data.includes(options.until)) {
          req.destroy()
          resume(Effect.succeed(answer()))
        }
      })
      res.on("end", () => resume(Effect.succeed(answer())))
      res.on("error", () => resume(Effect.succeed(answer())))
    })
    req.on("error", (error) => resume(Effect.succeed({ status: 0, sessionId: undefined, body: error.message })))
    req.end(options.body === undefined ? undefined : JSON.stringify(options.body))
    return Effect.sync(() => req.destroy())
  })

const initialize = (elicitation = false) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: elicitation ? { elicitation: { form: {} } } : {},
    clientInfo: { name: "raw", version: "1" }
  }
})
const initialized = { jsonrpc: "2.0", method: "notifications/initialized" }
const listTools = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }
const call = (name: string, args: Record<string, unknown>, id = 3) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args }
})

/** A session opened by hand (initialize, then initialized): its id. */
const openSession = (url: string, extra: { readonly elicitation?: boolean; readonly headers?: Record<string, string> } = {}) =>
  Effect.gen(function*() {
    const opened = yield* raw(url, "POST", { body: initialize(extra.elicitation), ...(extra.headers === undefined ? {} : { headers: extra.headers }) })
    expect(opened.status, opened.body).toBe(200)
    const id = opened.sessionId ?? ""
    expect(id).not.toBe("")
    const done = yield* raw(url, "POST", { body: initialized, sessionId: id, ...(extra.headers === undefined ? {} : { headers: extra.headers }) })
    expect(done.status).toBe(202)
    return id
  })

// live clock: a real HTTP server (Node timers and sockets)
describe("serveMcpHttp sessions, hostile", () => {
  it.live("past maxSessions a new initialize is 503; the open sessions keep working; an ended one frees its place", () =>
    Effect.scoped(Effect.gen(function*() {
      const { url } = yield* served({ sessions: { maxSessions: 2 } })
      const first = yield* openSession(url)
      const second = yield* openSession(url)
      const refused = yield* raw(url, "POST", { body: initialize() })
      expect(refused.status).toBe(503)
      expect(refused.sessionId).toBeUndefined()
      expect(refused.body).toContain("Too many sessions")
      for (const id of [first, second]) expect((yield* raw(url, "POST", { body: listTools, sessionId: id })).status).toBe(200)
      // stateless requests are not sessions: they still pass
      expect((yield* raw(url, "POST", { body: listTools, headers: { "mcp-protocol-version": "2025-11-25" } })).status).toBe(200)
      expect((yield* raw(url, "DELETE", { sessionId: first })).status).toBe(200)
      yield* openSession(url)
    })))

  it.live("a flood of initializes opens at most maxSessions; the rest are 503", () =>
    Effect.scoped(Effect.gen(function*() {
      const { url } = yield* served({ sessions: { maxSessions: 10 } })
      const flood = yield* Effect.forEach(
        Array.from({ length: 60 }, () => initialize()),
        (body) => raw(url, "POST", { body }),
        { concurrency: 20 }
      )
      const opened = flood.filter((answer) => answer.status === 200)
      expect(opened.length).toBe(10)
      expect(flood.filter((answer) => answer.status === 503).length).toBe(50)
      expect(new Set(opened.map((answer) => answer.sessionId)).size).toBe(10)
    })))

  it.live("sessions stuck at their handshake expire, and their places are free again", () =>
    Effect.scoped(Effect.gen(function*() {
      const { url } = yield* served({ sessions: { maxSessions: 2, idleTimeoutMs: 200 } })
      const stuck = yield* Effect.forEach([1, 2], () => raw(url, "POST", { body: initialize() }))
      expect(stuck.map((answer) => answer.status)).toEqual([200, 200])
      expect((yield* raw(url, "POST", { body: initialize() })).status).toBe(503)
      yield* Effect.sleep("500 millis")
      for (const answer of stuck) {
        expect((yield* raw(url, "POST", { body: listTools, sessionId: answer.sessionId })).status).toBe(404)
      }
      yield* openSession(url)
    })))

  it.live("with auth a session belongs to its subject: another subject's token on its id is 404 and leaves it be", () =>
    Effect.scoped(Effect.gen(function*() {
      const as = yield* startAuthServer
      const resource = "https://mcp.example.test/mcp"
      const { url } = yield* served({ sessions: {}, confirmation: "auto", auth: { issuer: as.issuer, resource, jwksUrl: as.jwksUrl } })
      const alice = yield* Effect.promise(() => as.token(resource, { sub: "alice", scope: "mcp:read mcp:write" }))
      const mallory = yield* Effect.promise(() => as.token(resource, { sub: "mallory", scope: "mcp:read mcp:write" }))
      const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
      const id = yield* openSession(url, { headers: bearer(alice) })
      const before = deletions()
      const stolen = yield* raw(url, "POST", { body: call("delete_thing", { id: 1 }), sessionId: id, headers: bearer(mallory) })
      expect(stolen.status).toBe(404)
      expect((yield* raw(url, "DELETE", { sessionId: id, headers: bearer(mallory) })).status).toBe(404)
      expect((yield* raw(url, "GET", { sessionId: id, headers: bearer(mallory) })).status).toBe(404)
      // no token at all: 401 before any session is looked at
      expect((yield* raw(url, "POST", { body: listTools, sessionId: id })).status).toBe(401)
      expect(deletions()).toBe(before)
      // the owner's session is untouched
      const own = yield* raw(url, "POST", { body: call("delete_thing", { id: 2 }), sessionId: id, headers: bearer(alice) })
      expect(own.status).toBe(200)
      expect(own.body).toContain("deleted 2")
      // a later read-only token of the same subject narrows the session's calls
      const readOnly = yield* Effect.promise(() => as.token(resource, { sub: "alice", scope: "mcp:read" }))
      const narrowed = yield* raw(url, "POST", { body: call("delete_thing", { id: 3 }), sessionId: id, headers: bearer(readOnly) })
      expect(narrowed.body).toContain("POLICY_VETO")
      expect(deletions()).toBe(before + 1)
    })))

  it.live("a client that vanishes mid-confirmation leaves nothing waiting: a late yes runs nothing", () =>
    Effect.scoped(Effect.gen(function*() {
      const { url } = yield* served({ sessions: {} })
      const id = yield* openSession(url, { elicitation: true })
      const before = deletions()
      // the question arrives on the call's stream; the client drops the connection there
      const asked = yield* raw(url, "POST", { body: call("delete_thing", { id: 8 }), sessionId: id, until: "elicitation/create" })
      const question = /"id":(\d+)\}\n/.exec(asked.body.slice(asked.body.indexOf("elicitation/create")))
      expect(question).not.toBeNull()
      yield* Effect.sleep("100 millis")
      // the call was cancelled with its question (and the question's timer): a yes now finds no one waiting
      const late = { jsonrpc: "2.0", id: Number(question?.[1]), result: { action: "accept", content: { confirm: true } } }
      expect((yield* raw(url, "POST", { body: late, sessionId: id })).status).toBe(202)
      yield* Effect.sleep("100 millis")
      expect(deletions()).toBe(before)
      // the session itself lives on
      expect((yield* raw(url, "POST", { body: listTools, sessionId: id })).status).toBe(200)
    })))

  it.live("an answer on the session's own POST, while the call's stream is open, runs the call (the control case)", () =>
    Effect.scoped(Effect.gen(function*() {
      const { url } = yield* served({ sessions: {} })
      const id = yield* openSession(url, { elicitation: true })
      const before = deletions()
      const fiber = yield* Effect.forkChild(raw(url, "POST", { body: call("delete_thing", { id: 9 }), sessionId: id }))
      yield* Effect.sleep("100 millis")
      const yes = { jsonrpc: "2.0", id: 0, result: { action: "accept", content: { confirm: true } } }
      expect((yield* raw(url, "POST", { body: yes, sessionId: id })).status).toBe(202)
      const answered = yield* Fiber.join(fiber)
      expect(answered.body).toContain("deleted 9")
      expect(deletions()).toBe(before + 1)
    })))

  it.live("session requests get the Host, Origin, body and concurrency checks; one standalone stream a session", () =>
    Effect.scoped(Effect.gen(function*() {
      const { url } = yield* served({ sessions: {}, maxBodyBytes: 10_000, maxConcurrent: 1 })
      const id = yield* openSession(url)
      expect((yield* raw(url, "POST", { body: listTools, sessionId: id, headers: { host: "evil.example" } })).status).toBe(403)
      expect((yield* raw(url, "POST", { body: listTools, sessionId: id, headers: { origin: "http://evil.example" } })).status).toBe(403)
      const big = yield* raw(url, "POST", { body: { ...listTools, params: { pad: "x".repeat(20_000) } }, sessionId: id })
      expect(big.status).toBe(413)
      // the standalone stream stays open without taking the one place
      const stream = yield* Effect.forkScoped(raw(url, "GET", { sessionId: id }))
      yield* Effect.sleep("50 millis")
      expect((yield* raw(url, "POST", { body: listTools, sessionId: id })).status).toBe(200)
      expect((yield* raw(url, "GET", { sessionId: id })).status).toBe(409)
      // a call at work takes the place: the next request is 503
      const startedBefore = started()
      const busy = yield* Effect.forkScoped(raw(url, "POST", { body: call("forever", {}), sessionId: id }))
      expect(yield* eventually(() => started() > startedBefore)).toBe(true)
      expect((yield* raw(url, "POST", { body: listTools, sessionId: id })).status).toBe(503)
      yield* Fiber.interruptAll([busy, stream])
    })))

  it.live("GETs naming a session are capped apart, at maxSessions at once (503 past it); a dropped stream is let go at once", () =>
    Effect.scoped(Effect.gen(function*() {
      const { url } = yield* served({ sessions: { maxSessions: 1 }, maxConcurrent: 1 })
      const id = yield* openSession(url)
      const stream = yield* Effect.forkScoped(raw(url, "GET", { sessionId: id }))
      yield* Effect.sleep("50 millis")
      // the one place for such requests is taken by the open stream: a flood of made-up ids is turned away
      expect((yield* raw(url, "GET", { sessionId: "made-up" })).status).toBe(503)
      // other requests still have theirs
      expect((yield* raw(url, "POST", { body: listTools, sessionId: id })).status).toBe(200)
      yield* Fiber.interrupt(stream)
      yield* Effect.sleep("50 millis")
      expect((yield* raw(url, "GET", { sessionId: "made-up" })).status).toBe(404)
      // the dropped stream is let go at once (not at its next keep-alive): the session may open another
      expect((yield* raw(url, "GET", { sessionId: id, headersOnly: true })).status).toBe(200)
    })))

  it.live("the scope's end closes every session: calls in flight are answered and cancelled (finalizers run)", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const { url } = yield* served({ sessions: {} }).pipe(Scope.provide(scope))
      const ids = yield* Effect.all([openSession(url), openSession(url)])
      const startedBefore = started()
      const stoppedBefore = stopped()
      const calls = yield* Effect.forEach(ids, (id) => Effect.forkChild(raw(url, "POST", { body: call("forever", {}), sessionId: id })))
      expect(yield* eventually(() => started() >= startedBefore + 2)).toBe(true)
      yield* Scope.close(scope, Exit.void)
      expect(yield* eventually(() => stopped() >= stoppedBefore + 2)).toBe(true)
      for (const fiber of calls) {
        const answer = yield* Fiber.join(fiber)
        expect(answer.body).toContain("The MCP server is closing: the request was cancelled")
      }
    }))
})
