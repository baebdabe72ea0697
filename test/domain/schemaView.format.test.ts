/**
 * Effect 3's text of a schema (schemaViewText.ts's `format`, over schemaView.ts's view), as a
 * model reads it after "Expected": each kind of node bare, then named (an `identifier` first, a
 * `title`, a `description`), with its brands; a check over another; a tuple with its rest and
 * the elements after it; and the `typeOf` / `baseOf` a value's type is first checked against.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { BrandsAnnotationId, format, typeOf, view } from "../../src/domain/schemaView.js"
import { baseOf } from "../../src/domain/schemaViewText.js"

const text = (schema: Schema.Top): string => format(view(schema.ast))

describe("keywords", () => {
  it("each keyword's own name", () => {
    expect([
      Schema.String,
      Schema.Number,
      Schema.Boolean,
      Schema.Undefined,
      Schema.Void,
      Schema.Never,
      Schema.Unknown,
      Schema.Any,
      Schema.BigInt,
      Schema.Symbol,
      Schema.ObjectKeyword
    ].map(text)).toStrictEqual(["string", "number", "boolean", "undefined", "void", "never", "unknown", "any", "bigint", "symbol", "object"])
  })

  it("an identifier, else a title, is a keyword's name; a description does not replace it; brands follow", () => {
    expect(text(Schema.String.annotate({ identifier: "Id", title: "T" }))).toBe("Id")
    expect(text(Schema.String.annotate({ title: "T", description: "D" }))).toBe("T")
    expect(text(Schema.Number.annotate({ description: "D" }))).toBe("number")
    expect(text(Schema.String.annotate({ [BrandsAnnotationId]: ["a", "b"] }))).toBe("string & Brand<\"a\"> & Brand<\"b\">")
    expect(text(Schema.String.annotate({ title: "Path", [BrandsAnnotationId]: ["p"] }))).toBe("Path & Brand<\"p\">")
    // an identifier is the whole name, without brands; brands not in a list are none
    expect(text(Schema.String.annotate({ identifier: "Id", [BrandsAnnotationId]: ["a"] }))).toBe("Id")
    expect(text(Schema.String.annotate({ [BrandsAnnotationId]: "a" }))).toBe("string")
    // a name that is not text is none
    expect(text(Schema.String.annotate({ identifier: 1, title: 2 } as never))).toBe("string")
    expect(text(Schema.Struct({ a: Schema.Number }).annotate({ identifier: 1, title: 2, description: 3 } as never))).toBe(
      "{ readonly a: number }"
    )
  })
})

describe("literals, enums, template literals, symbols, declarations", () => {
  it("a literal as its value is shown; null is one", () => {
    expect([Schema.Literal("a"), Schema.Literal(1), Schema.Literal(true), Schema.Literal(2n), Schema.Null].map(text)).toStrictEqual([
      "\"a\"",
      "1",
      "true",
      "2n",
      "null"
    ])
    expect(text(Schema.Literal("a").annotate({ title: "The a" }))).toBe("The a")
  })

  it("an enum lists its values", () => {
    expect(text(Schema.Enum({ A: "a", B: 1 }))).toBe("<enum 2 value(s): \"a\" | 1>")
    expect(text(Schema.Enum({ A: "a" }).annotate({ identifier: "Letters" }))).toBe("Letters")
  })

  it("a template literal as TypeScript writes it", () => {
    expect(text(Schema.TemplateLiteral(["a", Schema.Number, "-", Schema.String]))).toBe("`a${number}-${string}`")
    expect(text(Schema.TemplateLiteral(["id:", Schema.Literals(["x", "y"])]))).toBe("`id:${\"x\" | \"y\"}`")
    expect(text(Schema.TemplateLiteral([Schema.String]).annotate({ description: "Any" }))).toBe("Any")
  })

  it("a unique symbol as its symbol, a declaration as what it expects", () => {
    expect(text(Schema.UniqueSymbol(Symbol.for("u")))).toBe("Symbol(u)")
    expect(text(Schema.UniqueSymbol(Symbol.for("u")).annotate({ title: "U" }))).toBe("U")
    expect(text(Schema.Date)).toBe("a valid Date")
    expect(text(Schema.declare((u): u is Set<unknown> => u instanceof Set))).toBe("<declaration schema>")
    expect(text(Schema.declare((u): u is Set<unknown> => u instanceof Set, { expected: 5 } as never))).toBe("<declaration schema>")
    expect(text(Schema.Date.annotate({ identifier: "When" }))).toBe("When")
  })
})

describe("structs and records", () => {
  it("its fields, optional ones marked, then its index signatures; no fields: {}", () => {
    expect(text(Schema.Struct({ a: Schema.String, b: Schema.optionalKey(Schema.Number) }))).toBe("{ readonly a: string; readonly b?: number }")
    expect(text(Schema.Record(Schema.String, Schema.Number))).toBe("{ readonly [x: string]: number }")
    expect(text(Schema.StructWithRest(Schema.Struct({ a: Schema.Boolean }), [Schema.Record(Schema.String, Schema.Boolean)]))).toBe(
      "{ readonly a: boolean; readonly [x: string]: boolean }"
    )
    expect(text(Schema.Struct({}))).toBe("{}")
    const s = Symbol.for("key")
    expect(text(Schema.Struct({ [s]: Schema.String }))).toBe("{ readonly Symbol(key): string }")
  })

  it("named by its identifier, title or description", () => {
    const fields = { a: Schema.String }
    expect(text(Schema.Struct(fields).annotate({ identifier: "I", title: "T" }))).toBe("I")
    expect(text(Schema.Struct(fields).annotate({ title: "T", description: "D" }))).toBe("T")
    expect(text(Schema.Struct(fields).annotate({ description: "D" }))).toBe("D")
    expect(text(Schema.Struct(fields).annotate({ description: "D", [BrandsAnnotationId]: ["x"] }))).toBe("D & Brand<\"x\">")
  })

  it("a struct with a decoding default: Effect 3's two sides; renamed keys: both sides written out", () => {
    const defaulted = Schema.Struct({ a: Schema.String.pipe(Schema.withDecodingDefault(Effect.succeed("x"))) })
    expect(text(defaulted)).toBe("(Struct (Encoded side) <-> Struct (Type side))")
    expect(text(defaulted.annotate({ title: "Opts" }))).toBe("Opts")
    expect(text(Schema.Struct({ a: Schema.String }).pipe(Schema.encodeKeys({ a: "b" })))).toBe(
      "({ readonly b: string } <-> { readonly a: string })"
    )
  })
})

describe("tuples and arrays", () => {
  it("elements, optional ones marked; a rest alone is a ReadonlyArray", () => {
    expect(text(Schema.Tuple([Schema.String, Schema.optionalKey(Schema.Number)]))).toBe("readonly [string, number?]")
    expect(text(Schema.Tuple([]))).toBe("readonly []")
    expect(text(Schema.Array(Schema.String))).toBe("ReadonlyArray<string>")
    expect(text(Schema.Array(Schema.Union([Schema.String, Schema.Number])))).toBe("ReadonlyArray<string | number>")
    expect(text(Schema.Array(Schema.String).annotate({ title: "Names" }))).toBe("Names")
  })

  it("a rest after elements, and elements after a rest; a union as a rest is put in parentheses", () => {
    expect(text(Schema.TupleWithRest(Schema.Tuple([Schema.String]), [Schema.Number]))).toBe("readonly [string, ...number[]]")
    expect(text(Schema.TupleWithRest(Schema.Tuple([Schema.String]), [Schema.Union([Schema.String, Schema.Number])]))).toBe(
      "readonly [string, ...(string | number)[]]"
    )
    expect(text(Schema.TupleWithRest(Schema.Tuple([Schema.String]), [Schema.Number, Schema.Boolean, Schema.Null]))).toBe(
      "readonly [string, ...number[], boolean, null]"
    )
    expect(text(Schema.TupleWithRest(Schema.Tuple([]), [Schema.Union([Schema.String, Schema.Number]), Schema.Boolean]))).toBe(
      "readonly [...(string | number)[], boolean]"
    )
  })
})

describe("unions, recursion, checks, encodings", () => {
  it("a union's members joined, unless it is named", () => {
    expect(text(Schema.Union([Schema.String, Schema.Literal(1)]))).toBe("string | 1")
    expect(text(Schema.Union([Schema.String, Schema.Number]).annotate({ identifier: "StrOrNum" }))).toBe("StrOrNum")
  })

  it("a suspended schema is not expanded", () => {
    const Tree = Schema.suspend((): Schema.Codec<unknown> => Schema.Array(Tree))
    expect(text(Tree)).toBe("<suspended schema>")
    expect(text(Schema.suspend(() => Schema.String).annotate({ title: "Lazy" }))).toBe("Lazy")
  })

  it("a check: its identifier, its title or description, else the filtered type; a check over another names both", () => {
    expect(text(Schema.String.check(Schema.isMinLength(1)))).toBe("minLength(1)")
    expect(text(Schema.Int)).toBe("Int")
    expect(text(Schema.Int.check(Schema.isGreaterThan(2)))).toBe("Int & greaterThan(2)")
    expect(text(Schema.String.check(Schema.makeFilter(() => true)))).toBe("{ string | filter }")
    expect(text(Schema.String.check(Schema.makeFilter(() => true), Schema.makeFilter(() => true)))).toBe(
      "{ { string | filter } | filter }"
    )
    expect(text(Schema.String.check(Schema.makeFilter(() => true, { identifier: "Checked" })))).toBe("Checked")
    expect(text(Schema.String.check(Schema.isMinLength(1), Schema.makeFilter(() => true, { identifier: "Checked" })))).toBe("Checked")
    expect(text(Schema.String.check(Schema.makeFilter(() => true, { description: "D" })))).toBe("D")
  })

  it("an encoding: both sides, unless the schema is named", () => {
    expect(text(Schema.NumberFromString)).toBe("(string <-> number)")
    expect(text(Schema.NumberFromString.annotate({ title: "N" }))).toBe("N")
  })
})

describe("typeOf and baseOf", () => {
  it("what a value's type is checked against first: the body under the checks and the encoding", () => {
    expect(format(typeOf(Schema.Int.ast))).toBe("number")
    // annotations given before the checks are the body's, those after them the last check's
    expect(format(typeOf(Schema.String.annotate({ title: "T" }).check(Schema.isMinLength(1)).ast))).toBe("T")
    expect(format(typeOf(Schema.String.check(Schema.isMinLength(1)).annotate({ title: "T" }).ast))).toBe("string")
    const defaulted = Schema.Struct({ a: Schema.String.pipe(Schema.withDecodingDefault(Effect.succeed("x"))) })
    expect(format(typeOf(defaulted.ast))).toBe("Struct (Encoded side)")
    expect(format(baseOf(view(Schema.NumberFromString.check(Schema.isGreaterThan(1)).ast)))).toBe("string")
    expect(format(baseOf(view(Schema.Int.check(Schema.isLessThan(9)).ast)))).toBe("number")
  })
})
