/**
 * One bridged server over its life: the current connection, the calls made through it, and
 * the restart after a crash.
 *
 * A server that dies: the calls in flight end with an error naming how it ended (exit code,
 * end of stderr). The next call restarts it, once per crash, after a back-off that doubles
 * with each crash (at most `maxRestarts` restarts in the bridge's life); if the restart
 * fails, or the restarts are used up, the server is down and its calls fail at once. Calls
 * to other servers are not affected: each server has its own handle.
 *
 * The server's tools are listed again on each `notifications/tools/list_changed` (several
 * notifications in a row make one listing) and by each restart; every such listing goes to
 * the listener (`listen`) before any call can reach the process it came from.
 *
 * @since 0.1.0
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { ErrorCode, McpError, type RequestId } from "@modelcontextprotocol/sdk/types.js"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import type { McpServerConfig } from "./config.js"
import {
  type Connection,
  connect,
  type ConnectOptions,
  errorText,
  listAllTools,
  McpConnectError,
  type McpTool,
  withProcessState
} from "./connection.js"
import { liveClock } from "./process.js"

/** Why an interrupted call is cancelled on the server. */
const INTERRUPTED = "the call was interrupted"

/** The longest timer Node can set (ms): a call without a timeout of its own. */
const MAX_TIMER_MS = 2 ** 31 - 1

/** The `data` of the SDK's own request timeout, for a call with `timeoutMs`. */
const ownTimeout = (data: unknown, timeoutMs: number): boolean =>
  typeof data === "object" && data !== null && Reflect.get(data, "timeout") === timeoutMs

/**
 * The tools of a listing that need the SDK's `callTool`: those with an `outputSchema` (it
 * checks their structured content) or that require task-based execution (it refuses them).
 * Every other tool's calls go through the connection's own call table (`directCalls.ts`).
 */
const needingCallTool = (tools: ReadonlyArray<McpTool>): ReadonlySet<string> =>
  new Set(tools.filter((t) => t.outputSchema !== undefined || t.execution?.taskSupport === "required").map((t) => t.name))

/** What `tools/call` answered. */
export type CallResult = Awaited<ReturnType<Client["callTool"]>>

/** A call to a server's tool failed (not an `isError` answer: the call itself). */
export class McpCallError extends Data.TaggedError("McpCallError")<{
  readonly server: string
  readonly tool: string
  readonly reason: string
  /** The call's `timeoutMs` passed without an answer (the server was told to cancel it). */
  readonly timedOut?: boolean
}> {
  override get message(): string {
    return `MCP server "${this.server}", tool "${this.tool}": ${this.reason}`
  }
}

/** Where a server stands. */
export interface ServerStatus {
  readonly name: string
  /** `crashed`: it stopped, and the next call restarts it; `down`: it will not be restarted. */
  readonly state: "up" | "crashed" | "down"
  /** The current process (the last one when down). */
  readonly pid: number
  readonly restarts: number
  /** Why it is down. */
  readonly reason: string | undefined
}

/** Takes each later listing of a server's tools. */
export type ToolsListener = (tools: ReadonlyArray<McpTool>) => Effect.Effect<void>

/** A bridged server. */
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
   * is the request's own timer, on the real clock.
   */
  readonly call: <E>(
    tool: string,
    args: Readonly<Record<string, unknown>>,
    timeoutMs: number | undefined,
    admit: () => E | undefined
  ) => Effect.Effect<CallResult, McpCallError | McpConnectError | E>
  readonly status: Effect.Effect<ServerStatus>
  /**
   * Hands every later listing (after `list_changed`, after a restart) to `listener`, from now
   * on; notifications that came before are not lost. Call it once.
   */
  readonly listen: (listener: ToolsListener) => Effect.Effect<void>
}

/** How handles connect and restart. */
export interface HandleOptions extends ConnectOptions {
  readonly restartBackoff: Duration.Duration
  readonly maxRestarts: number
}

type State =
  | { readonly _tag: "Up"; readonly connection: Connection; readonly scope: Scope.CloseableScope }
  | { readonly _tag: "Down"; readonly reason: string; readonly pid: number }

/**
 * Connects a server in a scope of its own under `parent` (closing `parent` ends it, and
 * every process a restart started). Fails when the first connection fails; the process is
 * ended then.
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
      Queue.unsafeOffer(changed, undefined)
    }
    let listener: ToolsListener | undefined
    const listTimeoutMs = config.initTimeoutMs ?? Duration.toMillis(options.initTimeout)

    const connectIn = Effect.gen(function*() {
      const scope = yield* Scope.fork(parent, ExecutionStrategy.sequential)
      return yield* connect(name, config, options, onToolsChanged).pipe(
        Scope.extend(scope),
        Effect.map((connection) => ({ _tag: "Up" as const, connection, scope })),
        Effect.onError((cause) => Scope.close(scope, Exit.failCause(cause)))
      )
    })
    const watch = (state: State & { _tag: "Up" }) =>
      state.connection.process.exited.pipe(
        Effect.flatMap((how) =>
          Effect.logWarning(
            `MCP server "${name}" (pid ${state.connection.process.pid}) ${how}` +
              `${state.connection.process.stderrTail() === "" ? "" : `; stderr: ${state.connection.process.stderrTail()}`}` +
              "; its next call restarts it"
          )
        ),
        Effect.forkIn(state.scope),
        Effect.asVoid
      )

    const first = yield* connectIn
    yield* watch(first)
    let state: State = first
    // as the client's own cache of output schemas: from the last listing
    let viaCallTool = needingCallTool(first.connection.tools)
    let restarts = 0
    const lock = yield* Effect.makeSemaphore(1)

    const restart = (up: State & { _tag: "Up" }): Effect.Effect<State & { _tag: "Up" }, McpConnectError> =>
      Effect.gen(function*() {
        const pid = up.connection.process.pid
        const how = yield* withProcessState(up.connection.process, "it stopped")
        yield* Scope.close(up.scope, Exit.void)
        if (restarts >= options.maxRestarts) {
          state = { _tag: "Down", reason: `${how}; it was restarted ${restarts} times already`, pid }
          return yield* new McpConnectError({ server: name, reason: state.reason })
        }
        restarts += 1
        const delay = Duration.times(options.restartBackoff, 2 ** (restarts - 1))
        yield* Effect.logInfo(`Restarting MCP server "${name}" in ${Duration.format(delay)} (${how})`)
        yield* Effect.sleep(delay).pipe(Effect.withClock(liveClock))
        // the call that restarted it fails with the reason every later call gets
        const next = yield* connectIn.pipe(
          Effect.catchAll((error) =>
            Effect.suspend(() => {
              const reason = `the restart failed: ${error.reason}`
              state = { _tag: "Down", reason, pid }
              return Effect.fail(new McpConnectError({ server: name, reason }))
            })
          )
        )
        yield* watch(next)
        yield* Effect.logInfo(`MCP server "${name}" restarted (pid ${next.connection.process.pid})`)
        // what the new process lists is checked before any call can reach it
        yield* Effect.uninterruptible(Effect.zipRight(
          listener === undefined ? Effect.void : listener(next.connection.tools),
          Effect.sync(() => {
            state = next
            viaCallTool = needingCallTool(next.connection.tools)
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

    const failed = (
      connection: Connection,
      tool: string,
      error: unknown,
      timeoutMs: number
    ): Effect.Effect<never, McpCallError> => {
      // the SDK's own timer (it sent notifications/cancelled), not an error answer of the server
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout && ownTimeout(error.data, timeoutMs)) {
        return Effect.fail(new McpCallError({ server: name, tool, reason: `no answer within ${timeoutMs} ms`, timedOut: true }))
      }
      const closed = error instanceof McpError && error.code === ErrorCode.ConnectionClosed
      const reason = closed
        ? withProcessState(connection.process, "the server closed the connection during the call")
        : Effect.succeed(errorText(error))
      return Effect.flatMap(reason, (text) => Effect.fail(new McpCallError({ server: name, tool, reason: text })))
    }

    const cancel = (connection: Connection, requestId: RequestId) =>
      Effect.tryPromise(() =>
        connection.client.notification({
          method: "notifications/cancelled",
          params: { requestId, reason: INTERRUPTED }
        })
      ).pipe(Effect.catchAll((error) => Effect.logDebug(`MCP server "${name}": cancelling a call failed: ${String(error.error)}`)))

    /**
     * One request, in one `Effect.async`: no `AbortSignal` (the request's id is enough to
     * cancel it), and no step more than the call needs. A tool without an `outputSchema` is
     * called through the connection's own call table (`directCalls.ts`), at about half the
     * SDK client's cost a call; the others through the SDK's `callTool`, which checks their
     * structured content. An interruption cancels the request on the server through
     * `onInterrupt`, not a canceler returned by the `async`: `Effect.async` wraps a canceler in
     * more frames than `onInterrupt` alone, and their garbage cost about 6 µs of CPU a call
     * (measured on a call that waits for one `setImmediate`: 16.6 µs with a canceler, 10.4
     * with `onInterrupt`, 6.6 with neither).
     */
    const send = <E>(
      connection: Connection,
      tool: string,
      args: Readonly<Record<string, unknown>>,
      timeoutMs: number | undefined,
      admit: () => E | undefined
    ) => {
      // the request to cancel on an interruption: forgotten once the SDK's `callTool` answered
      // (the call table forgets its own answered calls)
      let viaSdk = false
      let requestId: RequestId | undefined
      const request = Effect.async<CallResult, McpCallError | E>((resume) => {
        const refused = admit()
        // refused: nothing was sent, so there is no request id to cancel
        if (refused !== undefined) return resume(Effect.fail(refused))
        const params = { name: tool, arguments: { ...args } }
        // the call's deadline: the request's own timer, which also cancels it on the server
        const timeout = timeoutMs ?? MAX_TIMER_MS
        if (!viaCallTool.has(tool)) {
          requestId = connection.process.calls.call(
            params,
            timeout,
            (answer) => resume(answer.ok ? Effect.succeed(answer.result) : failed(connection, tool, answer.error, timeout))
          )
          return
        }
        viaSdk = true
        connection.client.callTool(params, undefined, { timeout }).then(
          (result) => {
            requestId = undefined
            resume(Effect.succeed(result))
          },
          (error: unknown) => {
            requestId = undefined
            resume(failed(connection, tool, error, timeout))
          }
        )
        requestId = connection.process.requestIdOf(params)
      })
      return Effect.onInterrupt(request, () => {
        if (requestId === undefined) return Effect.void
        const id = requestId
        return viaSdk ? cancel(connection, id) : Effect.sync(() => connection.process.calls.cancel(id, INTERRUPTED))
      })
    }

    const call: ServerHandle["call"] = (tool, args, timeoutMs, admit) =>
      Effect.suspend(() => {
        const now = state
        return now._tag === "Up" && now.connection.isOpen()
          ? send(now.connection, tool, args, timeoutMs, admit)
          : Effect.flatMap(current, (connection) => send(connection, tool, args, timeoutMs, admit))
      })

    /** Lists the current connection's tools and hands them on, unless a restart came in between. */
    const refresh = Effect.suspend(() => {
      const now = state
      if (now._tag !== "Up" || !now.connection.isOpen()) return Effect.void
      return Effect.tryPromise({
        try: (signal) => listAllTools(now.connection.client, listTimeoutMs, signal),
        catch: errorText
      }).pipe(
        Effect.tap((tools) =>
          Effect.zipRight(
            Effect.sync(() => {
              if (state === now) viaCallTool = needingCallTool(tools)
            }),
            Effect.logDebug(`MCP server "${name}" changed its tools; it lists ${tools.length} now`)
          )
        ),
        Effect.flatMap((tools) =>
          lock.withPermits(1)(Effect.suspend(() => (state === now && listener !== undefined ? listener(tools) : Effect.void)))
        ),
        Effect.catchAll((reason) =>
          Effect.logWarning(`MCP server "${name}": listing its changed tools failed (${reason}); its proxies stay as they were`)
        )
      )
    })

    const listen: ServerHandle["listen"] = (next) =>
      Effect.suspend(() => {
        listener = next
        return Effect.forever(Effect.zipRight(Queue.take(changed), refresh)).pipe(Effect.forkIn(parent), Effect.asVoid)
      })

    const status = Effect.sync((): ServerStatus => {
      const now = state
      if (now._tag === "Down") return { name, state: "down", pid: now.pid, restarts, reason: now.reason }
      const standing = now.connection.isOpen() ? "up" : "crashed"
      return { name, state: standing, pid: now.connection.process.pid, restarts, reason: undefined }
    })

    return { name, config, tools: first.connection.tools, call, status, listen }
  })
