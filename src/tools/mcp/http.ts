/**
 * The registry served over Streamable HTTP (MCP SDK v2's `createMcpHandler` on a `node:http`
 * server), stateless per request: every request gets a fresh server from the same factory, so
 * any process behind a load balancer can answer any request.
 *
 * - 2026-07-28: the per-request `_meta` envelope, `server/discover`, no session; confirmation is
 *   an `input_required` result (the client asks its user and retries the call with the answer).
 *   `subscriptions/listen` streams hear of changed bridged tools.
 * - 2025-11-25: served statelessly too by default (no session: `GET`/`DELETE` answer 405). A
 *   stateless request cannot carry a server-to-client request, so **a call that needs
 *   confirmation is refused** (`CONFIRMATION_REQUIRED`, saying why and what to do: use
 *   2026-07-28, stdio, sessions or `--yes`).
 * - With `sessions` (opt-in, httpSessions.ts), a 2025 `initialize` opens a session
 *   (`Mcp-Session-Id`) served by its own server instance, which asks for confirmation by
 *   `elicitation/create` on the call's stream, as over stdio; `GET` and `DELETE` work as the
 *   2025-11-25 transport has them. Sessions pin a client to one process: behind a load balancer
 *   route each session id to its process (`McpHttpSessionOptions.route`).
 *
 * Against DNS rebinding, the `Host` header must name an allowed host and an `Origin` header, when
 * there is one, an allowed origin host (loopback names by default): anything else is 403 before
 * any server is made. A body over `maxBodyBytes` is 413, malformed JSON a JSON-RPC parse error,
 * and more than `maxConcurrent` requests at once 503: the process keeps serving.
 *
 * With `auth` (httpAuth.ts), the server is an OAuth 2.1 resource server: it publishes its
 * protected-resource metadata (RFC 9728), every MCP request needs a bearer JWT of the issuer
 * for this resource (401 otherwise, with the `WWW-Authenticate` challenge MCP asks for), and the
 * token's scopes narrow what the request's server lists and may call (scopeAccess.ts: a call
 * beyond them is refused by the `oauthScope` gate and answered 403 `insufficient_scope`).
 *
 * @since 1.0.0
 */
import { type AuthInfo, createMcpHandler, type McpServerFactory } from "@modelcontextprotocol/server"
import {
  type FetchLikeMcpHandler,
  hostHeaderValidation,
  type NodeIncomingMessageLike,
  originValidation,
  toNodeHandler
} from "@modelcontextprotocol/node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { McpBridge } from "../../services/McpBridge.js"
import { ToolRegistry } from "../../services/ToolRegistry.js"
import { ToolSystem } from "../../services/ToolSystem.js"
import { type AuthAnswer, type BearerAuth, makeBearerAuth, type McpHttpAuthOptions } from "./httpAuth.js"
import { makeSessionLeg, type McpHttpSessionOptions, type SessionServer } from "./httpSessions.js"
import { type ScopeGrant, scopedRegistry, scopedSystem } from "./scopeAccess.js"
import { type McpFactoryHooks, makeMcpServerFactory, McpServeError, type McpServeOptions } from "./server.js"

/** The host names a loopback server answers to (and the origin hosts it accepts). */
const LOOPBACK = ["localhost", "127.0.0.1", "[::1]", "::1"]

/**
 * Where and how `serveMcpHttp` listens.
 *
 * @since 1.0.0
 * @category models
 */
export interface McpHttpOptions extends McpServeOptions {
  /** The interface to bind. Default `127.0.0.1`. */
  readonly host?: string | undefined
  /** The port; `0` (the default) takes a free one (see `McpHttpServer.port`). */
  readonly port?: number | undefined
  /** The endpoint's path. Default `/mcp`. */
  readonly path?: string | undefined
  /** Host names the `Host` header may name. Default: loopback names only. */
  readonly allowedHosts?: ReadonlyArray<string> | undefined
  /** Host names an `Origin` header may name (a request without one passes). Default: loopback. */
  readonly allowedOrigins?: ReadonlyArray<string> | undefined
  /** The largest request body taken, in bytes (413 beyond). Default 1 MiB. */
  readonly maxBodyBytes?: number | undefined
  /** Requests served at once; more are answered 503. Default 64. */
  readonly maxConcurrent?: number | undefined
  /**
   * Serve as an OAuth 2.1 resource server: bearer JWTs of `issuer` for `resource`, scopes onto
   * the gates (see `McpHttpAuthOptions`). Default: no authorization (loopback use).
   */
  readonly auth?: McpHttpAuthOptions | undefined
  /**
   * Opt-in sessions for 2025-11-25 clients (`mcp --http ... --sessions`): an `initialize` opens
   * a session whose calls that need confirmation ask by `elicitation/create`, as over stdio (its
   * caps: `McpHttpSessionOptions`). A session lives in one process: behind a load balancer, give
   * each process a `route` and send each `Mcp-Session-Id` to the process its tag names (or keep
   * a client on one process). 2026-07-28 stays stateless. Default: none (every 2025 request
   * stateless, such a call refused).
   */
  readonly sessions?: McpHttpSessionOptions | undefined
}

/**
 * A listening MCP HTTP endpoint.
 *
 * @since 1.0.0
 * @category models
 */
export interface McpHttpServer {
  readonly host: string
  readonly port: number
  /** The endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string
}

/** Why a 2025-era call over HTTP that needs confirmation is refused. */
const LEGACY_HTTP_REFUSAL =
  "(MCP 2025-11-25 over HTTP is stateless here without a session: the server cannot ask. Confirm with protocol " +
  "2026-07-28 (input_required), over stdio, in a session (serve with --sessions), or serve with --yes)"

/** A request as the SDK's node handler reads it (its optional fields left out when unset). */
const incoming = (req: Http.IncomingMessage, auth?: AuthInfo): NodeIncomingMessageLike => ({
  [Symbol.asyncIterator]: () => req[Symbol.asyncIterator](),
  headers: req.headers,
  ...(req.method === undefined ? {} : { method: req.method }),
  ...(req.url === undefined ? {} : { url: req.url }),
  ...(auth === undefined ? {} : { auth })
})

const send = (res: Http.ServerResponse, answer: AuthAnswer, head: boolean): void => {
  if (res.headersSent) return
  res.writeHead(answer.status, answer.headers)
  res.end(head ? undefined : answer.body)
}

/** A grant that admits nothing: a request whose token could not be found again (never expected). */
const closedGrant = (bearer: BearerAuth): ScopeGrant => ({
  scopes: [],
  readScope: bearer.readScope,
  writeScope: bearer.writeScope,
  subject: undefined,
  refused: undefined
})

/** A plain session's server: the factory's, for the 2025 era. */
const openPlainSession = (make: McpServerFactory) => (authInfo: AuthInfo | undefined, requestInfo: Request): Promise<SessionServer> =>
  Promise.resolve(make({ era: "legacy", requestInfo, ...(authInfo === undefined ? {} : { authInfo }) })).then((server) => ({
    server,
    renew: () => undefined
  }))

const jsonError = (res: Http.ServerResponse, status: number, message: string): void => {
  if (res.headersSent) return
  res.writeHead(status, { "content-type": "application/json" })
  res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message } }))
}

/**
 * Serves the registry over Streamable HTTP for the scope: the server closes (its connections
 * too) when the scope does.
 *
 * @since 1.0.0
 * @category running
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ToolSystem } from "effect-tool-system"
 * import { serveMcpHttp } from "effect-tool-system/mcp"
 *
 * const main = Effect.scoped(Effect.gen(function*() {
 *   const { url } = yield* serveMcpHttp({ port: 3000 })
 *   yield* Effect.logInfo(`MCP on ${url}`)
 *   yield* Effect.never
 * })).pipe(Effect.provide(ToolSystem.layerNode()))
 * ```
 */
export const serveMcpHttp = (
  options: McpHttpOptions = {}
): Effect.Effect<McpHttpServer, McpServeError, ToolSystem | ToolRegistry | Scope.Scope> =>
  Effect.gen(function*() {
    const host = options.host ?? "127.0.0.1"
    const path = options.path ?? "/mcp"
    const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024
    const maxConcurrent = options.maxConcurrent ?? 64
    const context = yield* Effect.context<never>()
    const report = (error: Error) => Effect.runForkWith(context)(Effect.logDebug(`MCP over HTTP: ${error.message}`))
    const hooks = { legacyRefusalNote: LEGACY_HTTP_REFUSAL }
    const bearer = options.auth === undefined ? undefined : yield* makeBearerAuth(options.auth)
    /** Each authorized request's grant, found by its `authInfo` (the SDK hands that object on). */
    const grants = new WeakMap<AuthInfo, ScopeGrant>()
    const system = yield* ToolSystem
    const registry = yield* ToolRegistry
    const runPromise = Effect.runPromiseWith(context)
    const plain = yield* makeMcpServerFactory(options, hooks)
    /** With `auth`: a server whose registry and calls are narrowed to `grant`. */
    const narrowed = (grant: ScopeGrant, factoryHooks: McpFactoryHooks): Promise<McpServerFactory> =>
      runPromise(makeMcpServerFactory(options, factoryHooks).pipe(
        Effect.provideService(ToolSystem, scopedSystem(system, grant)),
        Effect.provideService(ToolRegistry, scopedRegistry(registry, grant))
      ))
    const factory: McpServerFactory = bearer === undefined ? plain : (made) => {
      const grant = (made.authInfo === undefined ? undefined : grants.get(made.authInfo)) ?? closedGrant(bearer)
      return narrowed(grant, hooks).then((make) => make(made))
    }
    const sessions = options.sessions === undefined ? undefined : yield* makeSessionLeg({
      ...options.sessions,
      maxBodyBytes,
      report,
      ownerOf: (authInfo) => {
        if (authInfo === undefined) return undefined
        const subject = grants.get(authInfo)?.subject
        return subject === undefined ? `client ${authInfo.clientId}` : `subject ${subject}`
      },
      // a session's server asks its client itself: no stateless refusal note
      open: bearer === undefined ? openPlainSession(yield* makeMcpServerFactory(options)) : (authInfo, requestInfo) => {
        // the session's scopes are those of its latest request's token (the subject stays the same)
        let scopes = authInfo?.scopes ?? []
        const grant: ScopeGrant = {
          get scopes() {
            return scopes
          },
          readScope: bearer.readScope,
          writeScope: bearer.writeScope,
          subject: authInfo === undefined ? undefined : grants.get(authInfo)?.subject,
          refused: undefined
        }
        const renew = (next: AuthInfo | undefined) => {
          scopes = next?.scopes ?? []
        }
        return narrowed(grant, {}).then(async (make) => ({
          server: await make({ era: "legacy", requestInfo, ...(authInfo === undefined ? {} : { authInfo }) }),
          renew
        }))
      }
    })
    const handler = createMcpHandler(factory, { legacy: "stateless", onerror: report, maxRequestBodySize: maxBodyBytes })
    /** A call the scope gate refused is answered 403 `insufficient_scope` (MCP's scope challenge). */
    const challenged: FetchLikeMcpHandler = {
      fetch: async (request, requestOptions) => {
        const routed = sessions === undefined ? undefined : await sessions.route(request, requestOptions?.authInfo)
        if (routed?._tag === "Answered") return routed.response
        const parsedBody = routed?.parsedBody
        const response = await handler.fetch(request, parsedBody === undefined ? requestOptions : { ...requestOptions, parsedBody })
        const grant = requestOptions?.authInfo === undefined ? undefined : grants.get(requestOptions.authInfo)
        if (bearer === undefined || grant?.refused === undefined) return response
        await response.body?.cancel().catch(() => undefined)
        const answer = bearer.insufficientScope(grant.scopes, grant.refused)
        return new Response(answer.body, { status: answer.status, headers: answer.headers })
      }
    }
    const serve = toNodeHandler(challenged, { onerror: report, maxRequestBodySize: maxBodyBytes })
    const hostAllowed = hostHeaderValidation([...(options.allowedHosts ?? LOOPBACK)])
    const originAllowed = originValidation([...(options.allowedOrigins ?? LOOPBACK)])
    let serving = 0
    /** Requests that may be sessions' standalone streams: apart, at most one a session may hold. */
    let streams = 0

    /** With `auth`: the request's token checked first (a refusal answered), then served with its grant. */
    const authorized = async (req: Http.IncomingMessage, res: Http.ServerResponse, bearer: BearerAuth) => {
      const verified = await bearer.authorize(req.headers.authorization)
      if (!("authInfo" in verified)) return send(res, verified, false)
      grants.set(verified.authInfo, {
        scopes: verified.authInfo.scopes,
        readScope: bearer.readScope,
        writeScope: bearer.writeScope,
        subject: verified.subject,
        refused: undefined
      })
      // the token is checked now only: a stream it opens is closed when it expires
      bearer.closeAtExpiry(verified.authInfo, res)
      return serve(incoming(req, verified.authInfo), res)
    }

    const onRequest = (req: Http.IncomingMessage, res: Http.ServerResponse): void => {
      const pathname = new URL(req.url ?? "/", "http://local").pathname
      const metadata = bearer?.metadataAt(pathname, req.method ?? "GET")
      if (metadata !== undefined) {
        if (!hostAllowed(req, res)) return
        return send(res, metadata, req.method === "HEAD")
      }
      if (pathname !== path) return jsonError(res, 404, "Not found")
      if (!hostAllowed(req, res) || !originAllowed(req, res)) return
      // a session's standalone stream stays open without working: counted apart (one a session)
      const stream = sessions !== undefined && req.method === "GET" && req.headers["mcp-session-id"] !== undefined
      if (stream ? streams >= (sessions?.maxSessions ?? 0) : serving >= maxConcurrent) {
        return jsonError(res, 503, "Too many requests at once")
      }
      if (stream) streams++
      else serving++
      const served = bearer === undefined ? serve(incoming(req), res) : authorized(req, res, bearer)
      served.catch((error: unknown) => {
        report(error instanceof Error ? error : new Error(String(error)))
        jsonError(res, 500, "Internal error")
      }).finally(() => {
        if (stream) streams--
        else serving--
      })
    }

    const server = yield* Effect.acquireRelease(
      Effect.callback<Http.Server, McpServeError>((resume) => {
        const server = Http.createServer(onRequest)
        const onError = (error: Error) =>
          resume(Effect.fail(new McpServeError({ reason: `cannot listen on ${host}:${options.port ?? 0}: ${error.message}` })))
        server.once("error", onError)
        server.listen(options.port ?? 0, host, () => {
          server.off("error", onError)
          server.on("error", report)
          resume(Effect.succeed(server))
        })
      }),
      (server) =>
        Effect.promise(() => Promise.all([sessions?.closeAll(), handler.close()])).pipe(
          Effect.andThen(Effect.callback<void>((resume) => {
            server.close(() => resume(Effect.void))
            server.closeAllConnections()
          }))
        )
    )

    const bridge = yield* Effect.serviceOption(McpBridge)
    if (Option.isSome(bridge)) {
      yield* bridge.value.events.pipe(
        Stream.runForEach(() =>
          Effect.sync(() => {
            handler.notify.toolsChanged()
            sessions?.toolsChanged()
          })
        ),
        Effect.forkScoped
      )
    }
    const address = server.address()
    const port = typeof address === "object" && address !== null ? (address satisfies AddressInfo).port : 0
    const urlHost = host.includes(":") ? `[${host}]` : host
    return { host, port, url: `http://${urlHost}:${port}${path}` }
  })

/**
 * `serveMcpHttp` as a layer: the endpoint listens for the layer's lifetime.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerMcpHttp = (
  options: McpHttpOptions = {}
): Layer.Layer<never, McpServeError, ToolSystem | ToolRegistry> =>
  Layer.effectDiscard(
    Effect.tap(serveMcpHttp(options), ({ url }) => Effect.logInfo(`Serving MCP on ${url}`))
  )
