/**
 * A `Random` that draws the given numbers in turn (then from the start again): Effect 3's
 * `Random.fixed`, which Effect 4 does not have. Effect 4's generators are built on the service's
 * `nextDoubleUnsafe` (a draw in [0, 1)) and `nextIntUnsafe`: `Random.nextIntBetween(min, max,
 * { halfOpen: true })` gives `min + Math.floor(draw * (max - min))`, so a draw of `n / 2 ** 32`
 * gives `n` from `nextIntBetween(0, 2 ** 32, { halfOpen: true })` exactly.
 */
import { Effect, Random } from "effect"

/** `effect` with a `Random` drawing `draws` in turn (each in [0, 1)). */
export const withDraws = (draws: readonly [number, ...Array<number>]) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.suspend(() => {
    let next = 0
    const draw = (): number => {
      const value = draws[next % draws.length] ?? 0
      next++
      return value
    }
    const random: Random.Random = {
      nextDoubleUnsafe: draw,
      nextIntUnsafe: () => Math.floor(draw() * Number.MAX_SAFE_INTEGER)
    }
    return Effect.provideService(effect, Random.Random, random)
  })
