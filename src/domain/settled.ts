/**
 * Whether an effect is already its outcome: an `Exit` (`Effect.succeed(...)`,
 * `Effect.fail(...)` build one), which running would only hand back. The executor takes such a
 * handler's outcome without starting a fiber to guard it.
 *
 * @since 0.3.0
 */
import type * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"

/** An effect that is an `Exit`, typed as both (an exit needs no services, whatever `R` says). */
export const isSettled = <A, E, R>(effect: Effect.Effect<A, E, R>): effect is Effect.Effect<A, E, R> & Exit.Exit<A, E> =>
  Exit.isExit(effect)
