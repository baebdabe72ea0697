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
 * @since 0.3.0
 */
import * as Context from "effect/Context"
import * as Tracer from "effect/Tracer"

/** Completes a caller's context with a tool's services, and sets the call's span when given. */
export type CallContext<R> = (caller: Context.Context<never>, span?: Tracer.AnySpan) => Context.Context<R>

const spanKey = Tracer.ParentSpan.key

/** Whether two contexts hold the same services, their parent spans aside. */
const sameButSpan = (a: ReadonlyMap<string, unknown>, b: ReadonlyMap<string, unknown>): boolean => {
  if (a.size !== b.size) return false
  for (const [key, service] of a) {
    if (key !== spanKey && (b.get(key) !== service || !b.has(key))) return false
  }
  return true
}

/** The `CallContext` of a tool registered with `services`. */
export const makeCallContext = <R>(services: Context.Context<R>): CallContext<R> => {
  let lastCaller: Context.Context<never> | undefined
  let lastMerged: Context.Context<R> | undefined
  // the traced case: the last caller, and its merge (parent span left out) as keys and values
  let spanCaller: Context.Context<never> | undefined
  let keys: Array<string> = []
  let values: Array<unknown> = []
  return (caller, span) => {
    if (span === undefined) {
      if (caller === lastCaller && lastMerged !== undefined) return lastMerged
      const fresh = Context.merge(caller, services)
      lastCaller = caller
      lastMerged = fresh
      return fresh
    }
    if (spanCaller === undefined || !sameButSpan(caller.unsafeMap, spanCaller.unsafeMap)) {
      const merged = new Map(caller.unsafeMap)
      for (const [key, service] of services.unsafeMap) merged.set(key, service)
      merged.delete(spanKey)
      keys = [...merged.keys()]
      values = [...merged.values()]
      spanCaller = caller
    }
    const map = new Map<string, unknown>()
    for (let i = 0; i < keys.length; i++) map.set(keys[i]!, values[i])
    map.set(spanKey, span)
    return Context.unsafeMake(map)
  }
}
