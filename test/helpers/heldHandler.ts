/**
 * A handler that waits until it is interrupted and then runs an asynchronous finalizer (30 ms
 * of the fiber's clock), and the check that goes with it: a caller interrupted once the handler
 * has started resumes only after that finalizer has run. For `it.effect` tests: the finalizer
 * sleeps on the test's `TestClock`, which the check moves on once the finalizer is asleep; the
 * test runs under `countingSleeps` (of `testClock.js`, outside its `Effect.provide`), which is
 * how the check sees that sleep.
 */
import { Deferred, Effect, Fiber } from "effect"
import { joinUnmoved, wakeAfter } from "./testClock.js"

/** The handler, and `interruptOnceStarted(call)`: the finalizers that had run when the interrupted call came back. */
export const makeHeldHandler = () => {
  let started: Deferred.Deferred<void> | undefined
  const finalized: Array<string> = []
  const handler = () =>
    Effect.andThen(
      Effect.suspend(() => (started === undefined ? Effect.void : Deferred.succeed(started, undefined))),
      Effect.never
    ).pipe(Effect.onInterrupt(() => Effect.sleep("30 millis").pipe(Effect.andThen(Effect.sync(() => finalized.push("held"))))))
  const interruptOnceStarted = <A, E, R>(call: Effect.Effect<A, E, R>) =>
    Effect.gen(function*() {
      finalized.length = 0
      const ready = yield* Deferred.make<void>()
      started = ready
      const fiber = yield* Effect.forkChild(call)
      yield* Deferred.await(ready)
      // what had run when the interruption came back
      const interrupting = yield* Effect.forkChild(Effect.andThen(Fiber.interrupt(fiber), Effect.sync(() => [...finalized])))
      yield* wakeAfter(30)
      started = undefined
      return yield* joinUnmoved(interrupting)
    })
  return { handler, interruptOnceStarted }
}
