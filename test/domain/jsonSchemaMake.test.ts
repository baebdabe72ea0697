/**
 * The parameter JSON Schema of each kind of field (`jsonSchemaMake.ts`'s walk, read through
 * `parametersJsonSchema`, as a model is sent it): literals, enums, template literals, the
 * any-like keywords, unions (never dropped, any-like absorbing, literals of one type merged when
 * side by side), tuples (optional elements, a rest, a homogeneous rest, post-rest elements
 * refused), records by their key kind, which fields are required, and the exact error (with the
 * path) for what has no JSON Schema. Also `outputJsonSchema`, which declares its dialect.
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { OUTPUT_SCHEMA_DIALECT, outputJsonSchema, parametersJsonSchema } from "../../src/domain/parametersSchema.js"
import { errorOf } from "./parametersSchemaError.js"

/** The JSON Schema of the field `f` of a struct holding `schema`. */
const fieldOf = (schema: Schema.Top): unknown => {
  const properties = parametersJsonSchema(Schema.Struct({ f: schema })).properties
  return typeof properties === "object" && properties !== null ? Reflect.get(properties, "f") : undefined
}

const missing = (path: string, details: string, schema: string) =>
  `Missing annotation${path === "" ? "" : `\nat path: ${path}`}\ndetails: ${details}\nschema ${schema}`
const needsJsonSchema = 'Generating a JSON Schema for this schema requires a "jsonSchema" annotation'
const needsIdentifier = 'Generating a JSON Schema for this schema requires an "identifier" annotation'
const postRest =
  "Generating a JSON Schema for post-rest elements is not currently supported. You're welcome to contribute by submitting a Pull Request"

describe("keywords and literals", () => {
  it("writes each literal with its type, and the any-like keywords as they are", () => {
    expect(fieldOf(Schema.Literal("a"))).toStrictEqual({ type: "string", enum: ["a"] })
    expect(fieldOf(Schema.Literal(1))).toStrictEqual({ type: "number", enum: [1] })
    expect(fieldOf(Schema.Literal(false).annotate({ description: "d" }))).toStrictEqual({ type: "boolean", enum: [false], description: "d" })
    expect(fieldOf(Schema.Null)).toStrictEqual({ type: "null" })
    expect(fieldOf(Schema.Any.annotate({ description: "any" }))).toStrictEqual({ description: "any" })
    expect(fieldOf(Schema.Unknown.annotate({ description: "unknown" }))).toStrictEqual({ description: "unknown" })
    expect(fieldOf(Schema.Void.annotate({ description: "void" }))).toStrictEqual({ description: "void" })
    expect(fieldOf(Schema.Never.annotate({ description: "never" }))).toStrictEqual({ not: {}, description: "never" })
    expect(fieldOf(Schema.ObjectKeyword.annotate({ description: "o" }))).toStrictEqual({
      anyOf: [{ type: "object" }, { type: "array" }],
      description: "o"
    })
  })

  it("writes an enum as one alternative per member, typed by its value, and an empty one as never", () => {
    expect(fieldOf(Schema.Enum({ A: "a", B: 1 }).annotate({ description: "E" }))).toStrictEqual({
      $comment: "/schemas/enums",
      anyOf: [{ type: "string", enum: ["a"] }, { type: "number", enum: [1] }],
      description: "E"
    })
    expect(fieldOf(Schema.Enum({}))).toStrictEqual({ not: {} })
  })

  it("writes a template literal as a string with its pattern", () => {
    expect(fieldOf(Schema.TemplateLiteral(["a", Schema.Number]))).toStrictEqual({
      type: "string",
      description: "a template literal",
      pattern: "^a([+-]?\\d*\\.?\\d+(?:[Ee][+-]?\\d+)?)$"
    })
  })
})

describe("unions", () => {
  it("drops never members, and is never when nothing is left", () => {
    expect(fieldOf(Schema.Union([Schema.String, Schema.Never]))).toStrictEqual({ type: "string" })
    expect(fieldOf(Schema.Union([Schema.Never, Schema.Never]))).toStrictEqual({ not: {} })
  })

  it("is the any-like member alone when there is one", () => {
    expect(fieldOf(Schema.Union([Schema.String, Schema.Any]))).toStrictEqual({})
    expect(fieldOf(Schema.Union([Schema.String, Schema.Unknown]))).toStrictEqual({})
    expect(fieldOf(Schema.Union([Schema.Number, Schema.Void]))).toStrictEqual({})
    // object is not any-like
    expect(fieldOf(Schema.Union([Schema.Number, Schema.ObjectKeyword]))).toStrictEqual({
      anyOf: [{ type: "number" }, { anyOf: [{ type: "object" }, { type: "array" }] }]
    })
  })

  it("merges side-by-side plain literals of one type, and no others", () => {
    const lits = Schema.Union([Schema.Literal("a"), Schema.Literal(1), Schema.Literal("b"), Schema.Literal(2), Schema.Literal(3)])
    expect(fieldOf(lits)).toStrictEqual({
      anyOf: [
        { type: "string", enum: ["a"] },
        { type: "number", enum: [1] },
        { type: "string", enum: ["b"] },
        { type: "number", enum: [2, 3] }
      ]
    })
    // a described literal is not merged
    expect(fieldOf(Schema.Union([Schema.Literal("a"), Schema.Literal("b").annotate({ description: "B" })]))).toStrictEqual({
      anyOf: [{ type: "string", enum: ["a"] }, { type: "string", enum: ["b"], description: "B" }]
    })
  })

  it("writes a member with an identifier in place, once per use", () => {
    const Named = Schema.Struct({ n: Schema.Number }).annotate({ identifier: "Named" })
    const named = { type: "object", required: ["n"], properties: { n: { type: "number" } }, additionalProperties: false }
    expect(fieldOf(Schema.Union([Named, Schema.Null]))).toStrictEqual({ anyOf: [named, { type: "null" }] })
    expect(fieldOf(Schema.Tuple([Named, Named]))).toStrictEqual({
      type: "array",
      minItems: 2,
      items: [named, named],
      additionalItems: false
    })
  })
})

describe("tuples and arrays", () => {
  it("counts only the required elements in minItems, and closes a tuple without a rest", () => {
    expect(fieldOf(Schema.Tuple([Schema.String, Schema.optionalKey(Schema.Number), Schema.optionalKey(Schema.Boolean)]))).toStrictEqual({
      type: "array",
      minItems: 1,
      items: [{ type: "string" }, { type: "number" }, { type: "boolean" }],
      additionalItems: false
    })
    expect(fieldOf(Schema.Tuple([]))).toStrictEqual({ type: "array", maxItems: 0 })
    expect(fieldOf(Schema.Array(Schema.String))).toStrictEqual({ type: "array", items: { type: "string" } })
  })

  it("writes a rest of the elements' own type as items, another as additionalItems", () => {
    expect(fieldOf(Schema.TupleWithRest(Schema.Tuple([Schema.String]), [Schema.String]))).toStrictEqual({
      type: "array",
      minItems: 1,
      items: { type: "string" }
    })
    expect(fieldOf(Schema.TupleWithRest(Schema.Tuple([Schema.String]), [Schema.Number]))).toStrictEqual({
      type: "array",
      minItems: 1,
      items: [{ type: "string" }],
      additionalItems: { type: "number" }
    })
  })

  it("keeps an element's key description", () => {
    expect(fieldOf(Schema.Tuple([Schema.String.annotateKey({ description: "first" })]))).toStrictEqual({
      type: "array",
      minItems: 1,
      items: [{ type: "string", description: "first" }],
      additionalItems: false
    })
  })

  it("refuses elements after the rest, with the path", () => {
    const tail = Schema.TupleWithRest(Schema.Tuple([]), [Schema.Number, Schema.Boolean])
    expect(errorOf(Schema.Struct({ a: Schema.Struct({ b: tail }) }))).toBe(`${postRest}\nat path: ["a"]["b"]`)
  })
})

describe("records and required fields", () => {
  it("writes a string-keyed record as additionalProperties, false when its values are never", () => {
    expect(fieldOf(Schema.Record(Schema.String, Schema.Never))).toStrictEqual({
      type: "object",
      required: [],
      properties: {},
      additionalProperties: false
    })
  })

  it("writes a template-literal or refined key as patternProperties with propertyNames", () => {
    expect(fieldOf(Schema.Record(Schema.TemplateLiteral(["a", Schema.String]), Schema.Number))).toStrictEqual({
      type: "object",
      required: [],
      properties: {},
      patternProperties: { "": { type: "number" } },
      propertyNames: { type: "string", pattern: "^a([\\s\\S]*)$" }
    })
    expect(fieldOf(Schema.Record(Schema.String.check(Schema.isMinLength(2)), Schema.Number))).toStrictEqual({
      type: "object",
      required: [],
      properties: {},
      patternProperties: { "": { type: "number" } },
      propertyNames: { type: "string", description: "a string at least 2 character(s) long", minLength: 2 }
    })
  })

  it("requires only the fields that are neither optional nor possibly undefined", () => {
    expect(parametersJsonSchema(Schema.Struct({
      a: Schema.optional(Schema.String),
      b: Schema.UndefinedOr(Schema.String),
      c: Schema.optionalKey(Schema.Number),
      d: Schema.String,
      e: Schema.Union([Schema.Undefined, Schema.String, Schema.Number]),
      g: Schema.Undefined
    }))).toStrictEqual({
      type: "object",
      required: ["d"],
      properties: {
        a: { type: "string" },
        b: { type: "string" },
        c: { type: "number" },
        d: { type: "string" },
        e: { anyOf: [{ type: "string" }, { type: "number" }] },
        g: { not: {} }
      },
      additionalProperties: false
    })
  })
})

describe("what has no JSON Schema", () => {
  it("refuses a bigint, a symbol, a bigint literal or a declaration, naming the path and the schema", () => {
    expect(errorOf(Schema.Struct({ a: Schema.Array(Schema.BigInt) }))).toBe(missing("[\"a\"]", needsJsonSchema, "(BigInt): bigint"))
    expect(errorOf(Schema.Struct({ a: Schema.Tuple([Schema.String, Schema.BigInt]) }))).toBe(
      missing("[\"a\"][1]", needsJsonSchema, "(BigInt): bigint")
    )
    expect(errorOf(Schema.Struct({ s: Schema.Symbol }))).toBe(missing("[\"s\"]", needsJsonSchema, "(Symbol): symbol"))
    expect(errorOf(Schema.Struct({ l: Schema.Literal(1n) }))).toBe(missing("[\"l\"]", needsJsonSchema, "(Literal): 1n"))
    expect(errorOf(Schema.Struct({ d: Schema.Date.annotate({ description: "when" }) }))).toBe(
      missing("[\"d\"]", needsJsonSchema, "(Declaration): when")
    )
  })

  it("refuses a symbol-keyed record, at the [symbol] path", () => {
    expect(errorOf(Schema.Struct({ r: Schema.Record(Schema.Symbol, Schema.Number) }))).toBe(
      missing("[\"r\"][\"[symbol]\"]", needsJsonSchema, "(Symbol): symbol")
    )
  })

  it("refuses a symbol key, with the path of the struct that has it", () => {
    const key = Symbol.for("k")
    expect(errorOf(Schema.Struct({ [key]: Schema.String }))).toBe("Unsupported key\ndetails: Cannot encode Symbol(k) key to JSON Schema")
    expect(errorOf(Schema.Struct({ a: Schema.Struct({ [key]: Schema.String }) }))).toBe(
      "Unsupported key\nat path: [\"a\"]\ndetails: Cannot encode Symbol(k) key to JSON Schema"
    )
  })

  it("refuses a suspended schema without an identifier", () => {
    expect(errorOf(Schema.Struct({ f: Schema.suspend(() => Schema.String) }))).toBe(
      missing("[\"f\"]", needsIdentifier, "(Suspend): <suspended schema>")
    )
  })
})

describe("suspended schemas and identifiers", () => {
  it("writes a suspended schema whose target has an identifier in place", () => {
    const Named = Schema.Struct({ n: Schema.Number }).annotate({ identifier: "Named" })
    expect(fieldOf(Schema.suspend(() => Named))).toStrictEqual({
      type: "object",
      required: ["n"],
      properties: { n: { type: "number" } },
      additionalProperties: false
    })
  })

  it("refuses a suspended schema without an identifier wherever it is", () => {
    const bare = Schema.suspend(() => Schema.Number)
    const refused = (path: string) => missing(path, needsIdentifier, "(Suspend): <suspended schema>")
    expect(errorOf(Schema.Struct({ f: Schema.Union([bare, Schema.Null]) }))).toBe(refused("[\"f\"]"))
    expect(errorOf(Schema.Struct({ f: Schema.Tuple([bare]) }))).toBe(refused("[\"f\"][0]"))
    expect(errorOf(Schema.Struct({ f: Schema.Record(Schema.String, bare) }))).toBe(refused("[\"f\"]"))
    expect(errorOf(Schema.Struct({ f: Schema.Record(Schema.TemplateLiteral(["a", Schema.String]), bare) }))).toBe(refused("[\"f\"]"))
    expect(errorOf(Schema.Struct({ f: Schema.Record(Schema.String.check(Schema.isMinLength(2)), bare) }))).toBe(refused("[\"f\"]"))
    expect(errorOf(Schema.suspend(() => Schema.Struct({ a: Schema.String })))).toBe(refused(""))
  })
})

describe("nested objects", () => {
  it("writes a nested empty struct as any object or array, and a record's values as additionalProperties", () => {
    expect(fieldOf(Schema.Struct({}))).toStrictEqual({ anyOf: [{ type: "object" }, { type: "array" }] })
    expect(fieldOf(Schema.Record(Schema.String, Schema.Number))).toStrictEqual({
      type: "object",
      required: [],
      properties: {},
      additionalProperties: { type: "number" }
    })
  })

  it("reads a renamed struct's type side without refusing what has no JSON Schema there", () => {
    const renamed = Schema.Struct({ n: Schema.BigIntFromString.annotate({ description: "big", examples: [1n] }) }).pipe(
      Schema.encodeKeys({ n: "m" })
    )
    expect(parametersJsonSchema(renamed)).toStrictEqual({
      type: "object",
      required: ["m"],
      properties: { m: { type: "string", description: "big", examples: ["1"] } },
      additionalProperties: false
    })
  })

  it("refuses a top-level schema with no JSON Schema without a path", () => {
    expect(errorOf(Schema.BigInt)).toBe(missing("", needsJsonSchema, "(BigInt): bigint"))
  })
})

describe("outputJsonSchema", () => {
  it("is the parameters' schema with the draft-07 dialect declared first", () => {
    const out = outputJsonSchema(Schema.Struct({ a: Schema.String }))
    expect(OUTPUT_SCHEMA_DIALECT).toBe("http://json-schema.org/draft-07/schema#")
    expect(out).toStrictEqual({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      required: ["a"],
      properties: { a: { type: "string" } },
      additionalProperties: false
    })
    expect(Object.keys(out ?? {})[0]).toBe("$schema")
  })

  it("is undefined for what is not an object or has no JSON Schema", () => {
    expect(outputJsonSchema(Schema.String)).toBeUndefined()
    expect(outputJsonSchema(Schema.Struct({ n: Schema.BigInt }))).toBeUndefined()
  })
})
