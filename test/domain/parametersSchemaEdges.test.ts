/**
 * Edges of the parameter JSON Schema left by jsonSchemaMake.test.ts and jsonSchemaParts.test.ts:
 * an enum of one member, a post-rest tuple refused without a path when it is the whole schema,
 * an annotation of a renamed field's type side (its `default`) moved to the encoded name, and a
 * decoding default's type side read without refusing what has no JSON Schema there.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { parametersJsonSchema } from "../../src/domain/parametersSchema.js"

describe("parametersJsonSchema edges", () => {
  it("writes an enum of one member as one alternative", () => {
    expect(parametersJsonSchema(Schema.Struct({ e: Schema.Enum({ A: "a" }) })).properties).toStrictEqual({
      e: { $comment: "/schemas/enums", anyOf: [{ type: "string", enum: ["a"] }] }
    })
  })

  it("refuses a post-rest tuple given as the whole schema, with no path", () => {
    expect(() => parametersJsonSchema(Schema.TupleWithRest(Schema.Tuple([]), [Schema.Number, Schema.Boolean]))).toThrow(
      new Error(
        "Generating a JSON Schema for post-rest elements is not currently supported. You're welcome to contribute by submitting a Pull Request"
      )
    )
  })

  it("moves the default annotated on a renamed field's type side to its encoded name", () => {
    const renamed = Schema.Struct({ n: Schema.NumberFromString.annotate({ default: 2 }) }).pipe(Schema.encodeKeys({ n: "m" }))
    expect(parametersJsonSchema(renamed)).toStrictEqual({
      type: "object",
      required: ["m"],
      properties: { m: { type: "string", default: "2" } },
      additionalProperties: false
    })
  })

  it("reads the type side of a decoding default that has no JSON Schema without refusing it", () => {
    const schema = Schema.Struct({
      n: Schema.BigIntFromString.pipe(Schema.withDecodingDefaultType(Effect.succeed(1n))).annotateKey({ description: "big" })
    })
    const json = parametersJsonSchema(schema)
    expect(json.required).toStrictEqual([])
    const n = Reflect.get(json.properties as object, "n") as Record<string, unknown>
    expect(n.type).toBe("string")
    expect(n.description).toBe("big")
  })
})
