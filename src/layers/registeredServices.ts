/**
 * A registered tool's handler runs with the services captured at its registration, over its
 * caller's context. Providing them per call (`Effect.provideContext`) copies the caller's whole
 * context into a new one (Effect 4's `Context.merge`), and that copy was the largest single cost
 * of a trivial call through the executor (about a sixth of it, in a CPU profile of
 * `bench/executor.ts`'s tool). A context is an immutable value, so the merge of one caller's
 * context with a tool's services is the same every time: the last one made is kept, with the
 * caller context it was made from, and set again as the handler's context while calls come
 * from that same context (an application calling on one runtime). One entry, not a `WeakMap`
 * of every caller context: a traced call's context is new each time (it holds the call's
 * parent span), and a weak map's entries for short-lived keys cost the garbage collector more
 * than the merge they would save.
 *
 * @since 0.6.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

/**
 * Binds handlers to `services`: each effect given runs with them, over its caller's context.
 */
export const bindServices = <R>(services: Context.Context<R>) => {
  let lastCaller: Context.Context<never> | undefined
  let lastMerged = services
  const withServices = (context: Context.Context<never>): Context.Context<R> => {
    if (context !== lastCaller) {
      lastMerged = Context.merge(context, services)
      lastCaller = context
    }
    return lastMerged
  }
  return <A, E>(run: Effect.Effect<A, E, R>): Effect.Effect<A, E> => Effect.updateContext(run, withServices)
}
