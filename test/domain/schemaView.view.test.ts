/**
 * The shape schemaView.ts's `view` rebuilds from an Effect 4 schema, as Effect 3 built it: a
 * refinement per check (the last check outermost, `isInt` for an integer check, an array's
 * lengths as items), a transformation per encoding (with the node's annotations unless checks
 * took them), a struct whose keys change between sides (`encodeKeys`, decoding defaults) with
 * its renamed fields and their defaults, a struct with decoding defaults as Effect 3's two
 * sides; each node kind's tag; `encodedNode`; and one view per node.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, Schema, SchemaGetter } from "effect"
import { encodedNode, noAnnotations, type View, view } from "../../src/domain/schemaView.js"

/** A view without its Effect 4 nodes and functions, the defaults a missing key decodes to as values. */
const shape = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(shape)
  if (typeof v !== "object" || v === null) return v
  return Object.fromEntries(
    Object.entries(v).filter(([k]) => k !== "ast" && k !== "f").map((
      [k, x]
    ) => [k, k === "missingDefault" && typeof x === "function" ? Option.getOrElse(x(), () => "<none>") : shape(x)])
  )
}

const of = (schema: Schema.Top): View => view(schema.ast)

const keyword = (tag: string, annotations: object = {}) => ({ _tag: tag, annotations })

describe("view: checks and encodings", () => {
  it("one view per node: the same view each time", () => {
    const ast = Schema.String.check(Schema.isMinLength(1)).ast
    expect(view(ast)).toBe(view(ast))
  })

  it("checks as refinements, the last outermost; isInt only for an integer check", () => {
    expect(shape(of(Schema.Int.check(Schema.isGreaterThan(1))))).toStrictEqual({
      _tag: "Refinement",
      from: {
        _tag: "Refinement",
        from: keyword("NumberKeyword"),
        annotations: { title: "int", description: "an integer", jsonSchema: { type: "integer" }, identifier: "Int" },
        isInt: true
      },
      annotations: { title: "greaterThan(1)", description: "a number greater than 1", jsonSchema: { exclusiveMinimum: 1 } },
      isInt: false
    })
    // both refinements stand for the node with all its checks
    const ast = Schema.Int.check(Schema.isGreaterThan(1)).ast
    const v = view(ast)
    expect(v.ast).toBe(ast)
    expect(v._tag === "Refinement" && v.from.ast).toBe(ast)
  })

  it("an array's length checks are about items, a string's about characters", () => {
    expect(of(Schema.Array(Schema.String).check(Schema.isMinLength(2))).annotations.title).toBe("minItems(2)")
    expect(of(Schema.Tuple([Schema.String]).check(Schema.isMaxLength(2))).annotations.title).toBe("maxItems(2)")
    expect(of(Schema.String.check(Schema.isMinLength(2))).annotations.title).toBe("minLength(2)")
  })

  it("an encoding: a transformation from the encoded side to the body, with the node's annotations", () => {
    expect(shape(of(Schema.NumberFromString.annotate({ title: "N" })))).toStrictEqual({
      _tag: "Transformation",
      from: keyword("StringKeyword", { expected: "a string that will be decoded as a number" }),
      to: keyword("NumberKeyword", { title: "N" }),
      annotations: { title: "N" },
      properties: undefined
    })
    // with checks, the annotations given after them are the checks', those before them the body's
    const checked = of(Schema.NumberFromString.annotate({ title: "Body" }).check(Schema.isGreaterThan(1)))
    expect(checked._tag).toBe("Refinement")
    if (checked._tag !== "Refinement" || checked.from._tag !== "Transformation") throw new Error("not a refined transformation")
    expect(checked.from.annotations).toBe(noAnnotations)
    expect(checked.from.to.annotations).toStrictEqual({ title: "Body" })
  })

  it("encodedNode: the end of a node's encoding chain", () => {
    const twice = Schema.NumberFromString.pipe(
      Schema.decodeTo(Schema.Boolean, { decode: SchemaGetter.transform((n: number) => n > 0), encode: SchemaGetter.transform((b: boolean) => (b ? 1 : 0)) })
    )
    expect(encodedNode(twice.ast)._tag).toBe("String")
    expect(encodedNode(Schema.NumberFromString.ast)._tag).toBe("String")
    const plain = Schema.Number.ast
    expect(encodedNode(plain)).toBe(plain)
  })
})

describe("view: structs whose keys change between sides", () => {
  it("renamed keys: the type side's fields found on the encoded side, with the ones that change", () => {
    const renamed = Schema.Struct({
      a: Schema.String,
      b: Schema.optionalKey(Schema.Number),
      c: Schema.Boolean,
      d: Schema.Number.pipe(Schema.withDecodingDefaultKey(Effect.succeed(3)))
    }).pipe(Schema.encodeKeys({ a: "x", b: "y" }))
    const v = of(renamed)
    if (v._tag !== "Transformation") throw new Error("not a transformation")
    expect(shape(v.properties)).toStrictEqual([
      { from: "x", to: "a", missingDefault: "<none>" },
      { from: "y", to: "b", missingDefault: "<none>" },
      { from: "d", to: "d", missingDefault: 3 }
    ])
    expect(v.from._tag === "TypeLiteral" && v.from.propertySignatures.map((ps) => ps.name)).toStrictEqual(["x", "y", "c", "d"])
  })

  it("an encoding to something else than a struct has no renamed fields", () => {
    const json = Schema.fromJsonString(Schema.Struct({ a: Schema.Number }))
    const v = of(json)
    expect(v._tag === "Transformation" && v.properties).toBeUndefined()
  })

  it("a decoding default: Effect 3's struct transformation, its sides named, key annotations on the type side only", () => {
    const defaulted = Schema.Struct({
      a: Schema.String.pipe(Schema.withDecodingDefaultKey(Effect.succeed("d"))).annotateKey({ description: "A" }),
      b: Schema.Number.annotateKey({ description: "B" }),
      r: Schema.optionalKey(Schema.Number),
      // an encoding that keeps its key: itself on the encoded side, its type on the type side
      n: Schema.NumberFromString
    })
    expect(shape(of(defaulted))).toStrictEqual({
      _tag: "Transformation",
      from: {
        _tag: "TypeLiteral",
        propertySignatures: [
          { name: "a", type: keyword("StringKeyword"), isOptional: true, annotations: {} },
          { name: "b", type: keyword("NumberKeyword"), isOptional: false, annotations: {} },
          { name: "r", type: keyword("NumberKeyword"), isOptional: true, annotations: {} },
          {
            name: "n",
            type: {
              _tag: "Transformation",
              from: keyword("StringKeyword", { expected: "a string that will be decoded as a number" }),
              to: keyword("NumberKeyword"),
              annotations: {},
              properties: undefined
            },
            isOptional: false,
            annotations: {}
          }
        ],
        indexSignatures: [],
        annotations: { autoTitle: "Struct (Encoded side)" }
      },
      to: {
        _tag: "TypeLiteral",
        propertySignatures: [
          { name: "a", type: keyword("StringKeyword"), isOptional: false, annotations: { description: "A" } },
          { name: "b", type: keyword("NumberKeyword"), isOptional: false, annotations: { description: "B" } },
          { name: "r", type: keyword("NumberKeyword"), isOptional: true, annotations: {} },
          { name: "n", type: keyword("NumberKeyword"), isOptional: false, annotations: {} }
        ],
        indexSignatures: [],
        annotations: { autoTitle: "Struct (Type side)" }
      },
      annotations: {},
      properties: [{ from: "a", to: "a", missingDefault: "d" }]
    })
  })

  it("a struct without changing keys is a plain type literal, its records as index signatures", () => {
    const record = Schema.StructWithRest(Schema.Struct({ n: Schema.optionalKey(Schema.Number).annotateKey({ title: "N" }) }), [
      Schema.Record(Schema.String, Schema.Boolean)
    ])
    expect(shape(of(record.annotate({ description: "R" })))).toStrictEqual({
      _tag: "TypeLiteral",
      propertySignatures: [{ name: "n", type: keyword("NumberKeyword"), isOptional: true, annotations: { title: "N" } }],
      indexSignatures: [{ parameter: keyword("StringKeyword"), type: keyword("BooleanKeyword") }],
      annotations: { description: "R" }
    })
  })
})

describe("view: each node kind", () => {
  it("tuples: elements with their key annotations, a rest without", () => {
    const tuple = Schema.TupleWithRest(Schema.Tuple([Schema.String.annotateKey({ description: "E" }), Schema.optionalKey(Schema.Number)]), [
      Schema.Boolean.annotate({ title: "B" })
    ])
    expect(shape(of(tuple))).toStrictEqual({
      _tag: "TupleType",
      elements: [
        { type: keyword("StringKeyword"), isOptional: false, annotations: { description: "E" } },
        { type: keyword("NumberKeyword"), isOptional: true, annotations: {} }
      ],
      rest: [{ type: keyword("BooleanKeyword", { title: "B" }), annotations: {} }],
      annotations: {}
    })
  })

  it("keywords, literals (null one of them), enums, unique symbols, declarations, unions, suspensions", () => {
    const cases: ReadonlyArray<readonly [Schema.Top, string]> = [
      [Schema.String, "StringKeyword"],
      [Schema.Number, "NumberKeyword"],
      [Schema.Boolean, "BooleanKeyword"],
      [Schema.Undefined, "UndefinedKeyword"],
      [Schema.Void, "VoidKeyword"],
      [Schema.Never, "NeverKeyword"],
      [Schema.Unknown, "UnknownKeyword"],
      [Schema.Any, "AnyKeyword"],
      [Schema.BigInt, "BigIntKeyword"],
      [Schema.Symbol, "SymbolKeyword"],
      [Schema.ObjectKeyword, "ObjectKeyword"],
      [Schema.UniqueSymbol(Symbol.for("u")), "UniqueSymbol"],
      [Schema.Date, "Declaration"],
      [Schema.Literal("a"), "Literal"],
      [Schema.Null, "Literal"],
      [Schema.Enum({ A: "a" }), "Enums"],
      [Schema.TemplateLiteral(["a", Schema.String]), "TemplateLiteral"],
      [Schema.Union([Schema.String, Schema.Number]), "Union"],
      [Schema.suspend(() => Schema.String), "Suspend"]
    ]
    // each on a node of its own: a schema's shared node (`Schema.Unknown`'s) may have been viewed before
    expect(cases.map(([schema]) => of(schema.annotate({ description: "fresh" }))._tag)).toStrictEqual(cases.map(([, tag]) => tag))
    expect(shape(of(Schema.Null))).toStrictEqual({ _tag: "Literal", literal: null, annotations: {} })
    expect(shape(of(Schema.Literal(2).annotate({ title: "Two" })))).toStrictEqual({ _tag: "Literal", literal: 2, annotations: { title: "Two" } })
    expect(shape(of(Schema.Enum({ A: "a", B: 1 })))).toStrictEqual({ _tag: "Enums", enums: [["A", "a"], ["B", 1]], annotations: {} })
    expect(shape(of(Schema.Union([Schema.String, Schema.Literal(1)])))).toStrictEqual({
      _tag: "Union",
      types: [keyword("StringKeyword"), { _tag: "Literal", literal: 1, annotations: {} }],
      annotations: {}
    })
    const lazy = of(Schema.suspend(() => Schema.Number.annotate({ title: "Inner" })))
    expect(lazy._tag === "Suspend" && shape(lazy.f())).toStrictEqual(keyword("NumberKeyword", { title: "Inner" }))
  })
})
