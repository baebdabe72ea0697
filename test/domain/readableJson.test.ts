/**
 * `readableJson` / `readableText` (`readableJson.ts`): any value as JSON data a model can read.
 * Pins what each kind of value becomes (bigint, symbol, function, non-finite numbers, boxed
 * primitives, `Map`, `Set`, `Error`, `Date`, `toJSON`), that `undefined` is dropped from objects and
 * `null` in arrays, that only a real cycle is `"[Circular]"` (an object seen twice side by side is
 * not), and the exact bounds: `READABLE_MAX_DEPTH` levels and `READABLE_MAX_NODES` values.
 */
import { describe, expect, it } from "@effect/vitest"
import { READABLE_MAX_DEPTH, READABLE_MAX_NODES, readableJson, readableText } from "../../src/domain/readableJson.js"

/** `leaf` under `levels` levels of `wrap`. */
const nest = (levels: number, leaf: unknown, wrap: (inner: unknown) => unknown): unknown => {
  let value = leaf
  for (let i = 0; i < levels; i++) value = wrap(value)
  return value
}

/** The value `levels` levels down, through `step`. */
const dig = (value: unknown, levels: number, step: (outer: any) => unknown): unknown => {
  let at = value
  for (let i = 0; i < levels; i++) at = step(at)
  return at
}

describe("readableJson: scalars", () => {
  it("keeps JSON scalars and writes the others out", () => {
    expect(readableJson("text")).toBe("text")
    expect(readableJson(true)).toBe(true)
    expect(readableJson(false)).toBe(false)
    expect(readableJson(0)).toBe(0)
    expect(readableJson(-1.5)).toBe(-1.5)
    expect(readableJson(null)).toBe(null)
    expect(readableJson(undefined)).toBe(undefined)
    expect(readableJson(Number.NaN)).toBe("NaN")
    expect(readableJson(Number.POSITIVE_INFINITY)).toBe("Infinity")
    expect(readableJson(Number.NEGATIVE_INFINITY)).toBe("-Infinity")
    expect(readableJson(10n)).toBe("10n")
    expect(readableJson(Symbol("x"))).toBe("Symbol(x)")
    expect(readableJson(function named() {})).toBe("[Function named]")
    expect(readableJson(() => 1)).toBe("[Function (anonymous)]")
  })

  it("reads a boxed primitive as its value", () => {
    expect(readableJson(Object(5))).toBe(5)
    expect(readableJson(Object(Number.NaN))).toBe("NaN")
    expect(readableJson(Object("ab"))).toBe("ab")
    expect(readableJson(Object(false))).toBe(false)
  })
})

describe("readableJson: containers", () => {
  it("writes undefined in an array as null and leaves it out of an object", () => {
    expect(readableJson([1, undefined, "x", () => 1])).toStrictEqual([1, null, "x", "[Function (anonymous)]"])
    const out = readableJson({ a: 1, b: undefined, c: null })
    expect(out).toStrictEqual({ a: 1, c: null })
    expect(Object.keys(out as object)).toEqual(["a", "c"])
  })

  it("writes a Map as its entries and a Set as its items, each read in turn", () => {
    expect(readableJson(new Map<unknown, unknown>([["a", 1n], [2, new Set([Number.NaN])]]))).toStrictEqual({
      Map: [["a", "1n"], [2, { Set: ["NaN"] }]]
    })
    expect(readableJson(new Set(["x", undefined]))).toStrictEqual({ Set: ["x", undefined] })
  })

  it("writes an Error as its name, message and own fields, whatever its toJSON says", () => {
    const error = Object.assign(new TypeError("bad input"), { code: "E_BAD", extra: undefined })
    expect(readableJson(error)).toStrictEqual({ name: "TypeError", message: "bad input", code: "E_BAD" })
    const withToJSON = Object.assign(new Error("boom"), { toJSON: () => "hidden" })
    expect(readableJson(withToJSON)).toStrictEqual({ name: "Error", message: "boom", toJSON: "[Function toJSON]" })
  })

  it("marks a cycle, and only a cycle, as [Circular]", () => {
    const loop: Record<string, unknown> = { name: "loop" }
    loop.self = loop
    expect(readableJson(loop)).toStrictEqual({ name: "loop", self: "[Circular]" })
    const shared = { v: 1 }
    expect(readableJson({ a: shared, b: shared, c: [shared, shared] })).toStrictEqual({
      a: { v: 1 },
      b: { v: 1 },
      c: [{ v: 1 }, { v: 1 }]
    })
  })
})

describe("readableJson: toJSON", () => {
  it("honours toJSON and reads its result", () => {
    expect(readableJson({ toJSON: () => ({ big: 1n }) })).toStrictEqual({ big: "1n" })
    expect(readableJson(new Date("2024-01-02T03:04:05.000Z"))).toBe("2024-01-02T03:04:05.000Z")
    expect(readableJson({ when: new Date(Number.NaN) })).toStrictEqual({ when: "Invalid Date" })
  })

  it("reads an object whose toJSON gives the object itself by its own fields", () => {
    class Self {
      readonly a = 1
      readonly b = 2n
      toJSON() {
        return this
      }
    }
    expect(readableJson(new Self())).toStrictEqual({ a: 1, b: "2n" })
  })

  it("says so when toJSON throws", () => {
    expect(readableJson({ toJSON: () => { throw new Error("nope") } })).toBe("[toJSON failed: nope]")
    expect(readableJson({ toJSON: () => { throw "plain" } })).toBe("[toJSON failed: plain]")
  })
})

describe("readableJson: bounds", () => {
  it("enters READABLE_MAX_DEPTH levels of arrays and objects, and not one more", () => {
    expect(READABLE_MAX_DEPTH).toBe(64)
    const arrays = (levels: number) => dig(readableJson(nest(levels, "leaf", (x) => [x])), levels, (a) => a[0])
    expect(arrays(64)).toBe("leaf")
    expect(arrays(65)).toBe("[…]")
    const objects = (levels: number) => dig(readableJson(nest(levels, "leaf", (x) => ({ k: x }))), levels, (o) => o.k)
    expect(objects(64)).toBe("leaf")
    expect(objects(65)).toBe("[…]")
  })

  it("counts a Set as one level, a Map as two and a toJSON as one", () => {
    const sets = (levels: number) => dig(readableJson(nest(levels, "leaf", (x) => new Set([x]))), levels, (s) => s.Set[0])
    expect(sets(64)).toBe("leaf")
    expect(sets(65)).toBe("[…]")
    const maps = (levels: number) =>
      dig(readableJson(nest(levels, "leaf", (x) => new Map([["k", x]]))), levels, (m) => m.Map[0][1])
    expect(maps(32)).toBe("leaf")
    expect(maps(33)).toBe("[…]")
    // a key two levels down, as its value is
    const keys = (levels: number) => dig(readableJson(nest(levels, "leaf", (x) => new Map([[x, 0]]))), levels, (m) => m.Map[0][0])
    expect(keys(32)).toBe("leaf")
    expect(keys(33)).toBe("[…]")
    const toJSONs = (levels: number) =>
      dig(readableJson(nest(levels, "leaf", (x) => ({ toJSON: () => x }))), 0, (v) => v)
    expect(toJSONs(64)).toBe("leaf")
    expect(toJSONs(65)).toBe("[…]")
    class Self {
      constructor(readonly k: unknown) {}
      toJSON() {
        return this
      }
    }
    const selves = (levels: number) => readableJson(nest(levels, "leaf", (x) => new Self(x)))
    // each one two levels: the object, then its own fields
    expect(dig(selves(32), 32, (o) => o.k)).toBe("leaf")
    expect(dig(selves(33), 32, (o) => o.k)).toBe("[…]")
  })

  it("reads a boxed primitive at the level of its box", () => {
    const boxes = dig(readableJson(nest(64, Object("leaf"), (x) => [x])), 64, (a) => a[0])
    expect(boxes).toBe("leaf")
  })

  it("visits READABLE_MAX_NODES values, and not one more", () => {
    expect(READABLE_MAX_NODES).toBe(100_000)
    // the array itself is one value
    const full = readableJson(Array.from({ length: 99_999 }, (_, i) => i)) as Array<unknown>
    expect(full.length).toBe(99_999)
    expect(full[99_998]).toBe(99_998)
    const over = readableJson(Array.from({ length: 100_000 }, (_, i) => i)) as Array<unknown>
    expect(over[99_998]).toBe(99_998)
    expect(over[99_999]).toBe("[…]")
  })
})

describe("readableText", () => {
  it("is the JSON text of the readable value, indented when asked", () => {
    expect(readableText({ a: [1, 2n] })).toBe("{\"a\":[1,\"2n\"]}")
    expect(readableText({ a: 1 }, 2)).toBe("{\n  \"a\": 1\n}")
    expect(readableText(null)).toBe("null")
    expect(readableText(7)).toBe("7")
  })

  it("is a value that reads as one string, without quotes", () => {
    expect(readableText("hello")).toBe("hello")
    expect(readableText(10n)).toBe("10n")
    expect(readableText(new Date("2024-01-02T03:04:05.000Z"))).toBe("2024-01-02T03:04:05.000Z")
  })

  it("is the word undefined for what has no JSON", () => {
    expect(readableText(undefined)).toBe("undefined")
  })
})
