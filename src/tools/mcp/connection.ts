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
  type OAuthClientProvider,
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
import { clientCalls, errorText, listAllTools, reauthorizer, sendAuthorized } from "./clientRequests.js"
import type { ToolCalls } from "./directCalls.js"
import { ELICITATION_CAPABILITIES, type ElicitationOptions, MAX_INPUT_ROUNDS, makeElicitationDesk } from "./elicitation.js"
import { type HttpLink, openHttpLink, type ServerLink } from "./httpLink.js"
import { type BridgeOAuthProvider, makeOAuthProvider, type OAuthService } from "./oauthProvider.js"
import { liveClock, startServerProcess } from "./process.js"
import { DEFAULT_SERVER_LIMITS, type ServerLimits } from "./serverLimits.js"
import { VERSION } from "../../version.js"

export type { Tool as McpTool } from "@modelcontextprotocol/client"

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
