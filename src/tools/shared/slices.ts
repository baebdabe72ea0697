/**
 * Long synchronous loops cut into slices, with a turn of the event loop between them, so that a
 * loop over a big text (millions of matches) never holds the thread for longer than a slice:
 * timers fire, other calls progress, and an interruption (a timeout) lands between slices.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"

/** Longest a slice runs before it gives the event loop a turn. */
export const SLICE_MS = 20

/** One turn of the event loop (`setImmediate`): timers and I/O run before the fiber goes on. */
export const yieldToLoop: Effect.Effect<void> = Effect.callback<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

/**
 * Calls `step` until it returns `true`, giving the event loop a turn after each `SLICE_MS` of
 * work. A step should do a small bounded unit (a few thousand iterations).
 */
export const inSlices = (step: () => boolean): Effect.Effect<void> =>
  Effect.suspend(function loop(): Effect.Effect<void> {
    const until = performance.now() + SLICE_MS
    while (performance.now() < until) {
      if (step()) return Effect.void
    }
    return Effect.flatMap(yieldToLoop, loop)
  })
