/**
 * The context a handler runs in: the caller's, completed with the services captured when its
 * tool was registered (they win), and under the call's span when the call is traced.
 *
 * Building a context is copying a `Map` (about 50 ns an entry), and it happens per call, so
 * the last merge is kept:
 * - untraced, a caller in a steady context (a runtime, a server loop) merges once;
 * - traced, the caller's context usually changes per call only by its parent span (each call
 *   under a new request span), which the call's span replaces anyway: while the rest of it is
 *   the same, the last merge is copied from two arrays and the call's span set in it.
 *
 * A `WeakMap` of every caller would cost more in garbage collection (an ephemeron per call)
 * than the merges it saves.
 *
 * A tool registered without services (an MCP proxy) adds nothing to its caller's context: its
 * `CallContext` says so (`onCaller`), and the guard may then run the handler on the caller's
 * fiber instead of a child (see `guard.ts`).
 *
 * @since 0.3.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Tracer from "effect/Tracer"

/** Completes a caller's context with a tool's services, and sets the call's span when given. */
export interface CallContext<R> {
  (caller: Context.Context<never>, span?: Tracer.AnySpan): Context.Context<R>
  /**
   * Present when the tool holds no services of its own: its handler needs nothing its caller
   * lacks, so it can run in the caller's context as it is (on the caller's fiber).
   */
  readonly onCaller?: <A, E>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E>
}

const spanKey = Tracer.ParentSpan.key

/**
 * Whether `caller` holds exactly the services `keys` and `values` (its parent span aside): one
 * lookup per service, and a second only for a service held as `undefined`.
 */
// A `false` from this only merges again, to the same context (slower).
const sameButSpan = (caller: ReadonlyMap<string, unknown>, keys: ReadonlyArray<string>, values: ReadonlyArray<unknown>): boolean => {
  if (caller.size - (caller.has(spanKey) ? 1 : 0) !== keys.length) return false
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    const service = values[i]
    if (caller.get(key) !== service || (service === undefined && !caller.has(key))) return false
  }
  return true
}

/** The `CallContext` of a tool registered with `services`. */
export const makeCallContext = <R>(services: Context.Context<R>): CallContext<R> => {
  const merge = makeMerge(services)
  if (services.unsafeMap.size > 0) return merge
  // no services: `R` was satisfied by an empty context, so the handler needs none
  const onCaller = <A, E>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E> => effect as Effect.Effect<A, E, never>
  return Object.assign(merge, { onCaller })
}

const makeMerge = <R>(services: Context.Context<R>) => {
  let lastCaller: Context.Context<never> | undefined
  let lastMerged: Context.Context<R> | undefined
  // the traced case: the last caller's services (its parent span left out), and their merge
  let traced:
    | {
      readonly callerKeys: ReadonlyArray<string>
      readonly callerValues: ReadonlyArray<unknown>
      readonly keys: ReadonlyArray<string>
      readonly values: ReadonlyArray<unknown>
    }
    | undefined
  return (caller: Context.Context<never>, span?: Tracer.AnySpan): Context.Context<R> => {
    if (span === undefined) {
      if (caller === lastCaller && lastMerged !== undefined) return lastMerged
      const fresh = Context.merge(caller, services)
      lastCaller = caller
      lastMerged = fresh
      return fresh
    }
    if (traced === undefined || !sameButSpan(caller.unsafeMap, traced.callerKeys, traced.callerValues)) {
      const own = new Map(caller.unsafeMap)
      own.delete(spanKey)
      const callerKeys = [...own.keys()]
      const callerValues = [...own.values()]
      for (const [key, service] of services.unsafeMap) own.set(key, service)
      // services captured inside a span may hold one: the call's span replaces it too
      own.delete(spanKey)
      traced = { callerKeys, callerValues, keys: [...own.keys()], values: [...own.values()] }
    }
    const { keys, values } = traced
    const map = new Map<string, unknown>()
    for (let i = 0; i < keys.length; i++) map.set(keys[i]!, values[i])
    map.set(spanKey, span)
    return Context.unsafeMake(map)
  }
}
