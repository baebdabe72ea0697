/**
 * What goes to a server's stdin: the SDK client's messages (its transport's `send`) and the
 * bridge's own calls (`directCalls.ts`), serialized as the SDK's stdio transport does.
 *
 * What waits to be written to a server is bounded: a server that does not read its stdin
 * while it sends requests (each answered) would otherwise make the host queue the answers
 * until its heap runs out. Past `maxQueuedBytes` waiting, the server is refused. A send made
 * while the pipe is full waits for `drain`, all of them on one listener.
 *
 * The transport also notes the ids of the SDK client's requests waiting for an answer
 * (`awaited`: answers to them do not count against the server's rate).
 *
 * @since 0.5.0
 */
import { type JSONRPCMessage, type RequestId, serializeMessage } from "@modelcontextprotocol/client"
import type { Writable } from "node:stream"
import { queuedTooMuch, type RefusalKind, type ServerLimits } from "./serverLimits.js"

/** What writing to a server needs. */
export interface OutboundOptions {
  /** The server's stdin, while messages can go to it. */
  readonly writable: () => Writable | undefined
  readonly limits: ServerLimits
  /** Stops the server, saying why. */
  readonly refuse: (why: string, kind: RefusalKind) => void
  /** Why the server was stopped, once it was. */
  readonly stoppedFor: () => string | undefined
}

/** The writing side of a connection. */
export interface Outbound {
  /** The SDK transport's `send`. */
  readonly send: (message: JSONRPCMessage) => Promise<void>
  /** Writes one of the bridge's own messages; `false` when nothing can be written any more. */
  readonly write: (message: JSONRPCMessage) => boolean
  /** The ids of the SDK client's requests waiting for an answer. */
  readonly awaited: Set<RequestId>
}

/** The writing side of a connection over `options.writable()`. */
export const makeOutbound = (options: OutboundOptions): Outbound => {
  const { limits, refuse, writable } = options
  const awaited = new Set<RequestId>()
  let drained: Promise<void> | undefined

  /** Writes `message`; refuses the server when what waits for it passed the cap. */
  const put = (stdin: Writable, message: JSONRPCMessage): boolean => {
    const flushed = stdin.write(serializeMessage(message))
    const why = queuedTooMuch(stdin.writableLength, limits)
    if (why !== undefined) refuse(why, "hostile")
    return flushed
  }
  const drain = (stdin: Writable) =>
    drained ??= new Promise<void>((resolve) =>
      stdin.once("drain", () => {
        drained = undefined
        resolve()
      })
    )
  /** Notes a request the SDK client sends, or one it gives up (`notifications/cancelled`). */
  const noteSent = (message: JSONRPCMessage) => {
    if (!("method" in message)) return
    if ("id" in message) {
      awaited.add(message.id)
    } else if (message.method === "notifications/cancelled" && typeof message.params === "object") {
      const id: unknown = Reflect.get(message.params, "requestId")
      if (typeof id === "string" || typeof id === "number") awaited.delete(id)
    }
  }

  const send: Outbound["send"] = (message) => {
    const stdin = writable()
    if (stdin === undefined) return Promise.reject(new Error("Not connected"))
    noteSent(message)
    const flushed = put(stdin, message)
    const stopped = options.stoppedFor()
    if (stopped !== undefined) return Promise.reject(new Error(stopped))
    return flushed ? Promise.resolve() : drain(stdin)
  }
  const write: Outbound["write"] = (message) => {
    const stdin = writable()
    if (stdin === undefined) return false
    put(stdin, message)
    return true
  }
  return { send, write, awaited }
}
