/**
 * The bounds on a call's arguments (depth, number of values, characters), each at its edge,
 * and the one-line form of decode issues: at most 20 then a count, flattened and cut, excess
 * properties said plainly, and no "Expected undefined" beside a field's own problems.
 */
import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import {
  argumentParseOptions,
  argumentsProblem,
  issuesOf,
  MAX_ARGUMENT_CHARS,
  MAX_ARGUMENT_DEPTH,
  MAX_ARGUMENT_NODES
} from "../../src/domain/argumentLimits.js"

/** `levels` arrays, each in the next: the outermost is level 1. */
const nested = (levels: number): unknown => {
  let value: unknown = 0
  for (let i = 0; i < levels; i++) value = [value]
  return value
}

const issues = <A, I>(schema: Schema.Codec<A, I>, input: unknown) => {
  const decoded = Schema.decodeUnknownResult(schema, argumentParseOptions)(input)
  if (Result.isSuccess(decoded)) throw new Error("decoded")
  return issuesOf(decoded.failure)
}

describe("argumentsProblem", () => {
  it("takes anything that is not an object as it is", () => {
    for (const input of [undefined, null, 1, "x".repeat(100), true]) expect(argumentsProblem(input)).toBeUndefined()
    // even a string past the character bound: the decoder refuses a non-object in one step
    expect(argumentsProblem("x".repeat(MAX_ARGUMENT_CHARS + 1))).toBeUndefined()
  })

  it("depth: objects and arrays nested 64 levels pass, 65 do not", () => {
    expect(argumentsProblem(nested(MAX_ARGUMENT_DEPTH))).toBeUndefined()
    expect(argumentsProblem(nested(MAX_ARGUMENT_DEPTH + 1))).toEqual({ path: [], message: "nested deeper than 64 levels" })
    expect(argumentsProblem({ a: nested(MAX_ARGUMENT_DEPTH) })).toEqual({ path: [], message: "nested deeper than 64 levels" })
    // in an object, as in an array
    let object: unknown = {}
    for (let i = 1; i < MAX_ARGUMENT_DEPTH; i++) object = { k: object }
    expect(argumentsProblem(object)).toBeUndefined()
    expect(argumentsProblem({ k: object })).toEqual({ path: [], message: "nested deeper than 64 levels" })
  })

  it("values: 100,000 pass (the container counts), one more does not", () => {
    expect(argumentsProblem(Array.from({ length: MAX_ARGUMENT_NODES - 1 }, () => 0))).toBeUndefined()
    expect(argumentsProblem(Array.from({ length: MAX_ARGUMENT_NODES }, () => 0))).toEqual({
      path: [],
      message: "more than 100000 values"
    })
    // the values of an object count too
    const wide = Object.fromEntries(Array.from({ length: MAX_ARGUMENT_NODES }, (_, i) => [`k${i}`, i]))
    expect(argumentsProblem(wide)?.message).toBe("more than 100000 values")
  })

  it("characters: values and keys together, up to 32 Mi", () => {
    const half = "x".repeat(MAX_ARGUMENT_CHARS / 2)
    expect(argumentsProblem([half, half])).toBeUndefined()
    const tooLong = { path: [], message: `more than ${MAX_ARGUMENT_CHARS} characters of text` }
    expect(argumentsProblem([half, half, "x"])).toEqual(tooLong)
    expect(argumentsProblem({ [half]: half, y: "" })).toEqual(tooLong)
  })

  it("only own properties are visited", () => {
    const inherited: unknown = Object.create({ deep: nested(MAX_ARGUMENT_DEPTH + 5) })
    expect(argumentsProblem(inherited)).toBeUndefined()
  })
})

describe("issuesOf", () => {
  it("lists 20 issues, then how many more", () => {
    const fields = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`f${String(i).padStart(2, "0")}`, Schema.Number]))
    const listed = issues(Schema.Struct(fields), {})
    expect(listed).toHaveLength(21)
    expect(listed[0]).toEqual({ path: ["f00"], message: "is missing" })
    expect(listed[20]).toEqual({ path: [], message: "and 5 more problems" })
    expect(issues(Schema.Struct(Object.fromEntries(Object.entries(fields).slice(0, 20))), {})).toHaveLength(20)
  })

  it("an unknown property is said plainly", () => {
    expect(issues(Schema.Struct({ a: Schema.Number }), { a: 1, b: 2 })).toEqual([
      { path: ["b"], message: "unknown property; expected one of: \"a\"" }
    ])
  })

  it("a long message is flattened to one line and cut at 200 characters", () => {
    const long = Schema.String.pipe(Schema.check(Schema.makeFilter(() => `line one\n\n   line two ${"z".repeat(500)}`)))
    const [issue] = issues(Schema.Struct({ s: long }), { s: "x" })
    expect(issue?.message.startsWith("line one line two zzz")).toBe(true)
    expect(issue?.message).toHaveLength(200)
    expect(issue?.message.endsWith("…")).toBe(true)
    expect(issue?.message).not.toContain("\n")
    // over 200 characters, though under the 400 read before flattening: cut too
    const mid = Schema.String.pipe(Schema.check(Schema.makeFilter(() => "y".repeat(300))))
    expect(issues(Schema.Struct({ s: mid }), { s: "x" })).toEqual([{ path: ["s"], message: `${"y".repeat(199)}…` }])
    const short = Schema.String.pipe(Schema.check(Schema.makeFilter(() => "  two\tparts  ")))
    expect(issues(Schema.Struct({ s: short }), { s: "x" })).toEqual([{ path: ["s"], message: "two parts" }])
  })

  it("a message of exactly 200 characters is whole; one read past 400 characters says it was cut", () => {
    const exact = Schema.String.pipe(Schema.check(Schema.makeFilter(() => "e".repeat(200))))
    expect(issues(Schema.Struct({ s: exact }), { s: "x" })).toEqual([{ path: ["s"], message: "e".repeat(200) }])
    // only the first 400 characters are flattened: what follows the blanks is not read, and the cut is said
    const spaced = Schema.String.pipe(Schema.check(Schema.makeFilter(() => `a${" ".repeat(500)}b`)))
    expect(issues(Schema.Struct({ s: spaced }), { s: "x" })).toEqual([{ path: ["s"], message: "a…" }])
  })

  it("an issue keeps its place beside deeper issues that are not under its own path, or that explain a union", () => {
    // "Expected undefined" at o.p stays: the deeper issue is under o.q, not under o.p
    const schema = Schema.Struct({
      o: Schema.Struct({ p: Schema.optional(Schema.Struct({ n: Schema.Number })), q: Schema.Struct({ r: Schema.Number }) })
    })
    const listed = issues(schema, { o: { p: 1, q: { r: "x" } } })
    expect(listed.some((i) => i.path.join(".") === "o.p" && i.message.startsWith("Expected undefined"))).toBe(true)
    expect(listed.some((i) => i.path.join(".") === "o.q.r")).toBe(true)
    // a union's member says what it expected at the field, beside the other member's deeper issue
    const union = issues(Schema.Struct({ u: Schema.Union([Schema.String, Schema.Struct({ n: Schema.Number })]) }), { u: { n: "x" } })
    expect(union.map((i) => i.path.join("."))).toEqual(["u", "u.n"])
  })

  it("an optional field with problems of its own does not also say \"Expected undefined\"", () => {
    const schema = Schema.Struct({ o: Schema.optional(Schema.Struct({ n: Schema.Number })) })
    const listed = issues(schema, { o: { n: "x" } })
    expect(listed.map((i) => i.path)).toEqual([["o", "n"]])
    // a problem with the field itself keeps its "Expected undefined"
    expect(issues(schema, { o: 1 }).some((i) => i.message.startsWith("Expected undefined"))).toBe(true)
  })
})
