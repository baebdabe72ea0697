/**
 * `serveMcpHttp` with `sessions`: 2025-11-25 clients (SDK v2's client pinned to the 2025 era)
 * get an `Mcp-Session-Id`, and a call that needs confirmation asks them by
 * `elicitation/create`, as over stdio. `GET` and `DELETE` work per session; an unknown, ended or
 * expired id is 404; 2026-07-28 stays stateless.
 */
import { describe, expect, it } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { ToolSystem, Workspace } from "../../../src/index.js"
import { type McpHttpOptions, serveMcpHttp } from "../../../src/tools/mcp/http.js"
import { tempDir } from "../../helpers/tempDir.js"
import { echoTool as echo, eventually, makeDeleteThing, makeForever } from "./helpers.js"
import { replyText as text } from "./replyText.js"

const { deletions, tool: deleteThing } = makeDeleteThing()
const { started, stopped, tool: forever } = makeForever()

/** The tools served with sessions on 127.0.0.1 (a free port) for the scope. */
const served = (options: McpHttpOptions = { sessions: {} }) =>
  Effect.gen(function*() {
    const ws = yield* tempDir("mcp-sessions-")
    return yield* serveMcpHttp(options).pipe(
      Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [deleteThing, echo, forever], workspace: Workspace.layerFixed(ws) }))
    )
  })

type Answer = "accept" | "decline" | "cancel" | "never"

/** An SDK v2 client of `url` for the scope (`legacy`: 2025-11-25, `auto`: 2026-07-28) answering `answer`. */
const clientOf = (url: string, era: "legacy" | "auto", answer?: Answer) =>
  Effect.gen(function*() {
    const client = new Client(
      { name: "sessions-test", version: "1.0.0" },
      { capabilities: answer === undefined ? {} : { elicitation: { form: {} } }, versionNegotiation: { mode: era } }
    )
    let asked = 0
    if (answer !== undefined) {
      client.setRequestHandler("elicitation/create", () => {
        asked++
        if (answer === "never") return new Promise<never>(() => undefined)
        return Promise.resolve(answer === "accept" ? { action: "accept", content: { confirm: true } } : { action: answer })
      })
    }
    const transport = new StreamableHTTPClientTransport(new URL(url))
    yield* Effect.acquireRelease(
      Effect.promise(() => client.connect(transport)),
      () => Effect.promise(() => client.close())
    )
    return { client, transport, asked: () => asked }
  })

const headers = (sessionId?: string) => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  ...(sessionId === undefined ? {} : { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" })
})

const request = (url: string, method: string, body?: unknown, sessionId?: string) =>
  Effect.promise(async () => {
    const response = await fetch(url, {
      method,
      headers: headers(sessionId),
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    return { status: response.status, sessionId: response.headers.get("mcp-session-id"), body: await response.text() }
  })

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
}
const listTools = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }

// live clock: a real HTTP server and SDK client (Node timers and sockets)
describe("serveMcpHttp with sessions", () => {
  it.live("2025-11-25: a call that needs confirmation asks the client; yes runs it once, no and cancel run nothing", () =>
    Effect.scoped(Effect.gen(function*() {
      const { url } = yield* served()
      const before = deletions()
      const yes = yield* clientOf(url, "legacy", "accept")
      expect(yes.client.getProtocolEra()).toBe("legacy")
      expect(yes.transport.sessionId).toMatch(/^[\w-]{43}$/)
      const ran = yield* Effect.promise(() => yes.client.callTool({ name: "delete_thing", arguments: { id: 1 } }))
      expect(text(ran)).toMatch(/deleted 1/)
      expect(yes.asked()).toBe(1)
      expect(deletions()).toBe(before + 1)
      for (const answer of ["decline", "cancel"] as const) {
        const no = yield* clientOf(url, "legacy", answer)
        const refused = yield* Effect.promise(() => no.client.callTool({ name: "delete_thing", arguments: { id: 2 } }))
        expect(refused.isError).toBe(true)
        expect(text(refused)).toMatch(/^CONFIRMATION_REQUIRED: /)
        expect(text(refused)).not.toMatch(/stateless/)
        expect(no.asked()).toBe(1)
      }
      // a client that takes no elicitation is not asked: refused, without the stateless note
      const mute = yield* clientOf(url, "legacy")
      const plain = yield* Effect.promise(() => mute.client.callTool({ name: "delete_thing", arguments: { id: 3 } }))
      expect(text(plain)).toMatch(/^CONFIRMATION_REQUIRED: /)
      expect(text(plain)).not.toMatch(/stateless/)
      expect(deletions()).toBe(before + 1)
    })))

  it.live("a session is reused by its requests; an unknown id is 404; DELETE ends it (404 after)", () =>
    Effect.scoped(Effect.gen(function*() {
      const { url } = yield* served()
      const opened = yield* request(url, "POST", initialize)
      expect(opened.status).toBe(200)
      const id = opened.sessionId
      expect(id).toMatch(/^[\w-]{43}$/)
      if (id === null) return
      expect((yield* request(url, "POST", { jsonrpc: "2.0", method: "notifications/initialized" }, id)).status).toBe(202)
      const listed = yield* request(url, "POST", listTools, id)
      expect(listed.status).toBe(200)
      expect(listed.body).toContain("delete_thing")
      // a second initialize opens another session, with another id
      const other = yield* request(url, "POST", initialize)
      expect(other.sessionId).not.toBe(id)
      // an id no session has
      const unknown = yield* request(url, "POST", listTools, `${id.slice(0, -2)}xx`)
      expect(unknown.status).toBe(404)
      expect(unknown.body).toContain("Session not found")
      expect((yield* request(url, "DELETE", undefined, id)).status).toBe(200)
      expect((yield* request(url, "POST", listTools, id)).status).toBe(404)
      expect((yield* request(url, "DELETE", undefined, id)).status).toBe(404)
    })))

  it.live("the SDK client's own session end (DELETE) cancels its call in flight: the call's finalizer runs", () =>
    Effect.scoped(Effect.gen(function*() {
      const { url } = yield* served()
      const { client, transport } = yield* clientOf(url, "legacy")
      const startedBefore = started()
      const stoppedBefore = stopped()
      const call = client.callTool({ name: "forever", arguments: {} }).then(() => "answered", () => "rejected")
      expect(yield* eventually(() => started() > startedBefore)).toBe(true)
      yield* Effect.promise(() => transport.terminateSession())
      expect(yield* eventually(() => stopped() > stoppedBefore)).toBe(true)
      expect(transport.sessionId).toBeUndefined()
      expect(yield* Effect.promise(() => call)).toBe("rejected")
    })))

  it.live("an idle session expires (nothing in flight): its id is then 404; a call in flight keeps its session", () =>
    Effect.scoped(Effect.gen(function*() {
      const { url } = yield* served({ sessions: { idleTimeoutMs: 300 } })
      const before = deletions()
      const { asked, client, transport } = yield* clientOf(url, "legacy", "never")
      const id = transport.sessionId
      const outcome = client.callTool({ name: "delete_thing", arguments: { id: 9 } }, { timeout: 5_000 }).then(
        (reply) => text(reply),
        (error: unknown) => `rejected: ${String(error)}`
      )
      expect(yield* eventually(() => asked() === 1)).toBe(true)
      // the question waits for its person: three idle timeouts later the session is still there
      yield* Effect.sleep("1 second")
      expect((yield* request(url, "POST", listTools, id)).status).toBe(200)
      // the client gives up on the call (its stream closes): the call is cancelled, nothing ran
      yield* Effect.promise(() => transport.close())
      expect(yield* Effect.promise(() => outcome)).toMatch(/^rejected: /)
      expect(deletions()).toBe(before)
      // nothing in flight any more: the session goes after its idle timeout
      yield* Effect.sleep("900 millis")
      expect((yield* request(url, "POST", listTools, id)).status).toBe(404)
    })))

  it.live("a route tags every session id (route.<random>); a route that is no plain tag fails serving", () =>
    Effect.scoped(Effect.gen(function*() {
      const { url } = yield* served({ sessions: { route: "east-1" } })
      const opened = yield* request(url, "POST", initialize)
      expect(opened.sessionId).toMatch(/^east-1\.[\w-]{43}$/)
      expect((yield* request(url, "POST", listTools, opened.sessionId ?? undefined)).status).toBe(200)
      for (const route of ["", "a.b", "a b", "x".repeat(65)]) {
        const failed = yield* Effect.flip(served({ sessions: { route } }))
        expect(failed._tag).toBe("McpServeError")
        expect(failed.message).toContain("a session route is 1 to 64 letters")
      }
    })))

  it.live("2026-07-28 stays stateless beside sessions: input_required, no session id", () =>
    Effect.scoped(Effect.gen(function*() {
      const { url } = yield* served()
      const before = deletions()
      const modern = yield* clientOf(url, "auto", "accept")
      expect(modern.client.getProtocolEra()).toBe("modern")
      expect(modern.transport.sessionId).toBeUndefined()
      const ran = yield* Effect.promise(() => modern.client.callTool({ name: "delete_thing", arguments: { id: 4 } }))
      expect(text(ran)).toMatch(/deleted 4/)
      expect(modern.asked()).toBe(1)
      expect(deletions()).toBe(before + 1)
    })))

  it.live("without sessions nothing changes: no session id, GET 405, the 2025 call refused with its note", () =>
    Effect.scoped(Effect.gen(function*() {
      const { url } = yield* served({})
      const opened = yield* request(url, "POST", initialize)
      expect(opened.status).toBe(200)
      expect(opened.sessionId).toBeNull()
      expect((yield* request(url, "GET", undefined)).status).toBe(405)
      const { client } = yield* clientOf(url, "legacy", "accept")
      const refused = yield* Effect.promise(() => client.callTool({ name: "delete_thing", arguments: { id: 5 } }))
      expect(text(refused)).toMatch(/^CONFIRMATION_REQUIRED: .*stateless.*--sessions.*--yes/s)
    })))
})
