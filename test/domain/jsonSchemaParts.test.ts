/**
 * The pieces of a field's parameter JSON Schema (`jsonSchemaParts.ts`, read through
 * `parametersJsonSchema`): a check repeated on one keyword keeps the later bound on top and the
 * earlier one in `allOf` only while it still narrows; a hand-written `jsonSchema` replaces the
 * generated one or adds to it (an integer's only when it keeps `integer`); a `default` or an
 * `examples` entry is written only when it encodes to plain JSON data.
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { parametersJsonSchema } from "../../src/domain/parametersSchema.js"

/** The JSON Schema of the field `f` of a struct holding `schema`. */
const fieldOf = (schema: Schema.Top): unknown => {
  const properties = parametersJsonSchema(Schema.Struct({ f: schema })).properties
  return typeof properties === "object" && properties !== null ? Reflect.get(properties, "f") : undefined
}

const Strings = Schema.Array(Schema.String)

describe("a check repeated on one keyword", () => {
  it("keeps an earlier lower bound in allOf only while it is the stricter one", () => {
    expect(fieldOf(Schema.String.check(Schema.isMinLength(3), Schema.isMinLength(2)))).toStrictEqual({
      type: "string",
      description: "a string at least 2 character(s) long",
      minLength: 2,
      allOf: [{ minLength: 3 }]
    })
    expect(fieldOf(Schema.String.check(Schema.isMinLength(2), Schema.isMinLength(3)))).toStrictEqual({
      type: "string",
      description: "a string at least 3 character(s) long",
      minLength: 3
    })
    expect(fieldOf(Strings.check(Schema.isMinLength(3), Schema.isMinLength(2)))).toStrictEqual({
      type: "array",
      items: { type: "string" },
      description: "an array of at least 2 item(s)",
      minItems: 2,
      allOf: [{ minItems: 3 }]
    })
    expect(fieldOf(Strings.check(Schema.isMinLength(2), Schema.isMinLength(3)))).toStrictEqual({
      type: "array",
      items: { type: "string" },
      description: "an array of at least 3 item(s)",
      minItems: 3
    })
    expect(fieldOf(Schema.Number.check(Schema.isGreaterThanOrEqualTo(3), Schema.isGreaterThanOrEqualTo(2)))).toStrictEqual({
      type: "number",
      description: "a number greater than or equal to 2",
      minimum: 2,
      allOf: [{ minimum: 3 }]
    })
    expect(fieldOf(Schema.Number.check(Schema.isGreaterThanOrEqualTo(2), Schema.isGreaterThanOrEqualTo(3)))).toStrictEqual({
      type: "number",
      description: "a number greater than or equal to 3",
      minimum: 3
    })
    expect(fieldOf(Schema.Number.check(Schema.isGreaterThan(3), Schema.isGreaterThan(2)))).toStrictEqual({
      type: "number",
      description: "a number greater than 2",
      exclusiveMinimum: 2,
      allOf: [{ exclusiveMinimum: 3 }]
    })
    expect(fieldOf(Schema.Number.check(Schema.isGreaterThan(2), Schema.isGreaterThan(3)))).toStrictEqual({
      type: "number",
      description: "a number greater than 3",
      exclusiveMinimum: 3
    })
  })

  it("keeps an earlier upper bound in allOf only while it is the stricter one", () => {
    expect(fieldOf(Schema.String.check(Schema.isMaxLength(3), Schema.isMaxLength(5)))).toStrictEqual({
      type: "string",
      description: "a string at most 5 character(s) long",
      maxLength: 5,
      allOf: [{ maxLength: 3 }]
    })
    expect(fieldOf(Schema.String.check(Schema.isMaxLength(5), Schema.isMaxLength(3)))).toStrictEqual({
      type: "string",
      description: "a string at most 3 character(s) long",
      maxLength: 3
    })
    expect(fieldOf(Strings.check(Schema.isMaxLength(3), Schema.isMaxLength(5)))).toStrictEqual({
      type: "array",
      items: { type: "string" },
      description: "an array of at most 5 item(s)",
      maxItems: 5,
      allOf: [{ maxItems: 3 }]
    })
    expect(fieldOf(Strings.check(Schema.isMaxLength(5), Schema.isMaxLength(3)))).toStrictEqual({
      type: "array",
      items: { type: "string" },
      description: "an array of at most 3 item(s)",
      maxItems: 3
    })
    expect(fieldOf(Schema.Number.check(Schema.isLessThanOrEqualTo(3), Schema.isLessThanOrEqualTo(5)))).toStrictEqual({
      type: "number",
      description: "a number less than or equal to 5",
      maximum: 5,
      allOf: [{ maximum: 3 }]
    })
    expect(fieldOf(Schema.Number.check(Schema.isLessThanOrEqualTo(5), Schema.isLessThanOrEqualTo(3)))).toStrictEqual({
      type: "number",
      description: "a number less than or equal to 3",
      maximum: 3
    })
    expect(fieldOf(Schema.Number.check(Schema.isLessThan(3), Schema.isLessThan(5)))).toStrictEqual({
      type: "number",
      description: "a number less than 5",
      exclusiveMaximum: 5,
      allOf: [{ exclusiveMaximum: 3 }]
    })
    expect(fieldOf(Schema.Number.check(Schema.isLessThan(5), Schema.isLessThan(3)))).toStrictEqual({
      type: "number",
      description: "a number less than 3",
      exclusiveMaximum: 3
    })
  })

  it("drops a hand-written allOf member that a check repeats without narrowing, with what else it holds", () => {
    const written = (type: string, keyword: string, value: unknown) => ({
      type,
      [keyword]: value,
      format: "mine",
      allOf: [{ [keyword]: value, format: "theirs" }]
    })
    const text = (keyword: string, value: unknown) => Schema.String.annotate({ jsonSchema: written("string", keyword, value) })
    const list = (keyword: string) => Strings.annotate({ jsonSchema: written("array", keyword, 2) })
    const num = (keyword: string) => Schema.Number.annotate({ jsonSchema: written("number", keyword, 2) })
    const repeated: ReadonlyArray<readonly [string, Schema.Top]> = [
      ["minLength", text("minLength", 2).check(Schema.isMinLength(2))],
      ["maxLength", text("maxLength", 2).check(Schema.isMaxLength(2))],
      ["pattern", text("pattern", "a").check(Schema.isPattern(/a/))],
      ["minItems", list("minItems").check(Schema.isMinLength(2))],
      ["maxItems", list("maxItems").check(Schema.isMaxLength(2))],
      ["minimum", num("minimum").check(Schema.isGreaterThanOrEqualTo(2))],
      ["maximum", num("maximum").check(Schema.isLessThanOrEqualTo(2))],
      ["exclusiveMinimum", num("exclusiveMinimum").check(Schema.isGreaterThan(2))],
      ["exclusiveMaximum", num("exclusiveMaximum").check(Schema.isLessThan(2))],
      ["multipleOf", num("multipleOf").check(Schema.isMultipleOf(2))]
    ]
    for (const [keyword, schema] of repeated) {
      const field = fieldOf(schema)
      expect(field, keyword).toMatchObject({ [keyword]: keyword === "pattern" ? "a" : 2, format: "mine" })
      expect(field, keyword).not.toHaveProperty("allOf")
    }
  })

  it("keeps an earlier pattern or multipleOf in allOf when it differs, and once when it is the same", () => {
    expect(fieldOf(Schema.Number.check(Schema.isMultipleOf(2), Schema.isMultipleOf(3)))).toStrictEqual({
      type: "number",
      description: "a number divisible by 3",
      multipleOf: 3,
      allOf: [{ multipleOf: 2 }]
    })
    expect(fieldOf(Schema.Number.check(Schema.isMultipleOf(2), Schema.isMultipleOf(2)))).toStrictEqual({
      type: "number",
      description: "a number divisible by 2",
      multipleOf: 2
    })
    expect(fieldOf(Schema.String.check(Schema.isPattern(/a/), Schema.isPattern(/b/), Schema.isPattern(/c/)))).toStrictEqual({
      type: "string",
      description: "a string matching the pattern c",
      pattern: "c",
      allOf: [{ pattern: "b" }, { pattern: "a" }]
    })
    expect(fieldOf(Schema.String.check(Schema.isPattern(/a/), Schema.isPattern(/a/)))).toStrictEqual({
      type: "string",
      description: "a string matching the pattern a",
      pattern: "a"
    })
  })
})

describe("a hand-written jsonSchema", () => {
  it("replaces an integer's schema when it names another type, and adds to it otherwise", () => {
    const int = Schema.Number.check(Schema.isInt())
    expect(fieldOf(int)).toStrictEqual({ type: "integer", description: "an integer" })
    expect(fieldOf(int.annotate({ jsonSchema: { type: "number", minimum: 0 } }))).toStrictEqual({ type: "number", minimum: 0 })
    expect(fieldOf(int.annotate({ jsonSchema: { type: "integer", minimum: 0 } }))).toStrictEqual({
      type: "integer",
      description: "an integer",
      minimum: 0
    })
  })

  it("replaces a refinement's schema when it has a type, oneOf or anyOf, and adds to it otherwise", () => {
    const refined = Schema.String.check(Schema.makeFilter(() => true))
    expect(fieldOf(refined.annotate({ jsonSchema: { format: "email" } }))).toStrictEqual({ type: "string", format: "email" })
    expect(fieldOf(refined.annotate({ jsonSchema: { oneOf: [{ type: "string" }] } }))).toStrictEqual({ oneOf: [{ type: "string" }] })
    expect(fieldOf(refined.annotate({ jsonSchema: { anyOf: [{ type: "string" }] } }))).toStrictEqual({ anyOf: [{ type: "string" }] })
    expect(fieldOf(refined.annotate({ jsonSchema: { type: "number" } }))).toStrictEqual({ type: "number" })
    expect(() => fieldOf(refined.annotate({ jsonSchema: { $ref: "#/$defs/X" } }))).toThrow("missing definition \"X\"")
  })

  it("replaces an integer's schema also when it names no type", () => {
    expect(fieldOf(Schema.Number.check(Schema.isInt()).annotate({ jsonSchema: { minimum: 0 } }))).toStrictEqual({
      type: "number",
      description: "an integer",
      minimum: 0
    })
  })

  it("adds to a plain keyword's schema, and describes a declaration it replaces, but no other schema", () => {
    expect(fieldOf(Schema.String.annotate({ jsonSchema: { format: "email" } }))).toStrictEqual({ type: "string", format: "email" })
    expect(fieldOf(Schema.String.annotate({ jsonSchema: { type: "string", format: "x" }, description: "d" }))).toStrictEqual({
      type: "string",
      format: "x"
    })
    expect(fieldOf(Schema.Date.annotate({ jsonSchema: { type: "string", format: "date-time" }, description: "when" }))).toStrictEqual({
      type: "string",
      format: "date-time",
      description: "when"
    })
  })

  it("on a refined transformation, gives way to the encoded side", () => {
    expect(fieldOf(Schema.NumberFromString.check(Schema.makeFilter(() => true)).annotate({ jsonSchema: { format: "x" } })))
      .toStrictEqual({ type: "string" })
  })
})

describe("a hand-written jsonSchema's own keywords", () => {
  it("keeps a title that is not text, and does not count a title as a conflict in allOf", () => {
    expect(fieldOf(Schema.Unknown.annotate({ jsonSchema: { type: "string", title: 5 } }))).toStrictEqual({ type: "string", title: 5 })
    expect(fieldOf(Schema.Unknown.annotate({ jsonSchema: { title: 1, allOf: [{ title: 2, minimum: 1 }] } }))).toStrictEqual({
      title: 1,
      minimum: 1
    })
    expect(fieldOf(Schema.Unknown.annotate({ jsonSchema: { type: "number", allOf: [null, { minimum: 1 }] } }))).toStrictEqual({
      type: "number",
      minimum: 1,
      allOf: [null]
    })
  })

  it("keeps an optional field's hand-written schema whole, and the field required", () => {
    expect(parametersJsonSchema(Schema.Struct({
      a: Schema.UndefinedOr(Schema.String).annotate({ jsonSchema: { type: "string", format: "x" } }),
      h: Schema.Union([Schema.Undefined, Schema.Undefined])
    }))).toStrictEqual({
      type: "object",
      required: ["a"],
      properties: { a: { type: "string", format: "x" }, h: { not: {} } },
      additionalProperties: false
    })
  })
})

describe("defaults and examples", () => {
  it("writes a default that encodes to plain JSON data, encoded", () => {
    const shared = { v: 1 }
    expect(fieldOf(Schema.Unknown.annotate({ default: { a: shared, b: [shared] } }))).toStrictEqual({
      default: { a: { v: 1 }, b: [{ v: 1 }] }
    })
    expect(fieldOf(Schema.Unknown.annotate({ default: [1, "a", null, true, { b: [] }] }))).toStrictEqual({
      default: [1, "a", null, true, { b: [] }]
    })
    const bare = Object.assign(Object.create(null) as object, { a: 1 })
    expect(fieldOf(Schema.Unknown.annotate({ default: bare }))).toEqual({ default: { a: 1 } })
    expect(fieldOf(Schema.NumberFromString.annotate({ default: 5 }))).toStrictEqual({ type: "string", default: "5" })
    expect(fieldOf(Schema.Number.annotate({ default: 0 }))).toStrictEqual({ type: "number", default: 0 })
  })

  it("leaves out a default that is not plain JSON data or does not encode", () => {
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    for (const value of [new Map(), cycle, { [Symbol("s")]: 1, a: 1 }, [1, undefined], () => 1, [new Date(0)], { a: 1, d: new Date(0) }]) {
      expect(fieldOf(Schema.Unknown.annotate({ default: value }))).toStrictEqual({})
    }
    expect(fieldOf(Schema.Number.annotate({ default: "x" as unknown as number }))).toStrictEqual({ type: "number" })
  })

  it("writes the examples that are plain JSON data, and none when none is", () => {
    expect(fieldOf(Schema.Unknown.annotate({ examples: [1, new Map(), "a"] }))).toStrictEqual({ examples: [1, "a"] })
    expect(fieldOf(Schema.Unknown.annotate({ examples: [new Map()] }))).toStrictEqual({})
    expect(fieldOf(Schema.NumberFromString.annotate({ examples: [1, 2] }))).toStrictEqual({ type: "string", examples: ["1", "2"] })
  })
})
