/**
 * A registered tool's handler runs with the services captured at its registration over its
 * caller's context, and the merge of the two is made once per caller context, not per call.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect } from "effect"
import { bindServices } from "../../src/layers/registeredServices.js"

describe("bindServices", () => {
  class Greeting extends Context.Service<Greeting, string>()("test/Greeting") {}

  it.effect("a handler sees its services over its caller's context, merged once per caller context", () =>
    Effect.gen(function*() {
      const bind = bindServices(Context.make(Greeting, "hello"))
      const seen: Array<Context.Context<never>> = []
      const handler = bind(Effect.gen(function*() {
        const context = yield* Effect.context<Greeting>()
        seen.push(context)
        return Context.get(context, Greeting)
      }))
      expect(yield* handler).toBe("hello")
      expect(yield* handler).toBe("hello")
      expect(seen[1]).toBe(seen[0])
    }))
})
