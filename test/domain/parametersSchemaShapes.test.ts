/**
 * Defaults and property descriptions reach every shape a parameter can take: tuple elements
 * and a tuple's rest, the struct branches of a union (also beside merged literals), an
 * optional or `UndefinedOr` struct, a refined struct; and how `allOf` members are merged.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { parametersJsonSchema } from "../../src/domain/parametersSchema.js"

/** A struct with a default and a described optional field. */
const Opts = Schema.Struct({
  a: Schema.Number.pipe(Schema.withDecodingDefaultType(Effect.succeed(1))),
  b: Schema.optional(Schema.String).annotateKey({ description: "B" })
})
const opts = {
  type: "object",
  required: [],
  properties: { a: { type: "number", default: 1 }, b: { type: "string", description: "B" } },
  additionalProperties: false
}
/** Another, told apart from `Opts` by its keys. */
const Other = Schema.Struct({ c: Schema.Number.pipe(Schema.withDecodingDefaultType(Effect.succeed(2))) })
const other = { type: "object", required: [], properties: { c: { type: "number", default: 2 } }, additionalProperties: false }

const fieldOf = (schema: Schema.Top): unknown => {
  const properties = parametersJsonSchema(Schema.Struct({ f: schema })).properties
  return typeof properties === "object" && properties !== null ? Reflect.get(properties, "f") : undefined
}

describe("defaults and descriptions in every shape", () => {
  it("arrays, tuple elements and a tuple's rest", () => {
    expect(fieldOf(Schema.Array(Opts))).toStrictEqual({ type: "array", items: opts })
    expect(fieldOf(Schema.TupleWithRest(Schema.Tuple([Opts, Schema.String]), [Opts]))).toStrictEqual({
      type: "array",
      minItems: 2,
      items: [opts, { type: "string" }],
      additionalItems: opts
    })
    expect(fieldOf(Schema.Tuple([Opts]))).toStrictEqual({ type: "array", minItems: 1, items: [opts], additionalItems: false })
  })

  it("the struct branches of a union, matched by position or, beside merged literals, by their keys", () => {
    expect(fieldOf(Schema.NullOr(Opts))).toStrictEqual({ anyOf: [opts, { type: "null" }] })
    expect(fieldOf(Schema.Union([Opts, Other]))).toStrictEqual({ anyOf: [opts, other] })
    // the two literals are one `enum`: three members, two alternatives
    expect(fieldOf(Schema.Union([Schema.Literal("x"), Schema.Literal("y"), Other, Opts]))).toStrictEqual({
      anyOf: [{ type: "string", enum: ["x", "y"] }, other, opts]
    })
    // a branch whose keys match no member stays as it is
    expect(fieldOf(Schema.Union([Schema.Literal("x"), Schema.Literal("y"), Opts.annotate({ jsonSchema: { type: "object" } })])))
      .toStrictEqual({ anyOf: [{ type: "string", enum: ["x", "y"] }, { type: "object" }] })
  })

  it("an optional or UndefinedOr struct, a refined struct, a struct under a transformation", () => {
    expect(parametersJsonSchema(Schema.Struct({ f: Schema.optional(Opts) })).properties).toStrictEqual({ f: opts })
    expect(fieldOf(Schema.UndefinedOr(Opts))).toStrictEqual(opts)
    expect(parametersJsonSchema(Opts.pipe(Schema.check(Schema.makeFilter(() => true))))).toStrictEqual(opts)
    expect(fieldOf(Opts.pipe(Schema.check(Schema.makeFilter(() => true))))).toStrictEqual(opts)
    const renamed = Schema.Struct({ n: Schema.Number.pipe(Schema.withDecodingDefaultType(Effect.succeed(3))) }).pipe(
      Schema.encodeKeys({ n: "m" })
    )
    expect(fieldOf(renamed)).toStrictEqual({ type: "object", required: [], properties: { m: { type: "number", default: 3 } }, additionalProperties: false })
  })

  it("a default the schema gives itself is kept; an empty struct is an object with no properties", () => {
    const own = Schema.Struct({ n: Schema.Number.annotate({ default: 9 }).pipe(Schema.withDecodingDefaultType(Effect.succeed(4))) })
    expect(parametersJsonSchema(own).properties).toStrictEqual({ n: { type: "number", default: 9 } })
    expect(parametersJsonSchema(Schema.Struct({}))).toStrictEqual({ type: "object", properties: {}, required: [], additionalProperties: false })
    // a hand-written top-level schema gets the lists the spec needs
    expect(parametersJsonSchema(Schema.Struct({ a: Schema.String }).annotate({ jsonSchema: { type: "object" } })))
      .toStrictEqual({ type: "object", properties: {}, required: [] })
    // a struct with only an index signature is not empty
    expect(parametersJsonSchema(Schema.Record(Schema.String, Schema.Number))).toStrictEqual({
      type: "object",
      required: [],
      properties: {},
      additionalProperties: { type: "number" }
    })
  })
})

describe("allOf members", () => {
  const flattened = (jsonSchema: object) => fieldOf(Schema.Unknown.annotate({ jsonSchema }))

  it("a member that repeats the schema's own keywords is merged", () => {
    expect(flattened({ type: "string", allOf: [{ type: "string", minLength: 2 }] })).toStrictEqual({ type: "string", minLength: 2 })
  })

  it("the schema's description wins over a member's, which does not make it conflict", () => {
    expect(flattened({ description: "outer", allOf: [{ description: "inner", minimum: 1 }] })).toStrictEqual({ description: "outer", minimum: 1 })
  })

  it("a member with one conflicting keyword stays whole; members that are not objects stay", () => {
    expect(flattened({ type: "string", pattern: "b", allOf: [{ pattern: "a", minLength: 2 }, true] })).toStrictEqual({
      type: "string",
      pattern: "b",
      allOf: [{ pattern: "a", minLength: 2 }, true]
    })
    expect(flattened({ type: "integer", allOf: [{ minimum: 1 }, { maximum: 5 }] })).toStrictEqual({ type: "integer", minimum: 1, maximum: 5 })
  })
})

describe("parametersJsonSchema: a union of literals and structs", () => {
  it("gives each struct the descriptions of its own fields, matched by all its keys", () => {
    // the literals become one enum, so the alternatives no longer line up with the members:
    // each struct is found by its keys, and {x, y} is not {x, z}
    const A = Schema.Struct({
      x: Schema.optional(Schema.String).annotateKey({ description: "A's x" }),
      z: Schema.optional(Schema.Number).annotateKey({ description: "A's z" })
    })
    const B = Schema.Struct({
      x: Schema.optional(Schema.String).annotateKey({ description: "B's x" }),
      y: Schema.optional(Schema.Number).annotateKey({ description: "B's y" })
    })
    const json = parametersJsonSchema(Schema.Struct({ u: Schema.Union([Schema.Literal("a"), Schema.Literal("b"), A, B]) }))
    const u = (json.properties as Record<string, { readonly anyOf: ReadonlyArray<Record<string, unknown>> }>).u
    expect(u?.anyOf.map((alt) => alt.properties)).toEqual([
      undefined,
      { x: { type: "string", description: "A's x" }, z: { type: "number", description: "A's z" } },
      { x: { type: "string", description: "B's x" }, y: { type: "number", description: "B's y" } }
    ])
  })
})
