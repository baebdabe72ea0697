/**
 * The wire side of the HTTP session leg (httpSessions.ts): a request's JSON body and the ids of
 * its JSON-RPC requests, a response watched until its body is all sent, and the JSON-RPC error
 * answers the leg gives itself.
 *
 * @since 1.0.0
 */
import { isJSONRPCRequest, type RequestId } from "@modelcontextprotocol/server"

/**
 * A JSON-RPC error answer with no id, as the SDK's transports give before any message is read.
 *
 * @internal
 */
export const jsonRpcError = (status: number, code: number, message: string): Response =>
  Response.json({ jsonrpc: "2.0", id: null, error: { code, message } }, { status })

/**
 * As the SDK's stateful transport answers a session it does not have.
 *
 * @internal
 */
export const notFound = (): Response => jsonRpcError(404, -32001, "Session not found")

/**
 * The request's body as JSON, or `undefined` (none, or not JSON: the handler answers that).
 *
 * @internal
 */
export const bodyOf = async (request: Request): Promise<unknown> => {
  const text = await request.clone().text()
  if (text.length === 0) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * The ids of the JSON-RPC requests in a body (not of its notifications or responses).
 *
 * @internal
 */
export const requestIds = (body: unknown): ReadonlyArray<RequestId> =>
  (Array.isArray(body) ? body : [body]).flatMap((message) => (isJSONRPCRequest(message) ? [message.id] : []))

/**
 * `response`, calling `done` once its body is all read or dropped (or at once, with none). When
 * `gone` aborts (the client went away) its body is dropped at once: the SDK's node adapter would
 * only notice at the stream's next write, which on an idle SSE stream is its next keep-alive, and
 * meanwhile the session's transport holds the stream (a standalone one refuses a new `GET`, 409).
 *
 * @internal
 */
export const untilSent = (response: Response, done: () => void, gone?: AbortSignal): Response => {
  const body = response.body
  if (body === null) {
    done()
    return response
  }
  const reader = body.getReader()
  // a pending read then ends (done), so the adapter's copy loop ends too
  gone?.addEventListener("abort", () => void reader.cancel(gone.reason).catch(() => undefined), { once: true })
  const watched = new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      try {
        const { done: end, value } = await reader.read()
        if (end) {
          done()
          controller.close()
        } else {
          controller.enqueue(value)
        }
      } catch (error) {
        done()
        controller.error(error)
      }
    },
    cancel: (reason) => {
      done()
      return reader.cancel(reason)
    }
  })
  return new Response(watched, { status: response.status, statusText: response.statusText, headers: response.headers })
}
