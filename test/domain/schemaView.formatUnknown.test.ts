/**
 * A value as Effect 3 showed it in a message (schemaViewText.ts's `formatUnknown`, the
 * `actual ...` of an argument problem): strings quoted, numbers, booleans, null and symbols as
 * they are, a bigint as `1n`, a `Date` as ISO text, a value with its own `toString` by it (an
 * error with its cause), sets and maps by their items, objects as compact JSON-like text with
 * their class, and every cycle, throwing getter of keys or throwing `toString` shown, not thrown.
 */
import { describe, expect, it } from "@effect/vitest"
import { formatUnknown } from "../../src/domain/schemaView.js"

describe("formatUnknown", () => {
  it("primitives", () => {
    expect(formatUnknown("a\"b")).toBe("\"a\\\"b\"")
    expect(formatUnknown("")).toBe("\"\"")
    expect(formatUnknown(1.5)).toBe("1.5")
    expect(formatUnknown(Number.NaN)).toBe("NaN")
    expect(formatUnknown(true)).toBe("true")
    expect(formatUnknown(false)).toBe("false")
    expect(formatUnknown(null)).toBe("null")
    expect(formatUnknown(undefined)).toBe("undefined")
    expect(formatUnknown(Symbol.for("s"))).toBe("Symbol(s)")
    expect(formatUnknown(12n)).toBe("12n")
  })

  it("arrays and plain objects as compact JSON-like text, keys quoted, symbol keys as symbols", () => {
    expect(formatUnknown([])).toBe("[]")
    expect(formatUnknown([1, "a", [null]])).toBe("[1,\"a\",[null]]")
    expect(formatUnknown({})).toBe("{}")
    expect(formatUnknown({ a: 1, "b c": ["x"], n: { m: undefined } })).toBe("{\"a\":1,\"b c\":[\"x\"],\"n\":{\"m\":undefined}}")
    expect(formatUnknown({ [Symbol.for("k")]: 2 })).toBe("{Symbol(k):2}")
    // an object without a prototype has neither toString nor constructor
    const bare: Record<string, unknown> = Object.create(null)
    bare.x = 1
    expect(formatUnknown(bare)).toBe("{\"x\":1}")
  })

  it("an instance of a class by its class's name; an anonymous class's, or an odd constructor, as a plain object", () => {
    class Point {
      constructor(readonly x: number, readonly y: number) {}
    }
    expect(formatUnknown(new Point(1, 2))).toBe("Point({\"x\":1,\"y\":2})")
    const Anonymous = (() => class {})()
    expect(formatUnknown(new Anonymous())).toBe("{}")
    expect(formatUnknown({ constructor: "not a function" })).toBe("{\"constructor\":\"not a function\"}")
    // not an array, though it has an array's toString: an object of class Array
    expect(formatUnknown(Object.create(Array.prototype))).toBe("Array({})")
    // a toString that is not a function is a property like any other
    expect(formatUnknown({ toString: "t" })).toBe("{\"toString\":\"t\"}")
  })

  it("sets and maps by their items", () => {
    expect(formatUnknown(new Set([1, "a"]))).toBe("Set([1,\"a\"])")
    expect(formatUnknown(new Map([["k", 1]]))).toBe("Map([[\"k\",1]])")
    expect(formatUnknown(new Set())).toBe("Set([])")
  })

  it("dates as ISO text; an invalid one said so", () => {
    expect(formatUnknown(new Date(0))).toBe("1970-01-01T00:00:00.000Z")
    expect(formatUnknown(new Date(Number.NaN))).toBe("Invalid Date")
    expect(formatUnknown([new Date(0)])).toBe("[1970-01-01T00:00:00.000Z]")
    // a date whose ISO text cannot be made is invalid, whatever its toString says
    const odd = new Date(0)
    odd.toISOString = () => {
      throw new RangeError("no ISO text")
    }
    expect(formatUnknown(odd)).toBe("Invalid Date")
  })

  it("a value with a toString of its own is shown by it; an error with its cause", () => {
    expect(formatUnknown({ toString: () => "custom" })).toBe("custom")
    expect(formatUnknown({ toString: () => 42 })).toBe("42")
    expect(formatUnknown({
      toString: () => {
        throw new Error("no")
      }
    })).toBe("[toString threw]")
    expect(formatUnknown(new Error("boom"))).toBe("Error: boom")
    expect(formatUnknown(new Error("outer", { cause: new Error("inner") }))).toBe("Error: outer (cause: Error: inner)")
    expect(formatUnknown(new Error("outer", { cause: { code: 1 } }))).toBe("Error: outer (cause: {\"code\":1})")
    expect(formatUnknown(new TypeError("t", { cause: "why" }))).toBe("TypeError: t (cause: \"why\")")
    // a cause that is there but undefined is no cause
    expect(formatUnknown(new Error("e", { cause: undefined }))).toBe("Error: e")
    // an array's items with their own toString
    expect(formatUnknown([{ toString: () => "item" }])).toBe("[item]")
  })

  it("a cycle is shown where it closes, in an array, an object, a set or a map", () => {
    const array: Array<unknown> = [1]
    array.push(array)
    expect(formatUnknown(array)).toBe("[1,[Circular]]")
    const object: Record<string, unknown> = { a: 1 }
    object.self = object
    expect(formatUnknown(object)).toBe("{\"a\":1,\"self\":[Circular]}")
    const set = new Set<unknown>()
    set.add(set)
    expect(formatUnknown(set)).toBe("Set([[Circular]])")
    const map = new Map<string, unknown>()
    map.set("m", map)
    expect(formatUnknown(map)).toBe("Map([[\"m\",[Circular]]])")
  })

  it("a value met twice side by side is written twice: only one inside itself is a cycle", () => {
    const o = { a: 1 }
    expect(formatUnknown([o, o])).toBe("[{\"a\":1},{\"a\":1}]")
    expect(formatUnknown({ x: o, y: [o] })).toBe("{\"x\":{\"a\":1},\"y\":[{\"a\":1}]}")
    const inner: Array<unknown> = []
    const outer = [inner, inner]
    inner.push(outer)
    expect(formatUnknown(outer)).toBe("[[[Circular]],[[Circular]]]")
  })

  it("a value shared over and over is written up to a bound, then `…`, not 2^40 times", () => {
    let shared: unknown = 0
    for (let i = 0; i < 40; i++) shared = [shared, shared]
    const text = formatUnknown(shared)
    expect(text.endsWith("]")).toBe(true)
    expect(text).toContain("…")
    expect(text.length).toBeLessThan(1_000_000)
    // below the bound nothing is cut
    let small: unknown = 0
    for (let i = 0; i < 3; i++) small = [small, small]
    expect(formatUnknown(small)).toBe("[[[0,0],[0,0]],[[0,0],[0,0]]]")
  })

  it("an object whose keys cannot be listed says so", () => {
    const proxy = new Proxy({}, {
      ownKeys: () => {
        throw new Error("no keys")
      }
    })
    expect(formatUnknown(proxy)).toBe("{\"[ownKeys threw]\":undefined}")
  })
})
