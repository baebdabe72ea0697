/**
 * The context a handler runs in: the caller's services, completed with the tool's (which win),
 * under the call's span when traced; the last merge is reused only while it is still right.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Option, Tracer } from "effect"
import { makeCallContext } from "../../src/layers/callContext.js"

class A extends Context.Tag("test/A")<A, string>() {}
class B extends Context.Tag("test/B")<B, string>() {}
class C extends Context.Tag("test/C")<C, string>() {}

const span = (name: string): Tracer.AnySpan => Tracer.externalSpan({ spanId: name, traceId: "t" })
const parentOf = (context: Context.Context<never>) =>
  Option.map(Context.getOption(context, Tracer.ParentSpan), (s) => s.spanId)
const inSpan = (context: Context.Context<never>, name: string): Context.Context<never> =>
  Context.add(context, Tracer.ParentSpan, span(name))

describe("makeCallContext", () => {
  const tool = Context.make(B, "tool's B").pipe(Context.add(C, "tool's C"))
  const caller = Context.make(A, "caller's A").pipe(Context.add(B, "caller's B"))

  it("merges the caller's services with the tool's, the tool's winning; the same caller merges once", () => {
    const of = makeCallContext(tool)
    const merged = of(caller)
    expect([Context.unsafeGet(merged, A), Context.unsafeGet(merged, B), Context.unsafeGet(merged, C)]).toEqual([
      "caller's A",
      "tool's B",
      "tool's C"
    ])
    expect(of(caller)).toBe(merged)
    const other = Context.add(caller, A, "another A")
    expect(Context.unsafeGet(of(other), A)).toBe("another A")
  })

  it("traced: the same merge under the call's span, which replaces the caller's", () => {
    const of = makeCallContext(tool)
    const first = of(inSpan(caller, "request-1"), span("call-1"))
    const second = of(inSpan(caller, "request-2"), span("call-2"))
    for (const [context, name] of [[first, "call-1"], [second, "call-2"]] as const) {
      expect(parentOf(context)).toEqual(Option.some(name))
      expect([Context.unsafeGet(context, A), Context.unsafeGet(context, B), Context.unsafeGet(context, C)]).toEqual([
        "caller's A",
        "tool's B",
        "tool's C"
      ])
      expect(context.unsafeMap.size).toBe(4)
    }
    expect(second).not.toBe(first)
  })

  it("traced: a caller whose services changed (not only its span) is merged again", () => {
    const of = makeCallContext(tool)
    of(inSpan(caller, "request-1"), span("call-1"))
    // same size, one service replaced
    const changed = of(inSpan(Context.add(caller, A, "another A"), "request-2"), span("call-2"))
    expect(Context.unsafeGet(changed, A)).toBe("another A")
    // one service more, the others as they were
    class D extends Context.Tag("test/D")<D, string>() {}
    of(inSpan(caller, "request-2b"), span("call-2b"))
    const grown = of(inSpan(Context.add(caller, D, "a D"), "request-3"), span("call-3"))
    expect(Context.unsafeGet(grown, D)).toBe("a D")
    expect(Context.unsafeGet(grown, A)).toBe("caller's A")
    // a caller outside any span, after one inside
    const bare = of(Context.make(A, "bare A"), span("call-4"))
    expect([Context.unsafeGet(bare, A), Option.getOrNull(parentOf(bare))]).toEqual(["bare A", "call-4"])
    expect(bare.unsafeMap.has(B.key) && Context.unsafeGet(bare, B)).toBe("tool's B")
  })

  it("traced: a service the caller holds as undefined is not mistaken for one it lacks", () => {
    const of = makeCallContext(Context.empty())
    class U extends Context.Tag("test/U")<U, undefined>() {}
    const withU = inSpan(Context.make(U, undefined), "r1")
    const withA = inSpan(Context.make(A, "an A"), "r2")
    of(withA, span("c1"))
    const next = of(withU, span("c2"))
    expect(next.unsafeMap.has(A.key)).toBe(false)
    expect(next.unsafeMap.has(U.key)).toBe(true)
    // and the other way round: a caller that lacks U (holding A instead) after one that held it as undefined
    const back = of(withA, span("c3"))
    expect(back.unsafeMap.has(U.key)).toBe(false)
    expect(Context.unsafeGet(back, A)).toBe("an A")
  })
})
