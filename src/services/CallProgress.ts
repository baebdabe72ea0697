/**
 * Progress of the running call. A tool whose work is long says how far it got
 * (`reportProgress({ progress, total, message })`), and whoever made the call with an
 * `onProgress` listener (`ExecuteOptions`) hears it: the MCP server sends it on as
 * `notifications/progress` when its client asked with a `progressToken`.
 *
 * The executor sets `CurrentCallProgress` for the handler's run of a call that has a listener
 * (the handler's fiber inherits it); anywhere else `reportProgress` does nothing, so a tool
 * reports without asking whether anyone listens. The channel behind it (`layers/callProgress.ts`)
 * keeps the MCP specification's rules for every listener: progress increases (a value not above
 * the last one, not finite or negative is dropped), a `total` below the progress is dropped, a
 * message is cut at `MAX_PROGRESS_MESSAGE_CHARS`; at most one update per
 * `PROGRESS_INTERVAL_MS` reaches the listener, the latest one kept, and the last one is sent
 * as the call ends. The listener runs beside the call: one that is slow, fails or dies
 * never fails, slows or blocks it.
 *
 * @since 1.0.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

/**
 * One progress update: how far the work got, of how much (when known), and what it does now.
 *
 * @since 1.0.0
 * @category models
 */
export interface ProgressUpdate {
  /** How far the work got: finite, at least 0, above the call's last progress. */
  readonly progress: number
  /** The progress at which the work is done, when known (at least `progress`). */
  readonly total?: number | undefined
  /** What the work does now, for a person (cut at `MAX_PROGRESS_MESSAGE_CHARS`). */
  readonly message?: string | undefined
}

/**
 * Who hears a call's progress (`ExecuteOptions.onProgress`). It runs beside the call, one
 * update at a time, in order; it may be interrupted when the call ends, and a failure or
 * defect of it is logged, never the call's.
 *
 * @since 1.0.0
 * @category models
 */
export type ProgressListener = (update: ProgressUpdate) => Effect.Effect<void>

/**
 * The progress channel of the running call, as the executor sets it.
 *
 * @since 1.0.0
 * @category models
 */
export interface CallProgress {
  /**
   * Takes one update (synchronous, never throws): checked, kept as the latest, and handed to
   * the listener when the throttle lets it. For callbacks outside Effect (a bridged server's
   * `notifications/progress`).
   */
  readonly offer: (update: ProgressUpdate) => void
}

/**
 * The most updates a listener hears per interval: one per `PROGRESS_INTERVAL_MS` (plus the
 * last one as the call ends).
 *
 * @since 1.0.0
 * @category constants
 */
export const PROGRESS_INTERVAL_MS = 100

/**
 * The longest progress message, in characters (UTF-16 code units); a longer one is cut.
 *
 * @since 1.0.0
 * @category constants
 */
export const MAX_PROGRESS_MESSAGE_CHARS = 1000

/**
 * The running call's progress channel; `undefined` outside a call that has a listener. The
 * executor provides it around the handler's run (`Effect.provideService`).
 *
 * @since 1.0.0
 * @category services
 */
export const CurrentCallProgress: Context.Reference<CallProgress | undefined> = Context.Reference<CallProgress | undefined>(
  "effect-tool-system/CallProgress/CurrentCallProgress",
  { defaultValue: () => undefined }
)

/**
 * Reports the running call's progress to its listener; nothing outside a call that has one.
 * Cheap enough for a loop (the checks and the throttle are the channel's): a tool may report
 * at every step and leave the rate to the channel.
 *
 * @since 1.0.0
 * @category utils
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { reportProgress } from "effect-tool-system"
 *
 * const work = Effect.forEach([1, 2, 3], (step) =>
 *   reportProgress({ progress: step, total: 3, message: `step ${step} of 3` }), { discard: true })
 * ```
 */
export const reportProgress = (update: ProgressUpdate): Effect.Effect<void> =>
  Effect.withFiber((fiber) => {
    fiber.getRef(CurrentCallProgress)?.offer(update)
    return Effect.void
  })

/** The reporter outside a call that has a listener. */
const ignore = (_update: ProgressUpdate): void => {}

/**
 * The running call's `offer`, for a callback outside Effect (a no-op outside a call that has
 * a listener).
 *
 * @since 1.0.0
 * @category utils
 */
export const progressReporter: Effect.Effect<(update: ProgressUpdate) => void> = Effect.withFiber((fiber) => {
  const channel = fiber.getRef(CurrentCallProgress)
  return Effect.succeed(channel === undefined ? ignore : channel.offer)
})
