/**
 * The progress channel of one call (see `CallProgress`): what a handler reports, checked and
 * throttled, handed to the call's listener beside the call.
 *
 * A report is a few comparisons and stores: the update is checked (progress finite, at least
 * 0, above the last one taken) and kept as the latest; nothing is allocated or scheduled per
 * report, so a tool that reports a million times in a loop costs a million comparisons and
 * at most one delivery per `PROGRESS_INTERVAL_MS`. The deliveries run in a fiber of their own,
 * started at the first update and gone when no update waits: one update at a time, in order,
 * the first at once and each next one an interval after the one before (the latest replacing
 * any that waited). The listener's failures and defects are logged (the first of a call only:
 * a listener that always fails cannot flood the log), never the call's.
 *
 * When the handler ends, deliveries stop (one under way is interrupted, not awaited), and the
 * update still waiting, the last state, goes out in a fiber of its own started at once (so a
 * listener that sends synchronously sends it before the call's result), bounded by
 * `FINAL_DELIVERY_MS`; an interrupted call sends nothing more.
 *
 * @since 1.0.0
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import type * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import {
  type CallProgress,
  CurrentCallProgress,
  MAX_PROGRESS_MESSAGE_CHARS,
  PROGRESS_INTERVAL_MS,
  type ProgressListener,
  type ProgressUpdate
} from "../services/CallProgress.js"

/** How long the last update may take once the call ended, before it is given up. */
const FINAL_DELIVERY_MS = 5_000

/** `message` cut at the cap, not inside a surrogate pair. */
const cutMessage = (message: string): string => {
  if (message.length <= MAX_PROGRESS_MESSAGE_CHARS) return message
  let end = MAX_PROGRESS_MESSAGE_CHARS - 1
  const last = message.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end -= 1
  return `${message.slice(0, end)}…`
}

/** The update a listener gets: a `total` below the progress (or not finite) and a message not a string left out. */
const updateOf = (progress: number, total: unknown, message: unknown): ProgressUpdate => {
  const update: { progress: number; total?: number; message?: string } = { progress }
  if (typeof total === "number" && Number.isFinite(total) && total >= progress) update.total = total
  if (typeof message === "string") update.message = cutMessage(message)
  return update
}

/** A call's channel, and what ends it when the handler ends. */
interface Channel extends CallProgress {
  readonly end: (exit: Exit.Exit<unknown, unknown>) => Effect.Effect<void>
}

const makeChannel = (listener: ProgressListener, context: Context.Context<never>): Channel => {
  const runFork = Effect.runForkWith(context)
  // the last progress taken: the next must be above it
  let last = -1
  // the latest update taken and not yet delivered (kept as fields: a report allocates nothing)
  let waiting = false
  let progress = 0
  let total: unknown
  let message: unknown
  let deliveries: Fiber.Fiber<void> | undefined
  let ended = false
  // when the next delivery may start, on the fiber's Clock
  let nextAt = 0
  let failureLogged = false

  const take = (): ProgressUpdate | undefined => {
    if (!waiting) return undefined
    waiting = false
    const update = updateOf(progress, total, message)
    total = undefined
    message = undefined
    return update
  }

  const deliver = (update: ProgressUpdate): Effect.Effect<void> =>
    Effect.catchCause(Effect.suspend(() => listener(update)), (cause) => {
      if (Cause.hasInterruptsOnly(cause) || failureLogged) return Effect.void
      failureLogged = true
      return Effect.logWarning("A progress listener failed; the call goes on (its later failures are not logged)", cause)
    })

  const deliverAll: Effect.Effect<void> = Effect.gen(function*() {
    while (true) {
      const now = yield* Clock.currentTimeMillis
      if (nextAt > now) yield* Effect.sleep(Duration.millis(nextAt - now))
      const update = take()
      if (update === undefined) {
        // no await between the check and this: an offer from now on starts deliveries again
        deliveries = undefined
        return
      }
      nextAt = (yield* Clock.currentTimeMillis) + PROGRESS_INTERVAL_MS
      yield* deliver(update)
    }
  })

  const offer = (update: ProgressUpdate): void => {
    if (ended) return
    const reported = update.progress
    // NaN fails the comparisons; Infinity is not progress
    if (typeof reported !== "number" || !(reported >= 0 && reported > last) || reported === Infinity) return
    last = reported
    progress = reported
    total = update.total
    message = update.message
    waiting = true
    if (deliveries === undefined) deliveries = runFork(deliverAll)
  }

  const end = (exit: Exit.Exit<unknown, unknown>): Effect.Effect<void> => {
    ended = true
    const running = deliveries
    deliveries = undefined
    // not awaited: a listener that will not stop cannot hold the call
    running?.interruptUnsafe()
    const update = take()
    if (update === undefined || Exit.hasInterrupts(exit)) return Effect.void
    return Effect.asVoid(
      Effect.forkDetach(Effect.timeoutOption(deliver(update), Duration.millis(FINAL_DELIVERY_MS)), { startImmediately: true })
    )
  }

  return { offer, end }
}

/**
 * `effect` (a handler's run) with a progress channel to `listener` set: what it reports
 * reaches the listener, checked and throttled, and the last update goes out as it ends.
 *
 * @internal
 */
export const withCallProgress = <A, E, R>(listener: ProgressListener, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.context<never>(), (context) => {
    const channel = makeChannel(listener, context)
    return Effect.onExit(Effect.provideService(effect, CurrentCallProgress, channel), channel.end)
  })
