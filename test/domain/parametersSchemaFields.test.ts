/**
 * Field-level details of the generated parameter schema: fields named like JSON Schema
 * keywords keep their names, schema titles are dropped, defaults and descriptions follow a
 * renamed field (`fromKey`) to its encoded name, and conflicting `allOf` members stay.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { parametersJsonSchema } from "../../src/domain/parametersSchema.js"

describe("parametersJsonSchema fields", () => {
  it("fields named title or properties keep their names; a schema's own title goes", () => {
    expect(parametersJsonSchema(Schema.Struct({ title: Schema.String.annotate({ title: "T" }), properties: Schema.Number }))).toEqual({
      type: "object",
      required: ["title", "properties"],
      properties: { title: { type: "string" }, properties: { type: "number" } },
      additionalProperties: false
    })
  })

  it("a renamed field gets its default and its type-side description under the encoded name", () => {
    const schema = parametersJsonSchema(Schema.Struct({
      maxLines: Schema.Number.annotate({ description: "How many" }).pipe(Schema.withDecodingDefaultType(Effect.succeed(5))),
      limit: Schema.Int.check(Schema.isGreaterThan(0)).pipe(Schema.withDecodingDefaultType(Effect.succeed(30))).annotateKey({
        description: "At most"
      })
    }).pipe(Schema.encodeKeys({ maxLines: "max_lines" })))
    expect(schema).toEqual({
      type: "object",
      required: [],
      properties: {
        max_lines: { type: "number", description: "How many", default: 5 },
        limit: { description: "At most", type: "integer", exclusiveMinimum: 0, default: 30 }
      },
      additionalProperties: false
    })
  })

  it("allOf members that conflict with the schema stay in allOf; the others are merged", () => {
    const schema = parametersJsonSchema(Schema.Struct({ p: Schema.String.check(Schema.isPattern(/a/), Schema.isPattern(/b/)) }))
    expect(schema.properties).toEqual({
      p: { type: "string", description: "a string matching the pattern b", pattern: "b", allOf: [{ pattern: "a" }] }
    })
  })
})
