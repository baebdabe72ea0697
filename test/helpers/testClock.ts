/**
 * Driving the `TestClock` of an `it.effect` test step by step, by causality rather than by real
 * pauses: wait until the fibers under test have reached their sleep (they sleep on the test's
 * clock), then move the clock just far enough to wake them. A fiber that should be sleeping and
 * is not fails the test with what was awaited, instead of a real-time margin on a loaded machine.
 *
 * Effect 4's `TestClock` does not list its sleepers, so a test that waits for them runs under
 * `countingSleeps`: the TestClock behind a clock that keeps the end of each sleep still pending
 * (an interrupted sleep is no longer pending).
 */
import { Clock, Duration, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"

/** The ends (ms of the test clock) of the sleeps still pending under `countingSleeps`. */
const pending: Array<number> = []

/**
 * `effect` on the test's TestClock, with each sleep's end kept while it is pending: what
 * `sleepersUntil` and `wakeAfter` look at.
 */
export const countingSleeps = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  TestClock.testClockWith((inner) => {
    const counting: TestClock.TestClock = {
      ...inner,
      currentTimeMillisUnsafe: () => inner.currentTimeMillisUnsafe(),
      currentTimeNanosUnsafe: () => inner.currentTimeNanosUnsafe(),
      monotonicTimeNanosUnsafe: () => inner.monotonicTimeNanosUnsafe(),
      currentTimeMillis: inner.currentTimeMillis,
      currentTimeNanos: inner.currentTimeNanos,
      monotonicTimeNanos: inner.monotonicTimeNanos,
      adjust: (duration) => inner.adjust(duration),
      setTime: (timestamp) => inner.setTime(timestamp),
      withLive: (live) => inner.withLive(live),
      sleep: (duration) =>
        Effect.suspend(() => {
          const end = inner.currentTimeMillisUnsafe() + Duration.toMillis(duration)
          pending.push(end)
          return Effect.ensuring(
            inner.sleep(duration),
            Effect.sync(() => {
              const at = pending.indexOf(end)
              if (at >= 0) pending.splice(at, 1)
            })
          )
        })
    }
    return Effect.provideService(effect, Clock.Clock, counting)
  })

/**
 * The ends (ms of the test clock) of every sleep still pending under `countingSleeps`, in the
 * order they began: what Effect 3's `TestClock.sleeps()` gave (Effect 4's TestClock lists none).
 */
export const pendingSleeps: Effect.Effect<ReadonlyArray<number>> = Effect.sync(() => [...pending])

/** One turn of the event loop (I/O callbacks included); after the first few, a pause of 2 ms, not to spin. */
const realTurn = (turn: number) =>
  Effect.promise(() => new Promise<void>((resolve) => turn < 10 ? setImmediate(resolve) : setTimeout(resolve, 2)))

/**
 * Asks `check` until it answers true, a real turn of the event loop between two asks; dies with
 * what `failure` says once `withinMs` of real time have passed (a bound for a broken run only).
 */
const pollUntil = (check: Effect.Effect<boolean>, failure: Effect.Effect<string>, withinMs: number): Effect.Effect<void> =>
  Effect.gen(function*() {
    const giveUp = Date.now() + withinMs
    for (let turn = 0; !(yield* check); turn++) {
      if (Date.now() > giveUp) return yield* Effect.die(new Error(yield* failure))
      yield* realTurn(turn)
    }
  })

/**
 * Waits until at least `count` fibers sleep on the TestClock until `instant` (in ms of that
 * clock), under `countingSleeps`; dies when they do not within `withinMs` of real time.
 */
export const sleepersUntil = (instant: number, count = 1, withinMs = 10_000): Effect.Effect<void> => {
  const waiting = Effect.sync(() => pending.filter((end) => end === instant).length)
  return pollUntil(
    Effect.map(waiting, (n) => n >= count),
    Effect.gen(function*() {
      return `expected ${count} fiber(s) asleep until ${instant} ms of the TestClock, found ${yield* waiting} (now ${yield* Clock.currentTimeMillis} ms)`
    }),
    withinMs
  )
}

/**
 * Waits until at least `count` fibers sleep until `ms` from now on the TestClock, then moves
 * the clock on by `ms`, which wakes them.
 */
export const wakeAfter = (ms: number, count = 1): Effect.Effect<void> =>
  Effect.gen(function*() {
    yield* sleepersUntil((yield* Clock.currentTimeMillis) + ms, count)
    yield* TestClock.adjust(ms)
  })

/**
 * Waits, in real time (event-loop turns, whatever the fiber's clock), until `condition` holds:
 * for what the code under test does outside Effect's clock. Dies naming `what` when it does not
 * within `withinMs`.
 */
export const until = (condition: () => boolean, what: string, withinMs = 10_000): Effect.Effect<void> =>
  pollUntil(Effect.sync(condition), Effect.succeed(`${what} had not happened within ${withinMs} ms`), withinMs)

/**
 * Joins `fiber`, which should end without the clock moving on (it woke, and has only its
 * finalizers and its answer left); dies when it has not within `withinMs` of real time, rather
 * than wait for a TestClock that nothing moves any more.
 */
export const joinUnmoved = <A, E>(fiber: Fiber.Fiber<A, E>, withinMs = 10_000): Effect.Effect<A, E> =>
  Effect.andThen(
    pollUntil(
      Effect.sync(() => fiber.pollUnsafe() !== undefined),
      Effect.map(Clock.currentTimeMillis, (now) => `the fiber had not ended ${withinMs} ms after the TestClock reached ${now} ms`),
      withinMs
    ),
    Fiber.join(fiber)
  )
