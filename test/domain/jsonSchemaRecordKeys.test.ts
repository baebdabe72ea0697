/**
 * A record's keys in the parameter JSON Schema: a symbol-keyed record's values are refused at the
 * `[symbol]` path, and a key with an identifier is written as that identifier's one definition,
 * the same one every other use of the identifier reads.
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { parametersJsonSchema } from "../../src/domain/parametersSchema.js"
import { errorOf } from "./parametersSchemaError.js"

const missing = (path: string, details: string, schema: string) => `Missing annotation\nat path: ${path}\ndetails: ${details}\nschema ${schema}`

describe("symbol-keyed records", () => {
  it("refuses values with no JSON Schema at the [symbol] path of the record", () => {
    expect(errorOf(Schema.Struct({ r: Schema.Record(Schema.Symbol, Schema.BigInt) }))).toBe(
      missing("[\"r\"][\"[symbol]\"]", "Generating a JSON Schema for this schema requires a \"jsonSchema\" annotation", "(BigInt): bigint")
    )
  })

  it("refuses suspended values without an identifier before looking at the symbol key", () => {
    expect(errorOf(Schema.Struct({ r: Schema.Record(Schema.Symbol, Schema.suspend(() => Schema.Number)) }))).toBe(
      missing(
        "[\"r\"][\"[symbol]\"]",
        "Generating a JSON Schema for this schema requires an \"identifier\" annotation",
        "(Suspend): <suspended schema>"
      )
    )
  })
})

describe("record keys with an identifier", () => {
  /** The JSON Schema of the field `r`, a record, of the struct `schema`. */
  const recordOf = (schema: Schema.Top): unknown => Reflect.get(Object(parametersJsonSchema(schema).properties), "r")

  it("a refined string key is its identifier's one definition, the one written where the identifier was first used", () => {
    const schema = Schema.Struct({
      a: Schema.String.annotate({ identifier: "Key" }),
      r: Schema.Record(Schema.String.check(Schema.isMinLength(2)).annotate({ identifier: "Key" }), Schema.Number)
    })
    expect(recordOf(schema)).toStrictEqual({
      type: "object",
      required: [],
      properties: {},
      patternProperties: { "": { type: "number" } },
      propertyNames: { type: "string" }
    })
  })

  it("a symbol key with its own JSON Schema is its identifier's one definition too", () => {
    const schema = Schema.Struct({
      a: Schema.String.annotate({ identifier: "Sym" }),
      r: Schema.Record(Schema.Symbol.annotate({ identifier: "Sym", jsonSchema: { type: "string", pattern: "^s" } }), Schema.Number)
    })
    expect(recordOf(schema)).toStrictEqual({
      type: "object",
      required: [],
      properties: {},
      additionalProperties: { type: "number" },
      propertyNames: { type: "string" }
    })
  })
})
