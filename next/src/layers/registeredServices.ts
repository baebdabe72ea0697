/**
 * A registered tool's handler runs with the services captured at its registration, over its
 * caller's context. Providing them per call (`Effect.provideContext`) copies the caller's whole
 * context into a new one (Effect 4's `Context.merge`), and that copy was the largest single cost
 * of a trivial call through the executor (about a sixth of it, in a CPU profile of
 * `bench/executor.ts`'s tool). A context is an immutable value, so the merge of one caller's
 * context with a tool's services is the same every time: it is made once per caller context
 * (remembered weakly, so it goes with that context) and set as the handler's context after.
 *
 * @since 0.6.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

/**
 * Binds handlers to `services`: each effect given runs with them, over its caller's context.
 */
export const bindServices = <R>(services: Context.Context<R>) => {
  const merged = new WeakMap<Context.Context<never>, Context.Context<R>>()
  const withServices = (context: Context.Context<never>): Context.Context<R> => {
    let next = merged.get(context)
    if (next === undefined) {
      next = Context.merge(context, services)
      merged.set(context, next)
    }
    return next
  }
  return <A, E>(run: Effect.Effect<A, E, R>): Effect.Effect<A, E> => Effect.updateContext(run, withServices)
}
