/**
 * One connection to an MCP server: a stdio server's process (`process.ts`) or an HTTP server's
 * transport (`httpLink.ts`), the SDK v2 `Client` over it, the handshake under a timeout
 * (`initialize`, or the 2026-07-28 `server/discover` probe, per the entry's `protocol`), and the
 * server's tools (every page of `tools/list`).
 *
 * What fails here, with the reason a person can act on: a command that does not exist
 * (`ENOENT` from spawn), a URL the rule refuses, a server that exits before it answers
 * (`Connection closed`, with its exit code and the end of its stderr), one that cannot be
 * reached (`fetch failed`), one that does not answer in time (`Request timed out`).
 *
 * An entry with `oauth`: its provider (`oauthProvider.ts`) is made first (a token store that
 * cannot be read fails the connection); it refreshes or authorizes inside the transport, one
 * flow at a time for all the server's requests; a request refused for want of scope is stepped
 * up and sent again (a first connection so refused is made again on a fresh link).
 *
 * Effect 4: whether debug lines are logged is read from `References.MinimumLogLevel` in the
 * connecting fiber's context (Effect 3's `FiberRef`s are gone).
 *
 * @since 0.1.0
 */
import {
  Client,
  type AuthProvider,
  type ListToolsResult,
  type OAuthClientProvider,
  ProtocolError,
  SdkHttpError,
  type Tool as McpTool,
  type Transport as ServerProcessTransport,
  type VersionNegotiationOptions
} from "@modelcontextprotocol/client"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as LogLevel from "effect/LogLevel"
import * as References from "effect/References"
import * as Scope from "effect/Scope"
import { isHttpServer, type McpProtocolMode, type McpServerConfig } from "./config.js"
import { makeProgressRoutes, type ToolCalls } from "./directCalls.js"
import { ELICITATION_CAPABILITIES, type ElicitationOptions, MAX_INPUT_ROUNDS, makeElicitationDesk } from "./elicitation.js"
import { type HttpLink, openHttpLink, type ServerLink } from "./httpLink.js"
import { McpOAuthError } from "./oauthModels.js"
import { type BridgeOAuthProvider, makeOAuthProvider, type OAuthService } from "./oauthProvider.js"
import { liveClock, startServerProcess } from "./process.js"
import { DEFAULT_SERVER_LIMITS, type ServerLimits } from "./serverLimits.js"
import { VERSION } from "../../version.js"

export type { Tool as McpTool } from "@modelcontextprotocol/client"

/**
 * Most tools taken from one server.
 *
 * @internal
 */
export const MAX_TOOLS_PER_SERVER = 1000
/**
 * Most pages of one `tools/list` read (a server may page without end, or with empty pages).
 *
 * @internal
 */
export const MAX_TOOL_PAGES = 100
/** Our name and version, as a client. */
const CLIENT_INFO = { name: "effect-tool-system", version: VERSION }

/**
 * A server could not be started or connected.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpConnectError extends Data.TaggedError("McpConnectError")<{
  readonly server: string
  readonly reason: string
}> {
  override get message(): string {
    return `MCP server "${this.server}" is unavailable: ${this.reason}`
  }
}

/**
 * A live connection.
 *
 * @internal
 */
export interface Connection {
  readonly client: Client
  /** What it runs over: the server's process (stdio), or its HTTP transport (`pid` 0). */
  readonly process: ServerLink
  /**
   * How its `tools/call` requests go: the stdio call table beside the SDK client on a 2025-era
   * stdio connection (`directCalls.ts`), the SDK client's `request` otherwise.
   */
  readonly calls: ToolCalls
  /** The protocol version agreed (`2025-11-25`, `2026-07-28`, ...). */
  readonly protocolVersion: string | undefined
  /** The server's tools as it listed them when the connection was made. */
  readonly tools: ReadonlyArray<McpTool>
  /** `false` once the connection has closed (the process ended or stopped talking). */
  readonly isOpen: () => boolean
}

/**
 * The message of anything the SDK or the platform threw.
 *
 * @internal
 */
export const errorText = (error: unknown): string =>
  error instanceof ProtocolError
    ? `MCP error ${error.code}: ${error.message}`
    : error instanceof McpOAuthError
    ? `authorization failed: ${error.reason}`
    : error instanceof Error
    ? error.message
    : String(error)

/**
 * `reason`, plus how the process ended and the end of its stderr, when it ended by itself
 * (not when we stopped it, after a timeout say), or why we stopped it when it broke the protocol.
 *
 * @internal
 */
export const withProcessState = (process: ServerLink, reason: string): Effect.Effect<string> => {
  const stoppedFor = process.stoppedFor()
  if (stoppedFor !== undefined) return Effect.succeed(`${reason} (${stoppedFor})`)
  return !process.endedOnItsOwn() ? Effect.succeed(reason) : Effect.map(
    // the exit event may come just after the pipe closes
    Effect.timeoutOption(process.exited, Duration.millis(300)).pipe(Effect.provideService(Clock.Clock, liveClock)),
    (exit) => {
      if (exit._tag === "None") return reason
      const stderr = process.stderrTail()
      return `${reason} (the server ${exit.value}${stderr === "" ? "" : `; stderr: ${stderr}`})`
    }
  )
}

/**
 * Options of a connection.
 *
 * @internal
 */
export interface ConnectOptions {
  readonly initTimeout: Duration.Duration
  readonly stopGrace: Duration.Duration
  /** What the server is held to (default: `DEFAULT_SERVER_LIMITS`). */
  readonly limits?: ServerLimits | undefined
  /** The OAuth seam of HTTP servers: a provider for a server, by name (none: no OAuth). */
  readonly authProvider?: ((server: string) => AuthProvider | OAuthClientProvider | undefined) | undefined
  /** The application's `McpOAuth` service, for the entries with `oauth` (none: they are skipped). */
  readonly oauth?: OAuthService | undefined
  /**
   * The application's `McpElicitation` service and its timeout: with it the client declares form
   * elicitation and answers the server's questions (`elicitation.ts`); without it, none.
   */
  readonly elicitation?: ElicitationOptions | undefined
}

/** How long a stdio server has to answer the 2026 probe (`protocol: "auto"`) before it is taken as a 2025-era one. */
const STDIO_PROBE_MS = 2000

/** SDK v2's version negotiation for `mode`. */
const negotiation = (mode: McpProtocolMode, http: boolean, timeoutMs: number): VersionNegotiationOptions =>
  mode === "legacy"
    ? { mode: "legacy" }
    : mode === "auto"
    ? { mode: "auto", probe: { timeoutMs: http ? timeoutMs : Math.min(STDIO_PROBE_MS, timeoutMs) } }
    : { mode: { pin: mode } }

/**
 * Whether a failed request says the HTTP connection is gone (the server is down or refused the
 * connection: `fetch` failed; or it forgot our session: 404), not that the server answered
 * wrongly (an error answer, a timeout, a body of the wrong type: those fail the call only).
 */
const connectionLost = (error: unknown): boolean =>
  error instanceof TypeError || (error instanceof SdkHttpError && error.data.status === 404)

/**
 * The `tools/call` requests of a connection through the SDK client's `request` (2026-07-28 era,
 * HTTP): the SDK adds the era's envelope, and cancels an aborted request as the era does
 * (`notifications/cancelled`, or closing the request's own HTTP stream). The answer's `result`
 * is checked by the SDK (`CallToolResult`), not against the tool's output schema (`callRequest.ts`
 * does that, bounded). A request an HTTP server could not be reached for marks the connection lost.
 */
const clientCalls = (
  client: Client,
  lost: ((reason: string) => void) | undefined,
  reauthorize: ((error: unknown) => Promise<boolean>) | undefined
): ToolCalls => {
  const pending = new Map<string, AbortController>()
  let next = 0
  // progress asked for with tokens of ours, not the SDK's `onprogress` (directCalls.ts says why)
  const progressRoutes = makeProgressRoutes()
  client.setNotificationHandler("notifications/progress", (notification) => progressRoutes.hear(notification.params))
  return {
    call: (params, timeoutMs, answer, headers, progress) => {
      const id = `ets-${++next}`
      const controller = new AbortController()
      pending.set(id, controller)
      // headers: SEP-2243's Mcp-Param-* (paramHeaders.ts), on the request's own POST
      const options = { timeout: timeoutMs, signal: controller.signal, ...(headers === undefined ? {} : { headers }) }
      const sent = progressRoutes.ask(id, params, progress)
      const send = () => client.request({ method: "tools/call", params: { ...sent } }, options)
      // a call the server refused for authorization (a refused refresh, a step-up): authorized again, sent again
      sendAuthorized(send, reauthorize, controller.signal).then(
        (result) => {
          progressRoutes.forget(id)
          if (pending.delete(id)) answer({ ok: true, result })
        },
        (error: unknown) => {
          progressRoutes.forget(id)
          if (!pending.delete(id)) return
          if (lost !== undefined && connectionLost(error)) lost(errorText(error))
          answer({ ok: false, error })
        }
      )
      return id
    },
    cancel: (id, reason) => {
      const controller = pending.get(String(id))
      if (controller === undefined) return
      pending.delete(String(id))
      progressRoutes.forget(String(id))
      controller.abort(reason)
    }
  }
}

/**
 * The pages of the server's `tools/list`, all within `timeoutMs` (each page gets what is
 * left of it): at most `MAX_TOOLS_PER_SERVER` tools from at most `MAX_TOOL_PAGES` pages, so a
 * server that pages without end cannot hold a start or a refresh. Fails with the SDK's error
 * (a page not answered in time: its request timeout).
 *
 * Each page is a plain `tools/list` request, not the SDK client's `listTools`: that one also
 * compiles every tool's `outputSchema` with the SDK's own ajv, unbudgeted and all at once (a
 * schema of 2,000 properties: 0.66 s of blocked event loop). The bridge screens and compiles
 * the schemas it takes itself (`listingLimits.ts`).
 *
 * @internal
 */
export const listAllTools = async (client: Client, timeoutMs: number, signal: AbortSignal): Promise<Array<McpTool>> => {
  const deadline = Date.now() + timeoutMs
  const tools: Array<McpTool> = []
  let cursor: string | undefined
  let pages = 0
  do {
    const left = Math.max(1, deadline - Date.now())
    const params = cursor === undefined ? {} : { cursor }
    const page: ListToolsResult = await client.request({ method: "tools/list", params }, { timeout: left, signal })
    tools.push(...page.tools)
    cursor = page.nextCursor
    pages += 1
  } while (cursor !== undefined && tools.length < MAX_TOOLS_PER_SERVER && pages < MAX_TOOL_PAGES)
  return tools.slice(0, MAX_TOOLS_PER_SERVER)
}

/**
 * Whether a request that failed may be sent again: once the provider stepped up the scope a
 * 403 `insufficient_scope` asked for. (A 401 is refreshed or authorized inside the transport,
 * one flow at a time for all the server's requests: `oauthProvider.ts`.)
 */
const reauthorizer = (provider: BridgeOAuthProvider) => (error: unknown): Promise<boolean> => provider.reauthorize(error)

/** Most authorizations one request may go through before it fails. */
const MAX_REAUTHORIZATIONS = 3

/** `send`, sent again after each authorization `reauthorize` completes (see `reauthorizer`). */
const sendAuthorized = async <A>(
  send: () => Promise<A>,
  reauthorize: ((error: unknown) => Promise<boolean>) | undefined,
  signal?: AbortSignal
): Promise<A> => {
  for (let attempt = 0;; attempt++) {
    try {
      return await send()
    } catch (error) {
      if (reauthorize === undefined || attempt >= MAX_REAUTHORIZATIONS || signal?.aborted === true || !(await reauthorize(error))) {
        throw error
      }
    }
  }
}

/**
 * Starts the server in the current scope, initializes it and lists its tools. The scope
 * owns the process: closing it ends the server, also after a failure here.
 * `onToolsChanged` runs on each `notifications/tools/list_changed` from the server.
 *
 * @internal
 */
export const connect = (
  server: string,
  config: McpServerConfig,
  options: ConnectOptions,
  onToolsChanged: () => void = () => {}
): Effect.Effect<Connection, McpConnectError, Scope.Scope> =>
  Effect.gen(function*() {
    const fail = (reason: string) => new McpConnectError({ server, reason })
    const http = isHttpServer(config)
    const limits = options.limits
    let provider: BridgeOAuthProvider | undefined
    if (http && config.oauth !== undefined) {
      if (options.oauth === undefined) {
        return yield* fail(`its entry has "oauth" and no McpOAuth service is provided (McpOAuth.layer)`)
      }
      provider = yield* makeOAuthProvider(server, { ...config, oauth: config.oauth }, options.oauth).pipe(
        Effect.mapError((error) => fail(errorText(error)))
      )
    }
    const authProvider = provider ?? options.authProvider?.(server)
    const scope = yield* Effect.scope
    let httpLink: HttpLink | undefined
    // an HTTP link in a scope of its own: one opened before an authorization is closed after it
    let linkScope: Scope.Closeable | undefined
    const openChild: Effect.Effect<ServerLink & { readonly transport: ServerProcessTransport; readonly stdioCalls?: ToolCalls }, McpConnectError> = http
      ? Effect.gen(function*() {
        linkScope = yield* Scope.fork(scope, "sequential")
        const link = yield* openHttpLink(config, { server, limits: limits ?? DEFAULT_SERVER_LIMITS, authProvider }).pipe(
          Scope.provide(linkScope),
          Effect.mapError((error) => fail(error.message))
        )
        httpLink = link
        return link
      })
      : startServerProcess(config, { ...options, server }).pipe(
        Effect.map((process) => ({ ...process, stdioCalls: process.calls })),
        Effect.mapError((error) => fail(error.message)),
        Scope.provide(scope)
      )
    let child = yield* openChild
    const timeout = Duration.toMillis(
      config.initTimeoutMs === undefined ? options.initTimeout : Duration.millis(config.initTimeoutMs)
    )
    const mode = config.protocol ?? (http ? "auto" : "legacy")
    const context = yield* Effect.context<never>()
    let open = true
    // a fiber per error only when debug lines are logged: a server can make the SDK report thousands a second
    const debugLogged = LogLevel.isLessThanOrEqualTo(Context.get(context, References.MinimumLogLevel), "Debug")
    // the server's questions, when the application answers them; withdrawn when the connection's scope closes
    const desk = options.elicitation === undefined ? undefined : makeElicitationDesk(server, options.elicitation, context)
    if (desk !== undefined) yield* Effect.addFinalizer(() => Effect.sync(desk.close))
    const makeClient = () => {
      const clientOptions = {
        capabilities: desk === undefined ? {} : ELICITATION_CAPABILITIES,
        ...(desk === undefined ? {} : { inputRequired: { maxRounds: MAX_INPUT_ROUNDS } }),
        versionNegotiation: negotiation(mode, http, timeout),
        // on a 2026-07-28 connection, changes come over `subscriptions/listen`, opened by the SDK for these
        listChanged: { tools: { autoRefresh: false, onChanged: () => onToolsChanged() } }
      }
      // with a desk, the server's questions go to it (`elicitation.ts`)
      const made = desk === undefined ? new Client(CLIENT_INFO, clientOptions) : desk.client(CLIENT_INFO, clientOptions)
      made.onclose = () => {
        open = false
      }
      made.onerror = (error) => {
        if (debugLogged) Effect.runForkWith(context)(Effect.logDebug(`MCP server "${server}": ${error.message}`))
      }
      // taken whether or not the server declared `tools.listChanged`: a refresh costs one listing
      made.setNotificationHandler("notifications/tools/list_changed", () => onToolsChanged())
      return made
    }
    let client = makeClient()
    const request = <A>(what: string, run: (signal: AbortSignal) => Promise<A>) =>
      Effect.tryPromise({ try: run, catch: errorText }).pipe(
        Effect.catch((reason) =>
          Effect.flatMap(withProcessState(child, `${what}: ${reason}`), (text) => Effect.fail(fail(text)))
        )
      )
    const handshake = mode === "legacy" ? "initialize failed" : "connecting failed"
    const connectOnce = (signal: AbortSignal) => client.connect(child.transport, { timeout, signal })
    const reauthorize = provider === undefined ? undefined : reauthorizer(provider)
    if (reauthorize !== undefined) {
      // the first connection of a server that wants an authorization fails with it asked for:
      // the code is exchanged, and the bridge connects again with the token
      const first = yield* Effect.exit(Effect.tryPromise({ try: connectOnce, catch: (error) => error }))
      if (Exit.isFailure(first)) {
        const error = Exit.findErrorOption(first)
        const authorized = error._tag === "Some"
          ? yield* Effect.tryPromise({ try: () => reauthorize(error.value), catch: errorText }).pipe(
            Effect.mapError((reason) => fail(`authorization failed: ${reason}`))
          )
          : false
        if (!authorized) {
          const reason = error._tag === "Some" ? errorText(error.value) : "interrupted"
          return yield* Effect.flatMap(withProcessState(child, `${handshake}: ${reason}`), (text) => Effect.fail(fail(text)))
        }
        if (linkScope !== undefined) yield* Scope.close(linkScope, Exit.void)
        child = yield* openChild
        client = makeClient()
        yield* request(handshake, connectOnce)
      }
    } else {
      yield* request(handshake, connectOnce)
    }
    const tools = yield* request("tools/list failed", (signal) => sendAuthorized(() => listAllTools(client, timeout, signal), reauthorize, signal))
    const baseCalls = child.stdioCalls !== undefined && client.getProtocolEra() !== "modern"
      ? child.stdioCalls
      : clientCalls(client, httpLink?.lost, reauthorize)
    // a question belongs to the calls in flight when it comes (withdrawn when they end)
    const calls = desk === undefined ? baseCalls : desk.track(baseCalls)
    const protocolVersion = client.getNegotiatedProtocolVersion()
    return { client, process: child, calls, protocolVersion, tools, isOpen: () => open }
  })
