/**
 * One bridged server over its life: the current connection, the calls made through it, and
 * the restart after a crash.
 *
 * A server that dies: the calls in flight end with an error naming how it ended (exit code,
 * end of stderr). An HTTP server "dies" when a request cannot reach it (it is down, or it forgot
 * our session): its connection is closed, and its next call connects again (a restart, counted
 * and backed off the same way). The next call restarts it, once per crash, after a back-off that doubles
 * with each crash (at most `maxRestarts` restarts in the bridge's life); if the restart
 * fails, or the restarts are used up, the server is down and its calls fail at once. Calls
 * to other servers are not affected: each server has its own handle.
 *
 * A server the bridge stopped for hostility (past the queue or push bounds, `serverLimits.ts`)
 * is not restarted: a restart would only let it flood the host again. It is down, and its calls
 * fail at once naming why, until the bridge is built again from the configuration.
 *
 * The server's tools are listed again on each `notifications/tools/list_changed` (several
 * notifications in a row make one listing, and listings are at least 200 ms apart) and by
 * each restart; every such listing goes to
 * the listener (`listen`) before any call can reach the process it came from.
 *
 * Effect 4: `Scope.fork(parent, "sequential")` and `Scope.provide` (Effect 3's
 * `ExecutionStrategy` and `Scope.extend`), `Semaphore.make`, `Queue.offerUnsafe`.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import { type CallResult, type CallRoute, callRoutes, type McpCallError, sendCall } from "./callRequest.js"
import { isHttpServer, type McpServerConfig } from "./config.js"
import { errorText, listAllTools } from "./clientRequests.js"
import { type Connection, connect, type ConnectOptions, McpConnectError, type McpTool, withProcessState } from "./connection.js"
import type { McpOutputMismatch } from "./outputCheck.js"
import { type ParamHeader, screenParamHeaders } from "./paramHeaders.js"
import { liveClock } from "./process.js"

/**
 * Shortest time between two listings taken on `list_changed`: the notifications of a server
 * that floods them (one a millisecond made 380 listings in 1.5 s) are read as one listing
 * an interval. The first notification is taken at once.
 */
const MIN_REFRESH_INTERVAL = Duration.millis(200)

/**
 * Where a server stands.
 *
 * @since 0.1.0
 * @category models
 */
export interface ServerStatus {
  readonly name: string
  /** `crashed`: it stopped, and the next call restarts it; `down`: it will not be restarted. */
  readonly state: "up" | "crashed" | "down"
  /** The current process (the last one when down); 0 for an HTTP server. */
  readonly pid: number
  readonly restarts: number
  /** Why it is down. */
  readonly reason: string | undefined
  /** The protocol version spoken on the current connection (`2025-11-25`, `2026-07-28`, ...). */
  readonly protocol?: string | undefined
}

/**
 * Takes each later listing of a server's tools.
 *
 * @internal
 */
export type ToolsListener = (tools: ReadonlyArray<McpTool>) => Effect.Effect<void>

/**
 * A bridged server.
 *
 * @internal
 */
export interface ServerHandle {
  readonly name: string
  readonly config: McpServerConfig
  /** The tools listed when the server first came up (the first proxies are made from these). */
  readonly tools: ReadonlyArray<McpTool>
  /**
   * Calls a tool. `admit` runs once the connection is up (after a restart, once its listing
   * went to the listener), just before the request is sent: an error it returns stops the
   * call. Interrupting the call tells the server (`notifications/cancelled`), and so does
   * `timeoutMs` passing without an answer (an `McpCallError` with `timedOut`). The deadline
   * is the request's own timer, on the real clock. An answer that does not pass the tool's
   * output schema (as the last listing has it) is an `McpOutputMismatch`.
   */
  readonly call: <E>(
    tool: string,
    args: Readonly<Record<string, unknown>>,
    timeoutMs: number | undefined,
    admit: () => E | undefined
  ) => Effect.Effect<CallResult, McpCallError | McpOutputMismatch | McpConnectError | E>
  readonly status: Effect.Effect<ServerStatus>
  /**
   * Hands every later listing (after `list_changed`, after a restart) to `listener`, from now
   * on; notifications that came before are not lost. Call it once.
   */
  readonly listen: (listener: ToolsListener) => Effect.Effect<void>
}

/**
 * How handles connect and restart.
 *
 * @internal
 */
export interface HandleOptions extends ConnectOptions {
  readonly restartBackoff: Duration.Duration
  readonly maxRestarts: number
}

/** Why a server stopped for hostility stays down (`undefined` for any other end). */
const keptDown = (connection: Connection): string | undefined => {
  const why = connection.process.stoppedFor()
  return why !== undefined && connection.process.hostile()
    ? `${why}; it is not restarted (a server stopped for flooding the bridge stays down until the bridge is built again from its configuration)`
    : undefined
}

type State =
  | { readonly _tag: "Up"; readonly connection: Connection; readonly scope: Scope.Closeable }
  | { readonly _tag: "Down"; readonly reason: string; readonly pid: number }

/**
 * Connects a server in a scope of its own under `parent` (closing `parent` ends it, and
 * every process a restart started). Fails when the first connection fails; the process is
 * ended then.
 *
 * @internal
 */
export const openServer = (
  name: string,
  config: McpServerConfig,
  options: HandleOptions,
  parent: Scope.Scope
): Effect.Effect<ServerHandle, McpConnectError> =>
  Effect.gen(function*() {
    // a pending refresh; a second notification before it is taken adds nothing
    const changed = yield* Queue.sliding<void>(1)
    const onToolsChanged = () => {
      Queue.offerUnsafe(changed, undefined)
    }
    let listener: ToolsListener | undefined
    const listTimeoutMs = config.initTimeoutMs ?? Duration.toMillis(options.initTimeout)

    const connectIn = Effect.gen(function*() {
      const scope = yield* Scope.fork(parent, "sequential")
      return yield* connect(name, config, options, onToolsChanged).pipe(
        Scope.provide(scope),
        Effect.map((connection) => ({ _tag: "Up" as const, connection, scope })),
        Effect.onError((cause) => Scope.close(scope, Exit.failCause(cause)))
      )
    })
    const where = (connection: Connection) => isHttpServer(config) ? config.url : `pid ${connection.process.pid}`
    const watch = (state: State & { _tag: "Up" }) =>
      state.connection.process.exited.pipe(
        Effect.flatMap((how) =>
          Effect.logWarning(
            `MCP server "${name}" (${where(state.connection)}) ${how}` +
              `${state.connection.process.stderrTail() === "" ? "" : `; stderr: ${state.connection.process.stderrTail()}`}` +
              (state.connection.process.hostile() ? "; it is not restarted" : "; its next call restarts it")
          )
        ),
        Effect.forkIn(state.scope),
        Effect.asVoid
      )

    /**
     * A listing as the bridge takes it: on a 2026-07-28 HTTP connection, a tool with an invalid
     * `x-mcp-header` declaration is left out (SEP-2243), and the others' declarations kept for
     * their calls' `Mcp-Param-*` headers.
     */
    const listingOf = (
      connection: Connection,
      tools: ReadonlyArray<McpTool>
    ): Effect.Effect<{ readonly tools: ReadonlyArray<McpTool>; readonly declared: ReadonlyMap<string, ReadonlyArray<ParamHeader>> }> =>
      isHttpServer(config) && connection.client.getProtocolEra() === "modern"
        ? screenParamHeaders(name, tools)
        : Effect.succeed({ tools, declared: new Map() })

    const first = yield* connectIn
    yield* watch(first)
    let state: State = first
    const firstListing = yield* listingOf(first.connection, first.connection.tools)
    // how each tool is called (its output schema, say): from the last listing, whether or not it is held
    let routes: ReadonlyMap<string, CallRoute> = callRoutes(firstListing.tools, firstListing.declared)
    let restarts = 0
    const lock = yield* Semaphore.make(1)

    const restart = (up: State & { _tag: "Up" }): Effect.Effect<State & { _tag: "Up" }, McpConnectError> =>
      Effect.gen(function*() {
        const pid = up.connection.process.pid
        const how = yield* withProcessState(up.connection.process, "it stopped")
        yield* Scope.close(up.scope, Exit.void)
        const kept = keptDown(up.connection)
        if (kept !== undefined) {
          state = { _tag: "Down", reason: kept, pid }
          return yield* new McpConnectError({ server: name, reason: kept })
        }
        if (restarts >= options.maxRestarts) {
          state = { _tag: "Down", reason: `${how}; it was restarted ${restarts} times already`, pid }
          return yield* new McpConnectError({ server: name, reason: state.reason })
        }
        restarts += 1
        const delay = Duration.times(options.restartBackoff, 2 ** (restarts - 1))
        yield* Effect.logInfo(`Restarting MCP server "${name}" in ${Duration.format(delay)} (${how})`)
        yield* Effect.sleep(delay).pipe(Effect.provideService(Clock.Clock, liveClock))
        // the call that restarted it fails with the reason every later call gets
        const next = yield* connectIn.pipe(
          Effect.catch((error) =>
            Effect.suspend(() => {
              const reason = `the restart failed: ${error.reason}`
              state = { _tag: "Down", reason, pid }
              return Effect.fail(new McpConnectError({ server: name, reason }))
            })
          )
        )
        yield* watch(next)
        yield* Effect.logInfo(`MCP server "${name}" restarted (${where(next.connection)})`)
        const listing = yield* listingOf(next.connection, next.connection.tools)
        // what the new process lists is checked before any call can reach it
        yield* Effect.uninterruptible(Effect.andThen(
          listener === undefined ? Effect.void : listener(listing.tools),
          Effect.sync(() => {
            state = next
            routes = callRoutes(listing.tools, listing.declared)
          })
        ))
        return next
      })

    const current: Effect.Effect<Connection, McpConnectError> = Effect.suspend(() => {
      if (state._tag === "Up" && state.connection.isOpen()) return Effect.succeed(state.connection)
      return lock.withPermits(1)(Effect.suspend(() => {
        const now = state
        if (now._tag === "Down") return Effect.fail(new McpConnectError({ server: name, reason: now.reason }))
        if (now.connection.isOpen()) return Effect.succeed(now.connection)
        return Effect.map(restart(now), (up) => up.connection)
      }))
    })

    const call: ServerHandle["call"] = (tool, args, timeoutMs, admit) =>
      Effect.suspend(() => {
        const now = state
        return now._tag === "Up" && now.connection.isOpen()
          ? sendCall({ server: name, connection: now.connection, route: routes.get(tool), tool, args, timeoutMs, admit, onHeaderMismatch: onToolsChanged })
          : Effect.flatMap(current, (connection) =>
            sendCall({ server: name, connection, route: routes.get(tool), tool, args, timeoutMs, admit, onHeaderMismatch: onToolsChanged }))
      })

    /** Lists the current connection's tools and hands them on, unless a restart came in between. */
    const refresh = Effect.suspend(() => {
      const now = state
      if (now._tag !== "Up" || !now.connection.isOpen()) return Effect.void
      return Effect.tryPromise({
        try: (signal) => listAllTools(now.connection.client, listTimeoutMs, signal),
        catch: errorText
      }).pipe(
        Effect.flatMap((tools) => listingOf(now.connection, tools)),
        Effect.tap((listing) =>
          Effect.andThen(
            Effect.sync(() => {
              if (state === now) routes = callRoutes(listing.tools, listing.declared)
            }),
            Effect.logDebug(`MCP server "${name}" changed its tools; it lists ${listing.tools.length} now`)
          )
        ),
        Effect.flatMap((listing) =>
          lock.withPermits(1)(Effect.suspend(() => (state === now && listener !== undefined ? listener(listing.tools) : Effect.void)))
        ),
        Effect.catch((reason) =>
          Effect.logWarning(`MCP server "${name}": listing its changed tools failed (${reason}); its proxies stay as they were`)
        )
      )
    })

    const listen: ServerHandle["listen"] = (next) =>
      Effect.suspend(() => {
        listener = next
        return Queue.take(changed).pipe(
          Effect.andThen(refresh),
          Effect.andThen(Effect.sleep(MIN_REFRESH_INTERVAL).pipe(Effect.provideService(Clock.Clock, liveClock))),
          Effect.forever,
          Effect.forkIn(parent),
          Effect.asVoid
        )
      })

    const status = Effect.sync((): ServerStatus => {
      const now = state
      if (now._tag === "Down") return { name, state: "down", pid: now.pid, restarts, reason: now.reason }
      const protocol = now.connection.protocolVersion
      if (now.connection.isOpen()) return { name, state: "up", pid: now.connection.process.pid, restarts, reason: undefined, protocol }
      const kept = keptDown(now.connection)
      const standing = kept === undefined ? "crashed" : "down"
      return { name, state: standing, pid: now.connection.process.pid, restarts, reason: kept, protocol }
    })

    return { name, config, tools: firstListing.tools, call, status, listen }
  })
