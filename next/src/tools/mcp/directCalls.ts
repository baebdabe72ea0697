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
 * What the SDK does for a request is kept, with the same errors, so the caller cannot tell the
 * two apart: the answer's `result` is checked with the SDK's `CallToolResultSchema`; an error
 * answer is an `McpError` with the server's code, message and data; no answer within the
 * timeout is `McpError(RequestTimeout, ..., { timeout })` after `notifications/cancelled` went to
 * the server; a connection that closes fails every pending call with
 * `McpError(ConnectionClosed)`. Our ids are strings (`"ets-1"`), and the SDK's are numbers, so
 * the two never meet: an answer with one of our ids is taken here and never reaches the SDK.
 *
 * @since 0.4.0
 */
import {
  type CallToolRequest,
  CallToolResultSchema,
  ErrorCode,
  JSONRPCErrorResponseSchema,
  type JSONRPCMessage,
  JSONRPCResultResponseSchema,
  McpError,
  type RequestId
} from "@modelcontextprotocol/sdk/types.js"
import type { CallResult } from "./callRequest.js"

/** How a call ended: its checked result, or the error the SDK's `request` would have thrown. */
export type CallAnswer = { readonly ok: true; readonly result: CallResult } | { readonly ok: false; readonly error: unknown }

/** What `tools/call` sends: the tool's name and its arguments. */
export type CallParams = CallToolRequest["params"]

const connectionClosed = () => new McpError(ErrorCode.ConnectionClosed, "Connection closed")

interface Pending {
  readonly answer: (answer: CallAnswer) => void
  readonly timer: ReturnType<typeof setTimeout>
}

/** The calls in flight on one connection. */
export interface DirectCalls {
  /**
   * Sends `tools/call` with `params`; `answer` runs once, with the result or the error. Returns
   * the request's id (for `cancel`), or `undefined` when nothing was sent (the connection was
   * closed: `answer` has run already).
   */
  readonly call: (params: CallParams, timeoutMs: number, answer: (answer: CallAnswer) => void) => RequestId | undefined
  /**
   * Takes `message` (a parsed line, not yet checked) when it is a well-formed answer to one of
   * our calls (`true`). Anything else (`false`) is to be checked with the SDK's
   * `JSONRPCMessageSchema` and handed to the SDK client: a malformed answer to one of our
   * calls is then reported, as the SDK reports it, and the call waits for its timeout.
   */
  readonly take: (message: unknown) => boolean
  /** Forgets a call (its answer never runs) and tells the server to cancel it. */
  readonly cancel: (id: RequestId, reason: string) => void
  /** Fails every pending call: the connection closed. */
  readonly closed: () => void
  /** How many calls wait for an answer. */
  readonly waiting: () => number
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

  const call: DirectCalls["call"] = (params, timeoutMs, answer) => {
    const id = `ets-${++next}`
    const timer = setTimeout(() => {
      if (!pending.delete(id)) return
      const error = new McpError(ErrorCode.RequestTimeout, "Request timed out", { timeout: timeoutMs })
      notifyCancelled(id, String(error))
      answer({ ok: false, error })
    }, timeoutMs)
    pending.set(id, { answer, timer })
    if (write({ jsonrpc: "2.0", id, method: "tools/call", params })) return id
    pending.delete(id)
    clearTimeout(timer)
    answer({ ok: false, error: connectionClosed() })
    return undefined
  }

  /**
   * The answer `message` gives a pending call, or `undefined` when it is not a well-formed
   * answer: checked against the one branch of the SDK's `JSONRPCMessageSchema` it can be (the
   * union tries the request and notification branches first, and their failures are most of
   * its cost), then its result against `CallToolResultSchema`.
   */
  const answerOf = (message: object): CallAnswer | undefined => {
    if ("result" in message) {
      const envelope = JSONRPCResultResponseSchema.safeParse(message)
      if (!envelope.success) return undefined
      const checked = CallToolResultSchema.safeParse(envelope.data.result)
      return checked.success ? { ok: true, result: checked.data } : { ok: false, error: checked.error }
    }
    const checked = JSONRPCErrorResponseSchema.safeParse(message)
    if (!checked.success) return undefined
    const { code, data, message: text } = checked.data.error
    return { ok: false, error: new McpError(code, text, data) }
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

  return { call, take, cancel, closed, waiting: () => pending.size }
}
