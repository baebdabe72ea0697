/**
 * One `tools/call` request to a bridged server over its life: sent through the connection's
 * own call table or the SDK's `callTool`, its answer or failure, and its cancellation on the
 * server when the caller is interrupted. `serverHandle.ts` picks the connection; this sends.
 *
 * @since 0.1.0
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { ErrorCode, McpError, type RequestId } from "@modelcontextprotocol/sdk/types.js"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { type Connection, errorText, type McpTool, withProcessState } from "./connection.js"

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
export const needingCallTool = (tools: ReadonlyArray<McpTool>): ReadonlySet<string> =>
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

/** What one request is: to which server and tool, with what, through which connection. */
export interface CallRequest<E> {
  readonly server: string
  readonly connection: Connection
  /** The tools of the connection's last listing that go through the SDK's `callTool`. */
  readonly viaCallTool: ReadonlySet<string>
  readonly tool: string
  readonly args: Readonly<Record<string, unknown>>
  readonly timeoutMs: number | undefined
  /** Runs just before the request is sent: an error it returns stops the call. */
  readonly admit: () => E | undefined
}

/** A request that failed: a timeout of its own, a closed connection, or the server's error. */
const failed = (
  server: string,
  connection: Connection,
  tool: string,
  error: unknown,
  timeoutMs: number
): Effect.Effect<never, McpCallError> => {
  // the request's own timer (notifications/cancelled was sent), not an error answer of the server
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout && ownTimeout(error.data, timeoutMs)) {
    return Effect.fail(new McpCallError({ server, tool, reason: `no answer within ${timeoutMs} ms`, timedOut: true }))
  }
  const closed = error instanceof McpError && error.code === ErrorCode.ConnectionClosed
  const reason = closed
    ? withProcessState(connection.process, "the server closed the connection during the call")
    : Effect.succeed(errorText(error))
  return Effect.flatMap(reason, (text) => Effect.fail(new McpCallError({ server, tool, reason: text })))
}

/** Tells the server to stop a request the SDK sent (best-effort: the caller is gone). */
const cancelOnServer = (server: string, connection: Connection, requestId: RequestId) =>
  Effect.tryPromise(() =>
    connection.client.notification({
      method: "notifications/cancelled",
      params: { requestId, reason: INTERRUPTED }
    })
  ).pipe(Effect.catchAll((error) => Effect.logDebug(`MCP server "${server}": cancelling a call failed: ${String(error.error)}`)))

/**
 * Sends one request, in one `Effect.async`: no `AbortSignal` (the request's id is enough to
 * cancel it), and no step more than the call needs. A tool without an `outputSchema` is
 * called through the connection's own call table (`directCalls.ts`), at about half the SDK
 * client's cost a call; the others through the SDK's `callTool`, which checks their
 * structured content. The deadline is the request's own timer, on the real clock; it also
 * cancels the request on the server. An interruption cancels it through `onInterrupt`, not a
 * canceler returned by the `async`: `Effect.async` wraps a canceler in more frames than
 * `onInterrupt` alone, and their garbage cost about 6 µs of CPU a call (measured on a call
 * that waits for one `setImmediate`: 16.6 µs with a canceler, 10.4 with `onInterrupt`, 6.6
 * with neither).
 */
export const sendCall = <E>(request: CallRequest<E>): Effect.Effect<CallResult, McpCallError | E> => {
  const { admit, connection, server, tool } = request
  // the request to cancel on an interruption: forgotten once the SDK's `callTool` answered
  // (the call table forgets its own answered calls)
  let viaSdk = false
  let requestId: RequestId | undefined
  const sent = Effect.async<CallResult, McpCallError | E>((resume) => {
    const refused = admit()
    // refused: nothing was sent, so there is no request id to cancel
    if (refused !== undefined) return resume(Effect.fail(refused))
    const params = { name: tool, arguments: { ...request.args } }
    const timeout = request.timeoutMs ?? MAX_TIMER_MS
    if (!request.viaCallTool.has(tool)) {
      requestId = connection.process.calls.call(
        params,
        timeout,
        (answer) => resume(answer.ok ? Effect.succeed(answer.result) : failed(server, connection, tool, answer.error, timeout))
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
        resume(failed(server, connection, tool, error, timeout))
      }
    )
    requestId = connection.process.requestIdOf(params)
  })
  return Effect.onInterrupt(sent, () => {
    if (requestId === undefined) return Effect.void
    const id = requestId
    return viaSdk
      ? cancelOnServer(server, connection, id)
      : Effect.sync(() => connection.process.calls.cancel(id, INTERRUPTED))
  })
}
