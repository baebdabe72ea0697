/**
 * Driving the `TestClock` of an `it.effect` / `it.scoped` test step by step, by causality
 * rather than by real pauses: wait until the fibers under test have reached their
 * `Effect.sleep` (they sleep on the test's clock), then move the clock just far enough to
 * wake them. A fiber that should be sleeping and is not (it ran too early, too late or not at
 * all) fails the test with what was awaited, instead of a real-time margin on a loaded machine.
 *
 * `TestClock.sleeps()` also keeps sleeps whose fiber was interrupted (a deadline's sleep once
 * its call ended) until the clock passes them, so sleeps are told apart by when they end.
 */
import { Chunk, Clock, Effect, Fiber, Option, TestClock } from "effect"

/** One turn of the event loop (I/O callbacks included); after the first few, a pause of 2 ms, not to spin. */
const realTurn = (turn: number) =>
  Effect.promise(() => new Promise<void>((resolve) => turn < 10 ? setImmediate(resolve) : setTimeout(resolve, 2)))

/**
 * Asks `check` until it answers true, a real turn of the event loop between two asks; dies with
 * what `failure` says once `withinMs` of real time have passed (a bound for a broken run only:
 * it is never reached when the code under test does what the test expects).
 */
const pollUntil = (check: Effect.Effect<boolean>, failure: Effect.Effect<string>, withinMs: number): Effect.Effect<void> =>
  Effect.gen(function*() {
    const giveUp = Date.now() + withinMs
    for (let turn = 0; !(yield* check); turn++) {
      if (Date.now() > giveUp) return yield* Effect.dieMessage(yield* failure)
      yield* realTurn(turn)
    }
  })

/**
 * Waits until at least `count` fibers sleep on the TestClock until `instant` (in ms of that
 * clock), giving the other fibers and the event loop their turns meanwhile; dies when they
 * do not within `withinMs` of real time.
 */
export const sleepersUntil = (instant: number, count = 1, withinMs = 10_000): Effect.Effect<void> => {
  const waiting = Effect.map(TestClock.sleeps(), (sleeps) => Chunk.size(Chunk.filter(sleeps, (end) => end === instant)))
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
 * for what the code under test does outside Effect's clock (a real server receiving a request,
 * a child process writing a file) before the test moves the TestClock. Dies naming `what` when
 * it does not within `withinMs` of real time (a bound for a broken run only).
 */
export const until = (condition: () => boolean, what: string, withinMs = 10_000): Effect.Effect<void> =>
  pollUntil(Effect.sync(condition), Effect.succeed(`${what} had not happened within ${withinMs} ms`), withinMs)

/**
 * Joins `fiber`, which should end without the clock moving on (it woke, and has only its
 * finalizers and its answer left); dies when it has not within `withinMs` of real time, rather
 * than wait for a TestClock that nothing moves any more.
 */
export const joinUnmoved = <A, E>(fiber: Fiber.Fiber<A, E>, withinMs = 10_000): Effect.Effect<A, E> =>
  Effect.zipRight(
    pollUntil(
      Effect.map(fiber.poll, Option.isSome),
      Effect.map(
        Clock.currentTimeMillis,
        (now) => `the fiber had not ended ${withinMs} ms after the TestClock reached ${now} ms`
      ),
      withinMs
    ),
    Fiber.join(fiber)
  )
