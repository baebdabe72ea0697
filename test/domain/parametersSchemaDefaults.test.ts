/**
 * A field's decoding default is written into the parameter JSON Schema as its encoded side
 * writes it (what a model sends), and left out when it has no JSON form: a `bigint` default once
 * reached the schema as `1n`, and every export of the tool (`JSON.stringify`) threw.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { exportSpec, formats } from "../../src/domain/exports.js"
import { parametersJsonSchema } from "../../src/domain/parametersSchema.js"
import { make } from "../../src/tools/define.js"

const parameters = Schema.Struct({
  big: Schema.BigIntFromString.pipe(Schema.withDecodingDefaultType(Effect.succeed(1n))),
  rawBig: Schema.BigInt.annotate({ jsonSchema: { type: "integer" } }).pipe(Schema.withDecodingDefaultType(Effect.succeed(2n))),
  when: Schema.DateFromString.pipe(Schema.withDecodingDefaultType(Effect.succeed(new Date(0)))),
  n: Schema.NumberFromString.pipe(Schema.withDecodingDefaultType(Effect.succeed(3))),
  plain: Schema.Number.pipe(Schema.withDecodingDefaultType(Effect.succeed(4))),
  text: Schema.String.pipe(Schema.withDecodingDefaultType(Effect.succeed("d")))
})

describe("decoding defaults in the parameter JSON Schema", () => {
  it("are the encoded values: a string for a value sent as a string", () => {
    const json = parametersJsonSchema(parameters)
    expect(json.properties).toEqual({
      big: { type: "string", default: "1" },
      rawBig: { type: "integer" },
      when: { type: "string", default: "1970-01-01T00:00:00.000Z" },
      n: { type: "string", default: "3" },
      plain: { type: "number", default: 4 },
      text: { type: "string", default: "d" }
    })
  })

  it("a tool with such defaults exports in every format, and its defaults decode back", () => {
    const tool = make("defaults", { description: "x", parameters, handler: () => Effect.void })
    for (const format of formats) expect(() => JSON.stringify(exportSpec(tool.spec, format)), format).not.toThrow()
    // what a model copies from the schema decodes to the default itself
    const properties = parametersJsonSchema(parameters).properties as Record<string, { readonly default?: unknown }>
    const sent = Object.fromEntries(Object.entries(properties).flatMap(([k, v]) => ("default" in v ? [[k, v.default]] : [])))
    expect(Schema.decodeUnknownSync(parameters)(sent)).toEqual({ big: 1n, rawBig: 2n, when: new Date(0), n: 3, plain: 4, text: "d" })
  })
})

describe("decoding defaults inside a union with a Never member", () => {
  const defaulted = Schema.Struct({ a: Schema.Number.pipe(Schema.withDecodingDefaultType(Effect.succeed(3))) })
  const withDefault = { type: "object", required: [], properties: { a: { type: "number", default: 3 } }, additionalProperties: false }

  it("are kept: a plain Never has no alternative in the JSON Schema, so it does not count as a member", () => {
    expect(parametersJsonSchema(Schema.Union([defaulted, Schema.Never]))).toEqual(withDefault)
    expect(parametersJsonSchema(Schema.Struct({ u: Schema.Union([defaulted, Schema.Never]) })).properties).toEqual({ u: withDefault })
    // with the Never between them, the others are still matched by place
    expect(parametersJsonSchema(Schema.Struct({ u: Schema.Union([Schema.Array(defaulted), Schema.Never, Schema.String]) })).properties)
      .toEqual({ u: { anyOf: [{ type: "array", items: withDefault }, { type: "string" }] } })
  })

  it("an annotated Never keeps its alternative, and the members stay matched by place", () => {
    expect(parametersJsonSchema(Schema.Struct({ u: Schema.Union([defaulted, Schema.Never.annotate({ description: "n" })]) })).properties)
      .toEqual({ u: { anyOf: [withDefault, { not: {}, description: "n" }] } })
  })
})
