/**
 * Inlining the generated JSON Schema: property names are names (a field may be called `$ref`
 * or `$id`), values of data keywords (`default`, `examples`) are data, references resolve by
 * their JSON-pointer id, and what cannot be inlined is refused with the reason.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { InvalidToolDefinition } from "../../src/domain/errors.js"
import { parametersJsonSchema } from "../../src/domain/parametersSchema.js"
import { make } from "../../src/tools/define.js"

const Point = Schema.Struct({ x: Schema.Number.annotate({ description: "x coordinate" }) }).annotate({
  identifier: "Point"
})
const pointSchema = {
  type: "object",
  required: ["x"],
  properties: { x: { type: "number", description: "x coordinate" } },
  additionalProperties: false
}

describe("property names that look like keywords", () => {
  it("fields named $id, $schema, $defs and $ref are kept, and required names only fields that exist", () => {
    const schema = parametersJsonSchema(
      Schema.Struct({ $id: Schema.String, $schema: Schema.Number, $defs: Schema.Boolean, $ref: Schema.String, ok: Schema.String })
    )
    expect(schema).toEqual({
      type: "object",
      required: ["$id", "$schema", "$defs", "$ref", "ok"],
      properties: {
        $id: { type: "string" },
        $schema: { type: "number" },
        $defs: { type: "boolean" },
        $ref: { type: "string" },
        ok: { type: "string" }
      },
      additionalProperties: false
    })
  })

  it("also in nested structs and in a referenced definition; the definition's keywords still go", () => {
    const Named = Schema.Struct({ $ref: Schema.String, title: Schema.Number }).annotate({ identifier: "Named" })
    const schema = parametersJsonSchema(Schema.Struct({ $ref: Point, $id: Named, list: Schema.Array(Named) }))
    const named = { type: "object", required: ["$ref", "title"], properties: { $ref: { type: "string" }, title: { type: "number" } }, additionalProperties: false }
    expect(schema).toEqual({
      type: "object",
      required: ["$ref", "$id", "list"],
      properties: { $ref: pointSchema, $id: named, list: { type: "array", items: named } },
      additionalProperties: false
    })
  })

  it("pattern keys of patternProperties are kept as they are, also in a hand-written schema", () => {
    const generated = parametersJsonSchema(
      Schema.Struct({ env: Schema.Record(Schema.String.check(Schema.isPattern(/^[A-Z]+$/)), Schema.String) })
    )
    expect(generated.properties).toEqual({
      env: {
        type: "object",
        required: [],
        properties: {},
        patternProperties: { "": { type: "string" } },
        propertyNames: { type: "string", pattern: "^[A-Z]+$", description: "a string matching the pattern ^[A-Z]+$" }
      }
    })
    // a pattern is a name, however odd; the schema under it loses its title like any other
    const handWritten = { type: "object", patternProperties: { $ref: { type: "number" }, $id: { title: "dropped" } } }
    const schema = parametersJsonSchema(Schema.Struct({ odd: Schema.Unknown.annotate({ jsonSchema: handWritten }) }))
    expect(schema.properties).toEqual({ odd: { type: "object", patternProperties: { $ref: { type: "number" }, $id: {} } } })
  })
})

describe("data keywords", () => {
  it("a default and examples are copied as they are, keys named title or $id included", () => {
    const value = { title: "d", $id: "j" }
    const schema = parametersJsonSchema(
      Schema.Struct({
        x: Schema.Struct({ title: Schema.String, $id: Schema.String }).annotate({ examples: [{ title: "t", $id: "i" }], default: value })
      })
    )
    expect(schema.properties).toEqual({
      x: {
        type: "object",
        required: ["title", "$id"],
        properties: { title: { type: "string" }, $id: { type: "string" } },
        additionalProperties: false,
        default: value,
        examples: [{ title: "t", $id: "i" }]
      }
    })
  })
})

describe("data keywords of a hand-written schema", () => {
  it("const and enum values are copied as they are", () => {
    const jsonSchema = { const: { title: "t", $ref: "#/$defs/X" }, enum: [{ $id: "i", title: "u" }] }
    const schema = parametersJsonSchema(Schema.Struct({ k: Schema.Unknown.annotate({ jsonSchema }) }))
    expect(schema.properties).toStrictEqual({ k: jsonSchema })
  })
})

describe("references", () => {
  it("each use of a definition gets a copy of it; its identifier may hold /, ~ and %", () => {
    for (const identifier of ["Point", "geo/Point~1 50%", "a~01"]) {
      const P = Point.annotate({ identifier })
      const schema = parametersJsonSchema(Schema.Struct({ from: P, to: Schema.optional(P).annotateKey({ description: "Where to" }) }))
      expect(schema, identifier).toEqual({
        type: "object",
        required: ["from"],
        properties: { from: pointSchema, to: { ...pointSchema, description: "Where to" } },
        additionalProperties: false
      })
    }
  })

  it("a reference whose definition is missing is refused, with its id", () => {
    const dangling = Schema.Struct({ p: Schema.String.annotate({ jsonSchema: { $ref: "#/$defs/Nowhere" } }) })
    expect(() => parametersJsonSchema(dangling)).toThrow(`missing definition "Nowhere"`)
    const tool = () => make("dangling", { description: "d", parameters: dangling, handler: () => Effect.void })
    expect(tool).toThrow(InvalidToolDefinition)
    expect(tool).toThrow(/dangling.*missing definition "Nowhere"/)
  })

  it("a recursive definition is refused by its id, also when the recursion goes through another", () => {
    interface A {
      readonly b: ReadonlyArray<B>
    }
    interface B {
      readonly a: A | null
    }
    const A: Schema.Codec<A> = Schema.Struct({ b: Schema.Array(Schema.suspend((): Schema.Codec<B> => B)) }).annotate({ identifier: "A" })
    const B: Schema.Codec<B> = Schema.Struct({ a: Schema.NullOr(Schema.suspend((): Schema.Codec<A> => A)) }).annotate({ identifier: "B" })
    expect(() => parametersJsonSchema(Schema.Struct({ root: A }))).toThrow(/recursive schema "(A|B)" cannot be inlined/)
  })
})
