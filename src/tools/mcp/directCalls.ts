/**
 * `tools/call` requests sent beside the SDK client, on the same connection, with ids of our
 * own: the hot path of a bridged call.
 *
 * The SDK's `Client.request` keeps per request a response handler, a progress handler, a
 * timeout record and a promise, in maps keyed by a numeric id. Measured in one process against
 * a transport that answers at once (a loop of 100,000 calls on a quiet machine), it cost
 * 4.1–4.9 µs of CPU a call; this table cost 1.3–1.4 µs for the same request, answer and
 * result check. On a local server's round trip (about 150 µs, where each microsecond of the
 * client's work costs about two of latency) that is a few per cent, and the bridge's goal is
 * within 10% of a direct SDK call (`bench/mcp.ts`).
 *
 * What the SDK does for a request is kept, with the same errors (SDK v2's), so the caller cannot
 * tell the two apart: the answer's `result` is checked with the SDK's `CallToolResult` schema; an
 * error answer is a `ProtocolError` with the server's code, message and data; no answer within
 * the timeout is `SdkError(RequestTimeout, ..., { timeout })` after `notifications/cancelled` went
 * to the server; a connection that closes fails every pending call with
 * `SdkError(ConnectionClosed)`. This table serves 2025-era stdio connections only (`connection.ts`):
 * a 2026-07-28 request carries the SDK's per-request `_meta` envelope, and an HTTP request is a
 * POST of its own, so those calls go through the SDK client's `request`. Our ids are strings (`"ets-1"`), and the SDK's are numbers, so
 * the two never meet: an answer with one of our ids is taken here and never reaches the SDK.
 *
 * @since 0.4.0
 */
import {
  type CallToolRequest,
  type JSONRPCMessage,
  ProtocolError,
  type RequestId,
  SdkError,
  SdkErrorCode,
  specTypeSchemas
} from "@modelcontextprotocol/client"
import type { CallResult } from "./callRequest.js"
import { issuesText } from "./inbound.js"

/** How a call ended: its checked result, or the error the SDK's `request` would have thrown. */
export type CallAnswer = { readonly ok: true; readonly result: CallResult } | { readonly ok: false; readonly error: unknown }

/** What `tools/call` sends: the tool's name and its arguments. */
export type CallParams = CallToolRequest["params"]

const connectionClosed = () => new SdkError(SdkErrorCode.ConnectionClosed, "Connection closed")

/**
 * Hears a call's `notifications/progress` from the server (its `progressToken` is the call's
 * own): the fields as the server sent them, each of its type or left out.
 */
export type CallProgressHandler = (
  update: { readonly progress: number; readonly total?: number | undefined; readonly message?: string | undefined }
) => void

interface Pending {
  readonly answer: (answer: CallAnswer) => void
  readonly timer: ReturnType<typeof setTimeout>
  readonly progress: CallProgressHandler | undefined
}

/** What `notifications/progress` carries, each field of its type or left out (`undefined` when `progress` is not a number). */
const progressParams = (params: unknown): Parameters<CallProgressHandler>[0] | undefined => {
  if (typeof params !== "object" || params === null) return undefined
  const progress: unknown = Reflect.get(params, "progress")
  if (typeof progress !== "number") return undefined
  const total: unknown = Reflect.get(params, "total")
  const message: unknown = Reflect.get(params, "message")
  return {
    progress,
    ...(typeof total === "number" ? { total } : {}),
    ...(typeof message === "string" ? { message } : {})
  }
}

/** How a connection's `tools/call` requests go out (this table, or the SDK client's `request`). */
export interface ToolCalls {
  /**
   * Sends `tools/call` with `params`; `answer` runs once, with the result or the error. Returns
   * the request's id (for `cancel`), or `undefined` when nothing was sent (the connection was
   * closed: `answer` has run already). `headers`: HTTP headers of this request (SEP-2243's
   * `Mcp-Param-*`), sent by an HTTP connection's calls and ignored by this table (stdio has none).
   * `progress`: the call asks the server for progress (a `progressToken`), and hears it.
   */
  readonly call: (
    params: CallParams,
    timeoutMs: number,
    answer: (answer: CallAnswer) => void,
    headers?: Readonly<Record<string, string>> | undefined,
    progress?: CallProgressHandler | undefined
  ) => RequestId | undefined
  /** Forgets a call (its answer never runs) and tells the server to cancel it. */
  readonly cancel: (id: RequestId, reason: string) => void
}

/** The calls in flight on one connection. */
export interface DirectCalls extends ToolCalls {
  /**
   * Takes `message` (a parsed line, not yet checked) when it is a well-formed answer to one of
   * our calls (`true`). Anything else (`false`) is to be checked with the SDK's
   * `JSONRPCMessageSchema` and handed to the SDK client: a malformed answer to one of our
   * calls is then reported, as the SDK reports it, and the call waits for its timeout.
   */
  readonly take: (message: unknown) => boolean
  /**
   * Takes `message` (a parsed line) when it is `notifications/progress` for one of this table's
   * calls still waiting (`true`), handing it to the call's handler (malformed: dropped). Any
   * other (a late one, another table's) is the SDK client's.
   */
  readonly progress: (message: unknown) => boolean
  /** Fails every pending call: the connection closed. */
  readonly closed: () => void
  /** How many calls wait for an answer. */
  readonly waiting: () => number
}

/** `params` asking for progress with `token` (as the SDK client does with its ids). */
const withProgressToken = (params: CallParams, token: string): CallParams => {
  // `_meta` is the protocol's own field of the params (not a private member)
  const { _meta: meta } = params
  return { ...params, _meta: { ...meta, progressToken: token } }
}

/**
 * The progress of calls sent through the SDK client's `request` (`clientRequests.ts`), each asking
 * with a token of ours (`ets-N`) rather than through the request's `onprogress`: the SDK hands a
 * notification to its handler a microtask after it came, but forgets a request's `onprogress`
 * as soon as its answer comes, so a step reported just before the answer (the last one, most
 * often) was lost when both came in one read. Heard here (the client's handler of
 * `notifications/progress`), a call's progress is taken until the call's own answer runs,
 * which is later than the notification's microtask.
 *
 * @internal
 */
export interface ProgressRoutes {
  /** `params` asking for progress with `token`, heard by `progress` (without one: `params` as they are). */
  readonly ask: (token: string, params: CallParams, progress: CallProgressHandler | undefined) => CallParams
  /** The call of `token` ended: its progress is no longer taken. */
  readonly forget: (token: string) => void
  /** A `notifications/progress`'s params: handed to the call of its token, if one waits. */
  readonly hear: (params: unknown) => void
}

/**
 * A table of `ProgressRoutes`.
 *
 * @internal
 */
export const makeProgressRoutes = (): ProgressRoutes => {
  const routes = new Map<string, CallProgressHandler>()
  return {
    ask: (token, params, progress) => {
      if (progress === undefined) return params
      routes.set(token, progress)
      return withProgressToken(params, token)
    },
    forget: (token) => void routes.delete(token),
    hear: (params) => {
      const token: unknown = typeof params === "object" && params !== null ? Reflect.get(params, "progressToken") : undefined
      const handler = typeof token === "string" ? routes.get(token) : undefined
      const update = handler === undefined ? undefined : progressParams(params)
      if (handler !== undefined && update !== undefined) handler(update)
    }
  }
}

/**
 * The call table of a connection whose messages go out through `write` (a whole JSON-RPC
 * message; `false` when the connection is closed).
 */
export const makeDirectCalls = (write: (message: JSONRPCMessage) => boolean): DirectCalls => {
  const pending = new Map<RequestId, Pending>()
  let next = 0

  const notifyCancelled = (requestId: RequestId, reason: string) => {
    write({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, reason } })
  }

  const call: DirectCalls["call"] = (params, timeoutMs, answer, _headers, progress) => {
    const id = `ets-${++next}`
    const timer = setTimeout(() => {
      if (!pending.delete(id)) return
      const error = new SdkError(SdkErrorCode.RequestTimeout, "Request timed out", { timeout: timeoutMs })
      notifyCancelled(id, String(error))
      answer({ ok: false, error })
    }, timeoutMs)
    pending.set(id, { answer, timer, progress })
    // progress asked for with the call's own id as its token (what the SDK client does with its ids)
    const sent = progress === undefined ? params : withProgressToken(params, id)
    if (write({ jsonrpc: "2.0", id, method: "tools/call", params: sent })) return id
    pending.delete(id)
    clearTimeout(timer)
    answer({ ok: false, error: connectionClosed() })
    return undefined
  }

  /**
   * The answer `message` gives a pending call, or `undefined` when it is not a well-formed
   * answer: checked against the one branch of the SDK's `JSONRPCMessage` schema it can be (the
   * union tries the request and notification branches first, and their failures are most of
   * its cost), then its result against `CallToolResult`.
   */
  const answerOf = (message: object): CallAnswer | undefined => {
    if ("result" in message) {
      const envelope = specTypeSchemas.JSONRPCResultResponse["~standard"].validate(message)
      if (envelope.issues !== undefined) return undefined
      const checked = specTypeSchemas.CallToolResult["~standard"].validate(envelope.value.result)
      return checked.issues === undefined
        ? { ok: true, result: checked.value }
        : { ok: false, error: new SdkError(SdkErrorCode.InvalidResult, `Invalid tools/call result: ${issuesText(checked.issues)}`) }
    }
    const checked = specTypeSchemas.JSONRPCErrorResponse["~standard"].validate(message)
    if (checked.issues !== undefined) return undefined
    const { code, data, message: text } = checked.value.error
    return { ok: false, error: ProtocolError.fromError(code, text, data) }
  }

  const take: DirectCalls["take"] = (message) => {
    if (typeof message !== "object" || message === null) return false
    if ("method" in message) return false
    const id: unknown = Reflect.get(message, "id")
    if (typeof id !== "string" || Reflect.get(message, "jsonrpc") !== "2.0") return false
    const call = pending.get(id)
    if (call === undefined) return false
    const answer = answerOf(message)
    if (answer === undefined) return false
    pending.delete(id)
    clearTimeout(call.timer)
    call.answer(answer)
    return true
  }

  const progress: DirectCalls["progress"] = (message) => {
    if (typeof message !== "object" || message === null || Reflect.get(message, "method") !== "notifications/progress") {
      return false
    }
    const params: unknown = Reflect.get(message, "params")
    const token: unknown = typeof params === "object" && params !== null ? Reflect.get(params, "progressToken") : undefined
    const handler = typeof token === "string" ? pending.get(token)?.progress : undefined
    if (handler === undefined) return false
    const update = progressParams(params)
    if (update !== undefined) handler(update)
    return true
  }

  const cancel: DirectCalls["cancel"] = (id, reason) => {
    const call = pending.get(id)
    if (call === undefined) return
    pending.delete(id)
    clearTimeout(call.timer)
    notifyCancelled(id, reason)
  }

  const closed: DirectCalls["closed"] = () => {
    const calls = [...pending.values()]
    pending.clear()
    for (const call of calls) {
      clearTimeout(call.timer)
      call.answer({ ok: false, error: connectionClosed() })
    }
  }

  return { call, take, progress, cancel, closed, waiting: () => pending.size }
}
