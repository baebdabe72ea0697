/**
 * Edges of the parameter JSON Schema left by jsonSchemaMake.test.ts and jsonSchemaParts.test.ts:
 * an enum of one member, a post-rest tuple refused without a path when it is the whole schema,
 * an annotation of a renamed field's type side (its `default`) moved to the encoded name (also in
 * a struct with an identifier, never an undefined one), a decoding default's type side read
 * without refusing what has no JSON Schema there, and a hand-written encoded side left as it is;
 * which fields may be left out when `undefined` hides in an encoded side or a nested union, and
 * no `default` where none was given.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema, SchemaTransformation } from "effect"
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

  it("moves no default from a renamed field's type side whose hand-written JSON Schema leaves its default undefined", () => {
    const renamed = Schema.Struct({ n: Schema.NumberFromString.annotate({ jsonSchema: { type: "string", default: undefined } }) }).pipe(
      Schema.encodeKeys({ n: "m" })
    )
    expect(parametersJsonSchema(renamed).properties).toStrictEqual({ m: { type: "string" } })
  })

  it("writes no default for a field without one, even when its schema encodes a missing value as JSON", () => {
    const none = Schema.String.pipe(Schema.decodeTo(
      Schema.Undefined,
      SchemaTransformation.transform<undefined, string>({ decode: () => undefined, encode: () => "none" })
    )).annotate({ description: "nothing" })
    expect(parametersJsonSchema(Schema.Struct({ f: none })).properties).toStrictEqual({ f: { type: "string", description: "nothing" } })
  })

  it("does not require a field whose encoded side may be undefined", () => {
    const text = Schema.UndefinedOr(Schema.String).pipe(Schema.decodeTo(
      Schema.String,
      SchemaTransformation.transform<string, string | undefined>({ decode: (s) => s ?? "", encode: (s) => s })
    ))
    expect(parametersJsonSchema(Schema.Struct({ f: text, g: Schema.String }))).toStrictEqual({
      type: "object",
      required: ["g"],
      properties: { f: { type: "string" }, g: { type: "string" } },
      additionalProperties: false
    })
  })

  it("keeps every other member of a union whose nested union may be undefined, and does not require the field", () => {
    expect(parametersJsonSchema(Schema.Struct({ f: Schema.Union([Schema.UndefinedOr(Schema.String), Schema.Number]) }))).toStrictEqual({
      type: "object",
      required: [],
      properties: { f: { anyOf: [{ type: "string" }, { type: "number" }] } },
      additionalProperties: false
    })
  })

  it("adds no member's key descriptions to a hand-written JSON Schema of a union of several members", () => {
    const written = { type: "object", properties: { a: { type: "string" } } }
    const union = Schema.Union([Schema.Struct({ a: Schema.String.annotateKey({ description: "A" }) }), Schema.Number]).annotate({
      jsonSchema: written
    })
    expect(parametersJsonSchema(Schema.Struct({ f: union })).properties).toStrictEqual({ f: written })
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

  it("reads a decoding default's struct on its type side without refusing the fields that have no JSON Schema there", () => {
    const key = Symbol.for("k")
    const schema = Schema.Struct({
      d: Schema.Number.pipe(Schema.withDecodingDefaultType(Effect.succeed(1))),
      s: Schema.String.pipe(Schema.decodeTo(Schema.suspend(() => Schema.String), SchemaTransformation.transform<string, string>({
        decode: (s) => s,
        encode: (s) => s
      }))),
      l: Schema.String.pipe(Schema.decodeTo(Schema.Literal(1n), SchemaTransformation.transform<1n, string>({ decode: () => 1n, encode: () => "1" }))),
      t: Schema.String.pipe(Schema.decodeTo(
        Schema.TupleWithRest(Schema.Tuple([]), [Schema.Number, Schema.Boolean]),
        SchemaTransformation.transform<readonly [...ReadonlyArray<number>, boolean], string>({ decode: () => [true], encode: () => "" })
      )),
      k: Schema.String.pipe(Schema.decodeTo(
        Schema.Struct({ [key]: Schema.String }),
        SchemaTransformation.transform<{ readonly [key]: string }, string>({ decode: (s) => ({ [key]: s }), encode: (o) => o[key] })
      ))
    })
    expect(parametersJsonSchema(schema)).toStrictEqual({
      type: "object",
      required: ["s", "l", "t", "k"],
      properties: {
        d: { type: "number", default: 1 },
        s: { type: "string" },
        l: { type: "string" },
        t: { type: "string" },
        k: { type: "string" }
      },
      additionalProperties: false
    })
  })

  it("moves a renamed field's type-side annotations to its encoded name also when the struct has an identifier", () => {
    const renamed = Schema.Struct({ n: Schema.NumberFromString.annotate({ default: 2, description: "D" }) })
      .annotate({ identifier: "Renamed" })
      .pipe(Schema.encodeKeys({ n: "m" }))
    expect(parametersJsonSchema(Schema.Struct({ o: renamed })).properties).toStrictEqual({
      o: { type: "object", required: ["m"], properties: { m: { type: "string", description: "D", default: "2" } }, additionalProperties: false }
    })
  })

  it("leaves a hand-written JSON Schema of a struct's encoded side as it is, when it has no properties or is no object", () => {
    const rename = SchemaTransformation.transform<{ readonly b: string }, { readonly a: string }>({
      decode: ({ a }) => ({ b: a }),
      encode: ({ b }) => ({ a: b })
    })
    const text = Schema.String.annotate({ description: "a text" })
    const written = (jsonSchema: object) =>
      Schema.Struct({ a: text }).annotate({ jsonSchema }).pipe(Schema.decodeTo(Schema.Struct({ b: text }), rename))
    const anyObject = { type: "object" }
    const notObject = { anyOf: [{ type: "object" }], properties: { a: { type: "string" } } }
    expect(parametersJsonSchema(Schema.Struct({ o: written(anyObject), p: written(notObject) })).properties).toStrictEqual({
      o: anyObject,
      p: notObject
    })
  })
})
