/**
 * The bounds a bridged server is held to, whatever it pushes at us: how much may wait to be
 * written to it (answers to its own requests pile up there when it does not read its stdin),
 * and how much it may send per second besides the answers to our requests (its requests,
 * notifications, lines that are not messages, answers to nothing).
 * A server past a bound is stopped (`process.ts`); these are the numbers and the counting.
 *
 * @since 0.5.0
 */
import { formatBytes } from "../shared/httpBody.js"

/** The bounds of one server. */
export interface ServerLimits {
  /**
   * Most bytes waiting to be written to its stdin. Above the largest arguments of one call
   * (`MAX_ARGUMENT_CHARS`), so that a server that reads slowly is not stopped for a large call.
   */
  readonly maxQueuedBytes: number
  /** Most messages (or lines that are not messages) it may send in a second besides answers to our requests. */
  readonly maxPushedPerSecond: number
  /** Most bytes of those it may send in a second (above one message of the largest size, 10 MiB). */
  readonly maxPushedBytesPerSecond: number
}

/** The bounds when the application sets none. */
export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  maxQueuedBytes: 64 * 1024 * 1024,
  maxPushedPerSecond: 1000,
  maxPushedBytesPerSecond: 16 * 1024 * 1024
}

/** How long one counting window lasts (ms). */
const WINDOW_MS = 1000

/**
 * Why a server is refused: `hostile` past the queue or push bounds (it is not restarted: a
 * restart would only let it do it again), `broken` a message past the size cap (an answer too
 * large, say: restarted as after a crash).
 */
export type RefusalKind = "hostile" | "broken"

/** Which per-second bound was passed. */
export type RateBound = "messages" | "bytes"

/** What a server pushed in the current second. */
export interface RateMeter {
  /** Adds one message of `size` bytes; says which bound the second's total passed (`undefined` while within both). */
  readonly add: (size: number) => RateBound | undefined
  /**
   * Whether `more` messages, added now, would pass the bound of messages: lines that came can
   * be refused before any of them is parsed.
   */
  readonly wouldPass: (more: number) => boolean
}

/** Counts what arrives in each second. `now` is in ms, monotonic. */
export const makeRateMeter = (
  perSecond: number,
  bytesPerSecond: number,
  now: () => number = () => performance.now()
): RateMeter => {
  let start = now()
  let messages = 0
  let bytes = 0
  /** Starts a new second when the current one is over. */
  const roll = () => {
    const at = now()
    if (at - start < WINDOW_MS) return
    start = at
    messages = 0
    bytes = 0
  }
  return {
    add: (size) => {
      roll()
      messages += 1
      bytes += size
      return messages > perSecond ? "messages" : bytes > bytesPerSecond ? "bytes" : undefined
    },
    wouldPass: (more) => {
      roll()
      return more > 0 && messages + more > perSecond
    }
  }
}

/** Why a server is stopped that pushed past `bound` on its stdout. */
export const pushedTooMuch = (bound: RateBound, limits: ServerLimits): string =>
  bound === "messages"
    ? `it sent more than ${limits.maxPushedPerSecond} messages in a second besides answers to our requests`
    : `it sent more than ${formatBytes(limits.maxPushedBytesPerSecond)} in a second besides answers to our requests`

/** Why a server is stopped when `queued` bytes wait toward it past the cap, or `undefined`. */
export const queuedTooMuch = (queued: number, limits: ServerLimits): string | undefined =>
  queued > limits.maxQueuedBytes
    ? `it did not read what was sent to it (over ${formatBytes(limits.maxQueuedBytes)} waiting)`
    : undefined
