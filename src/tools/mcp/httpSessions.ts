/**
 * Opt-in MCP sessions for 2025-11-25 clients over Streamable HTTP (`McpHttpOptions.sessions`,
 * `mcp --http HOST:PORT --sessions`): what lets a 2025 client be asked to confirm a call.
 *
 * A stateless 2025 request cannot carry a server-to-client request, so without sessions a call
 * that needs confirmation is refused. With them, a 2025 `initialize` opens a session: its answer
 * carries an `Mcp-Session-Id` (32 random bytes, base64url), and every later request naming it is
 * served by that session's own server instance over SDK v2's stateful transport
 * (`WebStandardStreamableHTTPServerTransport`), so the server can send `elicitation/create` on a
 * call's response stream and hear the answer, as over stdio. `GET` opens the session's standalone
 * SSE stream (one at a time, `409` for a second) and `DELETE` ends the session. 2026-07-28 has no
 * sessions: its requests, and 2025 requests that name no session, stay stateless.
 *
 * What a session costs is bounded: at most `maxSessions` at once (a further `initialize` is
 * `503`, and the sessions there keep working); a session with nothing in flight and no request
 * for `idleTimeoutMs` (one that never got past its `initialize`, within `min(idleTimeoutMs, 30 s)`)
 * is closed; a request in flight (a long call, a question waiting for its person) keeps its
 * session, and ends with its call or its client's stream. Closing
 * a session (idle, `DELETE`, the scope's end) cancels its calls in flight, whose finalizers run: a
 * pending confirmation ends refused. A client that goes away while one of its calls runs (its
 * response stream closed) cancels that call: there is no event store, so its answer could never
 * be delivered. An id no session has (unknown, expired, ended) is `404`, and so is a session's id
 * sent with a bearer token of another subject (a session belongs to the subject, or without one
 * the client, of the token that opened it).
 *
 * Sessions live in one process: behind a load balancer, a session's requests must reach the
 * process that opened it, or they find none (`404`, and the client starts a new session). Give
 * each process a `route`, the tag its session ids start with, and route on it (nginx: `map
 * $http_mcp_session_id $backend { ~^a\. 127.0.0.1:3001; ~^b\. 127.0.0.1:3002; default all; }`
 * and `proxy_pass http://$backend;`), or keep each client on one process (`ip_hash`). A hash of
 * the id alone does not do: the `initialize` that makes the id has none, so it goes anywhere.
 *
 * @since 1.0.0
 */
import {
  type AuthInfo,
  isInitializeRequest,
  isLegacyRequest,
  type JSONRPCNotification,
  McpServer,
  type RequestId,
  type Server,
  WebStandardStreamableHTTPServerTransport
} from "@modelcontextprotocol/server"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { randomBytes } from "node:crypto"
import { bodyOf, jsonRpcError, notFound, requestIds, untilSent } from "./httpSessionWire.js"
import { McpServeError } from "./server.js"

/**
 * Opt-in sessions for 2025-11-25 clients over HTTP (`McpHttpOptions.sessions`) and their caps.
 * A session's id is 32 random bytes; an id no session has (unknown, ended by `DELETE`, expired,
 * or sent with another subject's token under `auth`) is 404, and the client opens a new one.
 * Closing a session answers its requests in flight with an error saying why and cancels their
 * calls (a pending confirmation is refused, never left waiting); a client that drops a call's
 * stream cancels that call.
 *
 * @since 1.0.0
 * @category models
 */
export interface McpHttpSessionOptions {
  /** Sessions open at once; a further `initialize` is answered 503. Default 1,000. */
  readonly maxSessions?: number | undefined
  /** A session with nothing in flight and no request for this long is closed. Default 10 minutes. */
  readonly idleTimeoutMs?: number | undefined
  /**
   * This process's tag (letters, digits, `_`, `-`; at most 64), put before each session id as
   * `<route>.<random>` so that a load balancer can send a session's requests to the process that
   * holds it (nginx: a `map` from the id's tag to that process). A hash of the whole id cannot:
   * the `initialize` that makes the id has none yet. Default: no tag.
   */
  readonly route?: string | undefined
}

/**
 * A new session's server, and what each of its later requests tells it (its token, with `auth`).
 *
 * @internal
 */
export interface SessionServer {
  readonly server: McpServer | Server
  /** Called with every later request's `authInfo` before it is served. */
  readonly renew: (authInfo: AuthInfo | undefined) => void
}

/**
 * What the session leg needs from the HTTP server.
 *
 * @internal
 */
export interface SessionLegOptions extends McpHttpSessionOptions {
  /** A fresh server (2025 era) for a session opened by a request with `authInfo`. */
  readonly open: (authInfo: AuthInfo | undefined, request: Request) => Promise<SessionServer>
  /** Who a request is: a session answers only requests of the one who opened it. */
  readonly ownerOf: (authInfo: AuthInfo | undefined) => string | undefined
  readonly maxBodyBytes: number
  readonly report: (error: Error) => void
}

/**
 * A request's fate: answered by the session leg, or handed on to the stateless handler (with
 * its body, when it was read and is JSON).
 *
 * @internal
 */
export type SessionRoute =
  | { readonly _tag: "Answered"; readonly response: Response }
  | { readonly _tag: "Stateless"; readonly parsedBody: unknown }

/**
 * The sessions of one HTTP server.
 *
 * @internal
 */
export interface SessionLeg {
  /** Serves a request that opens or names a session; any other is handed on. */
  readonly route: (request: Request, authInfo: AuthInfo | undefined) => Promise<SessionRoute>
  /** Sessions open now. */
  readonly size: () => number
  /** The most sessions open at once. */
  readonly maxSessions: number
  /** Tells every session's client (on its standalone stream) that the tools changed. */
  readonly toolsChanged: () => void
  /**
   * Closes every session (their calls in flight answered, then cancelled) and opens no more:
   * the HTTP server calls it before closing its connections, so the answers can still go out.
   */
  readonly closeAll: () => Promise<void>
}

interface Session {
  readonly id: string
  readonly owner: string | undefined
  readonly made: SessionServer
  readonly transport: WebStandardStreamableHTTPServerTransport
  /** The client's requests whose answer is not all sent yet. */
  readonly inFlight: Set<RequestId>
  lastSeen: number
  requests: number
  closed: boolean
}

/** The header naming a session (HTTP headers are case-insensitive; `Headers` lower-cases). */
const SESSION_HEADER = "mcp-session-id"

/** A session that never got past its `initialize` is closed after this (or the idle timeout, if shorter). */
const HANDSHAKE_MS = 30_000

const lowLevel = (server: McpServer | Server): Server => (server instanceof McpServer ? server.server : server)

/**
 * The session leg of an HTTP server, for the scope: when the scope closes, every session is
 * closed (its calls cancelled) and no new one opens.
 *
 * @internal
 */
export const makeSessionLeg = (options: SessionLegOptions): Effect.Effect<SessionLeg, McpServeError, Scope.Scope> =>
  Effect.gen(function*() {
    const processRoute = options.route
    if (processRoute !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(processRoute)) {
      return yield* new McpServeError({
        reason: `a session route is 1 to 64 letters, digits, "_" or "-", not ${JSON.stringify(processRoute)}`
      })
    }
    const tag = processRoute === undefined ? "" : `${processRoute}.`
    const maxSessions = Math.max(1, options.maxSessions ?? 1000)
    const idleMs = Math.max(1, options.idleTimeoutMs ?? 10 * 60_000)
    const handshakeMs = Math.min(idleMs, HANDSHAKE_MS)
    const clock = yield* Clock.Clock
    const now = () => clock.currentTimeMillisUnsafe()
    const sessions = new Map<string, Session>()
    /** `initialize`s being served: they count against the cap before their session exists. */
    let opening = 0
    let shut = false

    const reportUnknown = (error: unknown) => options.report(error instanceof Error ? error : new Error(String(error)))

    /**
     * Answers the session's requests in flight with an error saying why: their client hears at
     * once (a pending confirmation is refused, not left hanging), then their calls are cancelled.
     */
    const answerInFlight = (session: Session, why: string): Promise<void> =>
      Promise.all([...session.inFlight].map((id) =>
        session.transport.send({ jsonrpc: "2.0", id, error: { code: -32000, message: `${why}: the request was cancelled` } })
          .catch(() => undefined) // already answered (its stream is gone): nothing to tell
      )).then(() => session.inFlight.clear())

    /** Closes the session's server and transport: calls in flight on it are told why and aborted. */
    const close = (session: Session, why: string): Promise<void> => {
      if (session.closed) return Promise.resolve()
      session.closed = true
      sessions.delete(session.id)
      return answerInFlight(session, why).then(() => session.made.server.close()).catch(reportUnknown)
    }

    /** Cancels a session's calls of a request whose client went away before their answer. */
    const cancel = (session: Session, ids: ReadonlyArray<RequestId>) => {
      for (const requestId of ids) {
        const cancelled: JSONRPCNotification = {
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId, reason: "The client closed the request's stream" }
        }
        session.transport.onmessage?.(cancelled)
      }
    }

    /** Serves `request` (one of the session's) on its transport. */
    const serveIn = async (session: Session, request: Request, authInfo: AuthInfo | undefined): Promise<Response> => {
      session.lastSeen = now()
      session.requests++
      session.made.renew(authInfo)
      const body = request.method === "POST" ? await bodyOf(request) : undefined
      const ids = requestIds(body)
      if (ids.length > 0) {
        // fires only when the response was not all written (toNodeHandler aborts on an early close)
        request.signal.addEventListener("abort", () => cancel(session, ids), { once: true })
      }
      for (const id of ids) session.inFlight.add(id)
      const sent = () => {
        // idle time counts from the end of the session's last request, not its start
        session.lastSeen = now()
        for (const id of ids) session.inFlight.delete(id)
      }
      const response = await session.transport.handleRequest(request, {
        ...(body === undefined ? {} : { parsedBody: body }),
        ...(authInfo === undefined ? {} : { authInfo })
      }).catch((error: unknown) => {
        sent()
        throw error
      })
      return untilSent(response, sent, request.signal)
    }

    /** Opens a session with its `initialize` (`body`), unless the cap is reached. */
    const open = async (request: Request, body: unknown, authInfo: AuthInfo | undefined): Promise<Response> => {
      if (shut || sessions.size + opening >= maxSessions) {
        options.report(new Error(`MCP session refused: ${maxSessions} sessions are open`))
        return jsonRpcError(503, -32000, `Too many sessions (${maxSessions}): try again later, or without a session`)
      }
      opening++
      let made: SessionServer | undefined
      let session: Session | undefined
      try {
        const opened = await options.open(authInfo, request)
        made = opened
        const server = opened.server
        const owner = options.ownerOf(authInfo)
        const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => `${tag}${randomBytes(32).toString("base64url")}`,
          maxRequestBodySize: options.maxBodyBytes,
          onsessioninitialized: (id) => {
            session = { id, owner, made: opened, transport, inFlight: new Set(), lastSeen: now(), requests: 1, closed: false }
            sessions.set(id, session)
          },
          // a DELETE: the session's requests in flight are answered before it closes
          onsessionclosed: () => (session === undefined ? undefined : answerInFlight(session, "The client ended the MCP session"))
        })
        await server.connect(transport)
        // the transport closes on DELETE as on close(): either way the session is gone
        const closed = transport.onclose
        transport.onclose = () => {
          if (session !== undefined) {
            session.closed = true
            sessions.delete(session.id)
          }
          closed?.()
        }
        const response = await transport.handleRequest(request, {
          parsedBody: body,
          ...(authInfo === undefined ? {} : { authInfo })
        })
        // refused before a session was made (a bad header, say): nothing of it stays
        if (session === undefined || shut) {
          await (session === undefined ? server.close() : close(session, "The server is closing"))
        }
        return response
      } catch (error) {
        options.report(error instanceof Error ? error : new Error(String(error)))
        await (session === undefined ? made?.server.close() : close(session, "The session could not open"))?.catch(reportUnknown)
        return jsonRpcError(500, -32603, "Internal error")
      } finally {
        opening--
      }
    }

    const route = async (request: Request, authInfo: AuthInfo | undefined): Promise<SessionRoute> => {
      const id = request.headers.get(SESSION_HEADER)
      if (id !== null) {
        const session = sessions.get(id)
        // another subject's session is answered like an expired one: nothing says it exists
        if (session === undefined || session.closed || session.owner !== options.ownerOf(authInfo)) {
          return { _tag: "Answered", response: notFound() }
        }
        return { _tag: "Answered", response: await serveIn(session, request, authInfo) }
      }
      if (request.method !== "POST") return { _tag: "Stateless", parsedBody: undefined }
      const body = await bodyOf(request)
      const opens = isInitializeRequest(body) &&
        await isLegacyRequest(request, body, { maxRequestBodySize: options.maxBodyBytes })
      return opens
        ? { _tag: "Answered", response: await open(request, body, authInfo) }
        : { _tag: "Stateless", parsedBody: body }
    }

    const sweep = Effect.suspend(() => {
      const at = now()
      // a session with a request in flight (a long call, a question waiting for its person) is not
      // idle: that request ends with its call (its deadline) or with its client's stream
      const stale = [...sessions.values()].filter((session) =>
        session.inFlight.size === 0 && at - session.lastSeen >= (session.requests <= 1 ? handshakeMs : idleMs)
      )
      return stale.length === 0 ? Effect.void : Effect.promise(() =>
        Promise.all(stale.map((session) => close(session, `The MCP session expired (no request for ${idleMs} ms)`)))
      )
    })
    const every = Duration.millis(Math.max(10, Math.min(handshakeMs / 4, 15_000)))
    yield* Effect.forkScoped(Effect.forever(Effect.andThen(Effect.sleep(every), sweep)))
    const closeAll = () => {
      shut = true
      return Promise.all([...sessions.values()].map((session) => close(session, "The MCP server is closing"))).then(() => undefined)
    }
    yield* Effect.addFinalizer(() => Effect.promise(closeAll))

    return {
      closeAll,
      maxSessions,
      route,
      size: () => sessions.size,
      toolsChanged: () => {
        for (const session of sessions.values()) {
          lowLevel(session.made.server).sendToolListChanged().catch(options.report)
        }
      }
    }
  })
