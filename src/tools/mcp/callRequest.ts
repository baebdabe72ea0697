/**
 * One `tools/call` request to a bridged server over its life: sent through the connection's
 * own call table, its answer (checked against the tool's output schema when it has one) or
 * failure, and its cancellation on the server when the caller is interrupted.
 * `serverHandle.ts` picks the connection; this sends.
 *
 * The SDK client's `callTool` is not used: it checks structured content with the SDK's own
 * ajv, unbounded (`outputCheck.ts`), and it knows a listing's tools only from its `listTools`,
 * which the bridge does not call (`connection.ts`). The request goes through the connection's
 * `calls`: the stdio call table on a 2025-era stdio connection, the SDK client's `request` on a
 * 2026-07-28 or HTTP one (the errors are SDK v2's either way).
 *
 * @since 0.1.0
 */
import { type CompatibilityCallToolResult, ProtocolError, type RequestId, SdkError, SdkErrorCode } from "@modelcontextprotocol/client"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type { JsonSchema } from "../../domain/ToolSpec.js"
import { type CallProgress, CurrentCallProgress, MAX_PROGRESS_MESSAGE_CHARS } from "../../services/CallProgress.js"
import { modelText } from "../shared/sanitize.js"
import { errorText } from "./clientRequests.js"
import { type Connection, type McpTool, withProcessState } from "./connection.js"
import type { CallProgressHandler } from "./directCalls.js"
import { prepareOutputCheck, yieldToEventLoop } from "./listingLimits.js"
import { knownOutputCheck, type McpOutputMismatch, type OutputCheck, outputMismatch } from "./outputCheck.js"
import { type ParamHeader, paramHeadersOf } from "./paramHeaders.js"

/** Why an interrupted call is cancelled on the server. */
const INTERRUPTED = "the call was interrupted"

/** The longest timer Node can set (ms): a call without a timeout of its own. */
const MAX_TIMER_MS = 2 ** 31 - 1

/** The `data` of a request timeout, for a call with `timeoutMs`. */
const ownTimeout = (data: unknown, timeoutMs: number): boolean =>
  typeof data === "object" && data !== null && Reflect.get(data, "timeout") === timeoutMs

/**
 * How the calls of a listed tool differ from a plain call: one that requires task-based
 * execution is refused (the bridge makes plain calls only, as the SDK's `callTool` refuses
 * them); one with an `outputSchema` has its answers checked against it; one with `x-mcp-header`
 * declarations, on a connection that mirrors them (`paramHeaders.ts`), has its arguments sent
 * in `Mcp-Param-*` headers too.
 *
 * @internal
 */
export type CallRoute =
  | { readonly _tag: "TasksRequired" }
  | { readonly _tag: "OutputSchema"; readonly schema: JsonSchema; readonly headers?: ReadonlyArray<ParamHeader> }
  | { readonly _tag: "ParamHeaders"; readonly headers: ReadonlyArray<ParamHeader> }

/**
 * The routes of a listing's tools that are not plain, by name. `declared`: the header
 * declarations of the tools that have any, when the connection mirrors them
 * (`screenParamHeaders`).
 *
 * @internal
 */
export const callRoutes = (
  tools: ReadonlyArray<McpTool>,
  declared: ReadonlyMap<string, ReadonlyArray<ParamHeader>> = new Map()
): ReadonlyMap<string, CallRoute> => {
  const routes = new Map<string, CallRoute>()
  for (const tool of tools) {
    const headers = declared.get(tool.name)
    if (tool.execution?.taskSupport === "required") routes.set(tool.name, { _tag: "TasksRequired" })
    else if (tool.outputSchema !== undefined) {
      routes.set(tool.name, { _tag: "OutputSchema", schema: tool.outputSchema, ...(headers === undefined ? {} : { headers }) })
    } else if (headers !== undefined) routes.set(tool.name, { _tag: "ParamHeaders", headers })
  }
  return routes
}

/**
 * What `tools/call` answered.
 *
 * @internal
 */
export type CallResult = CompatibilityCallToolResult

/**
 * A call to a server's tool failed (not an `isError` answer: the call itself).
 *
 * @since 0.1.0
 * @category errors
 */
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

/**
 * What one request is: to which server and tool, with what, through which connection.
 *
 * @internal
 */
export interface CallRequest<E> {
  readonly server: string
  readonly connection: Connection
  /** The tool's route in the connection's last listing (`undefined`: a plain call). */
  readonly route: CallRoute | undefined
  readonly tool: string
  readonly args: Readonly<Record<string, unknown>>
  readonly timeoutMs: number | undefined
  /** Runs just before the request is sent: an error it returns stops the call. */
  readonly admit: () => E | undefined
  /**
   * Runs when the server refused the call's `Mcp-Param-*` headers (`-32020` HeaderMismatch,
   * SEP-2243): the tool's declarations may have changed, so its server's tools are listed again.
   */
  readonly onHeaderMismatch?: (() => void) | undefined
}

/** SEP-2243's HeaderMismatch error code (the SDK's constant is not exported). */
const HEADER_MISMATCH = -32020

/** A request that failed: a timeout of its own, a closed connection, or the server's error. */
const failed = (
  server: string,
  connection: Connection,
  tool: string,
  error: unknown,
  timeoutMs: number,
  onHeaderMismatch?: (() => void) | undefined
): Effect.Effect<never, McpCallError> => {
  // not sent again here: a listing that changed the tool's definition is held like every other change
  if (error instanceof ProtocolError && error.code === HEADER_MISMATCH && onHeaderMismatch !== undefined) {
    onHeaderMismatch()
    const reason = `${errorText(error)} (the server refused the call's Mcp-Param-* headers; its tools are listed again)`
    return Effect.fail(new McpCallError({ server, tool, reason }))
  }
  // the request's own timer (notifications/cancelled was sent), not an error answer of the server
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout && ownTimeout(error.data, timeoutMs)) {
    return Effect.fail(new McpCallError({ server, tool, reason: `no answer within ${timeoutMs} ms`, timedOut: true }))
  }
  const closed = error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed
  const reason = closed
    ? withProcessState(connection.process, "the server closed the connection during the call")
    : Effect.succeed(errorText(error))
  return Effect.flatMap(reason, (text) => Effect.fail(new McpCallError({ server, tool, reason: text })))
}

/**
 * An answer, once it passed the tool's output check (when it has one). The check runs in a
 * turn of its own: the answer's line was parsed in this one, and the two blocks (each bounded)
 * would otherwise add up.
 */
const accepted = (
  server: string,
  tool: string,
  check: OutputCheck | undefined,
  result: CallResult
): Effect.Effect<CallResult, McpOutputMismatch> => {
  if (check === undefined || Result.isFailure(check)) return Effect.succeed(result)
  const compiled = check.success
  return Effect.andThen(
    yieldToEventLoop,
    Effect.suspend(() => {
      const mismatch = outputMismatch(server, tool, compiled, result)
      return mismatch === undefined ? Effect.succeed(result) : Effect.fail(mismatch)
    })
  )
}

/** Why a call of a tool on `route` is not sent, when it is not (its output check is compiled). */
const refusalOf = (route: CallRoute | undefined, check: OutputCheck | undefined): string | undefined => {
  if (route?._tag === "TasksRequired") {
    return `it requires task-based execution (its execution.taskSupport is "required"), which the bridge does not support`
  }
  return check !== undefined && Result.isFailure(check) ? `its output schema cannot be checked here: ${check.failure}` : undefined
}

/** No `Mcp-Param-*` headers: made once, as most calls (every stdio one) have none. */
const NO_HEADERS: Result.Result<undefined, never> = Result.succeed(undefined)

/** The `Mcp-Param-*` headers of a call on `route` (none for a tool that declares none), or why they cannot be made. */
const headersOf = (
  route: CallRoute | undefined,
  args: Readonly<Record<string, unknown>>
): Result.Result<Readonly<Record<string, string>> | undefined, string> => {
  const declared = route === undefined || route._tag === "TasksRequired" ? undefined : route.headers
  return declared === undefined ? NO_HEADERS : paramHeadersOf(declared, args)
}

/**
 * Sends one request, in one `Effect.callback`: no `AbortSignal` (the request's id is enough to
 * cancel it), and no step more than the call needs. The call goes through the connection's own
 * call table (`directCalls.ts`), at about half the SDK client's cost a call. The deadline is
 * the request's own timer, on the real clock; it also cancels the request on the server. An
 * interruption cancels it through `onInterrupt`, not a canceler returned by the `async`:
 * `Effect.callback` wraps a canceler in more frames than `onInterrupt` alone, and their garbage
 * cost about 6 µs of CPU a call (measured on a call that waits for one `setImmediate`: 16.6 µs
 * with a canceler, 10.4 with `onInterrupt`, 6.6 with neither).
 *
 * A tool with an output schema has its answer checked (`outputCheck.ts`) as it comes, within
 * the work bound: one that does not pass fails the call with `McpOutputMismatch`. Its schema's
 * check is compiled before the request goes out when its listing has not been taken yet. A tool
 * with `x-mcp-header` declarations (on a 2026-07-28 HTTP connection) has its `Mcp-Param-*`
 * headers made from the arguments; a call whose headers cannot be made (past the size bound)
 * fails with the reason, unsent.
 *
 * @internal
 */
export const sendCall = <E>(request: CallRequest<E>): Effect.Effect<CallResult, McpCallError | McpOutputMismatch | E> => {
  const { route } = request
  if (route?._tag !== "OutputSchema") return send(request, undefined)
  const known = knownOutputCheck(route.schema)
  return known !== undefined
    ? send(request, known)
    : Effect.flatMap(prepareOutputCheck(route.schema), (check) => send(request, check))
}

/**
 * The server's progress of a call, into the proxy call's own channel (`CallProgress`), which
 * checks and throttles it like every other tool's: its message as a model reads it (no control or bidi
 * characters), only as much of it as the channel keeps. No channel (no one listens): no
 * progress is asked for.
 */
const forwardedTo = (channel: CallProgress | undefined): CallProgressHandler | undefined =>
  channel === undefined ? undefined : (update) =>
    channel.offer({
      progress: update.progress,
      total: update.total,
      message: update.message === undefined ? undefined : modelText(update.message, { window: MAX_PROGRESS_MESSAGE_CHARS + 1 })
    })

/** `sendCall` once the tool's output check (if it has an output schema) is compiled. */
const send = <E>(
  request: CallRequest<E>,
  check: OutputCheck | undefined
): Effect.Effect<CallResult, McpCallError | McpOutputMismatch | E> =>
  Effect.withFiber((fiber) => sendWith(request, check, forwardedTo(fiber.getRef(CurrentCallProgress))))

/** `send`, the call's progress (when someone listens) going to `progress`. */
const sendWith = <E>(
  request: CallRequest<E>,
  check: OutputCheck | undefined,
  progress: CallProgressHandler | undefined
): Effect.Effect<CallResult, McpCallError | McpOutputMismatch | E> => {
  const { admit, connection, server, tool } = request
  // the request to cancel on an interruption (the call table forgets its own answered calls)
  let requestId: RequestId | undefined
  const sent = Effect.callback<CallResult, McpCallError | McpOutputMismatch | E>((resume) => {
    const refused = admit()
    // refused: nothing was sent, so there is no request id to cancel
    if (refused !== undefined) return resume(Effect.fail(refused))
    const unsent = refusalOf(request.route, check)
    if (unsent !== undefined) return resume(Effect.fail(new McpCallError({ server, tool, reason: unsent })))
    const headers = headersOf(request.route, request.args)
    if (Result.isFailure(headers)) return resume(Effect.fail(new McpCallError({ server, tool, reason: headers.failure })))
    const timeout = request.timeoutMs ?? MAX_TIMER_MS
    requestId = connection.calls.call(
      { name: tool, arguments: { ...request.args } },
      timeout,
      (answer) => resume(answer.ok ? accepted(server, tool, check, answer.result) : failed(server, connection, tool, answer.error, timeout, request.onHeaderMismatch)),
      headers.success,
      progress
    )
  })
  return Effect.onInterrupt(sent, () => {
    if (requestId === undefined) return Effect.void
    const id = requestId
    return Effect.sync(() => connection.calls.cancel(id, INTERRUPTED))
  })
}
