/**
 * A handler that waits until it is interrupted and then runs an asynchronous finalizer, and
 * the check that goes with it: a caller interrupted once the handler has started resumes only
 * after that finalizer has run.
 */
import { Deferred, Effect, Fiber } from "effect"

/** The handler, and `interruptOnceStarted(call)`: the finalizers that had run when the interrupted call came back. */
export const makeHeldHandler = () => {
  let started: Deferred.Deferred<void> | undefined
  const finalized: Array<string> = []
  const handler = () =>
    Effect.zipRight(
      Effect.suspend(() => (started === undefined ? Effect.void : Deferred.succeed(started, undefined))),
      Effect.never
    ).pipe(Effect.onInterrupt(() => Effect.sleep("30 millis").pipe(Effect.zipRight(Effect.sync(() => finalized.push("held"))))))
  const interruptOnceStarted = <A, E, R>(call: Effect.Effect<A, E, R>) =>
    Effect.gen(function*() {
      finalized.length = 0
      const ready = yield* Deferred.make<void>()
      started = ready
      const fiber = yield* Effect.fork(call)
      yield* Deferred.await(ready)
      yield* Fiber.interrupt(fiber)
      started = undefined
      return [...finalized]
    })
  return { handler, interruptOnceStarted }
}
