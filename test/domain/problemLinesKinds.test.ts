/**
 * The argument problem lines of each kind of decode issue a model can get back: unknown elements
 * and keys with what was expected instead, checks (the first failed one, a check's kind of
 * value), an array's length beside its items but not a struct's, union members by their
 * discriminators (in structs, tuples, with `null`, several per member), a union's own name, a
 * member whose decoding dies passed over, `oneOf` unions, and the values a transformation refuses
 * or forbids.
 */
import { describe, expect, it } from "@effect/vitest"
import { Option, Result, Schema, SchemaGetter, SchemaIssue } from "effect"
import { argumentParseOptions, issuesOf } from "../../src/domain/argumentLimits.js"

const lines = (schema: Schema.Codec<unknown, unknown>, input: unknown) => {
  const decoded = Schema.decodeUnknownResult(schema, argumentParseOptions)(input)
  return Result.isSuccess(decoded) ? "decoded" : issuesOf(decoded.failure).map((i) => `${i.path.join(".")}: ${i.message}`)
}

/** A string schema whose decoding runs `getter`. */
const decodedBy = (getter: SchemaGetter.Getter<string, string>) =>
  Schema.String.pipe(Schema.decode({ decode: getter, encode: SchemaGetter.passthrough() }))

describe("unknown elements and keys", () => {
  it("a tuple names the indexes it takes, or never when it takes none", () => {
    expect(lines(Schema.Tuple([Schema.String, Schema.Number]), ["a", 1, true])).toEqual([
      "2: unknown property; expected one of: 0 | 1"
    ])
    expect(lines(Schema.Tuple([Schema.String]), ["a", 1])).toEqual(["1: unknown property; expected one of: 0"])
    expect(lines(Schema.Tuple([]), [1])).toEqual(["0: unknown property; expected one of: never"])
  })

  it("a record names its key type beside the named fields", () => {
    expect(lines(Schema.Record(Schema.String.check(Schema.isMinLength(2)), Schema.Number), { a: 1 })).toEqual([
      "a: unknown property; expected one of: minLength(2)"
    ])
    const withRest = Schema.StructWithRest(Schema.Struct({ n: Schema.Number }), [
      Schema.Record(Schema.TemplateLiteral(["x", Schema.String]), Schema.Number)
    ])
    expect(lines(withRest, { n: 1, y: 2 })).toEqual(["y: unknown property; expected one of: `x${string}` | \"n\""])
  })
})

describe("checks", () => {
  it("only the first failed check of a value, and a check without a description by the kind of value it got", () => {
    expect(lines(Schema.String.check(Schema.isMinLength(3), Schema.isPattern(/x/)), "ab")).toEqual([
      ": Expected a string at least 3 character(s) long, actual \"ab\""
    ])
    expect(lines(Schema.String.check(Schema.makeFilter((s) => s.length > 3)), "ab")).toEqual([": Expected { string | filter }, actual \"ab\""])
    expect(lines(Schema.Array(Schema.Number).check(Schema.makeFilter(() => false)), [1])).toEqual([
      ": Expected { ReadonlyArray<unknown> | filter }, actual [1]"
    ])
  })

  it("an array's failed length follows its items' problems, a length it has does not, and a struct's length is not added", () => {
    const atLeast = (n: number) => Schema.Array(Schema.Number).check(Schema.isMinLength(n))
    expect(lines(atLeast(3), ["a"])).toEqual([
      "0: Expected number, actual \"a\"",
      ": Expected an array of at least 3 item(s), actual [\"a\"]"
    ])
    expect(lines(atLeast(1), ["a"])).toEqual(["0: Expected number, actual \"a\""])
    expect(lines(Schema.Array(Schema.Number).check(Schema.isUnique()), ["a", "a"])).toEqual([
      "0: Expected number, actual \"a\"",
      "1: Expected number, actual \"a\""
    ])
    const sized = Schema.Struct({ length: Schema.Number, x: Schema.String }).check(Schema.isMinLength(2))
    expect(lines(sized, { length: 1, x: 5 })).toEqual(["x: Expected string, actual 5"])
  })
})

describe("an issue of several problems", () => {
  it("lists each problem when they are not all failed checks", () => {
    const text = Schema.String.check(Schema.isMinLength(3))
    const filter = Schema.isMinLength(3)
    const failedCheck = new SchemaIssue.Filter(filter, new SchemaIssue.InvalidValue(undefined, "ab", argumentParseOptions), "ab", argumentParseOptions)
    const wrongType = new SchemaIssue.Pointer(["n"], new SchemaIssue.InvalidType(Schema.Number.ast, "x", argumentParseOptions))
    expect(issuesOf(new SchemaIssue.Composite(text.ast, [failedCheck, wrongType], "ab", argumentParseOptions))).toEqual([
      { path: [], message: "Expected a string at least 3 character(s) long, actual \"ab\"" },
      { path: ["n"], message: "Expected number, actual \"x\"" }
    ])
  })
})

describe("unions", () => {
  const tagged = Schema.Union([Schema.Struct({ type: Schema.Literal("a") }), Schema.Struct({ type: Schema.Literal("b") })])

  it("a value that is no object: the union by its own name when it has one", () => {
    expect(lines(tagged.annotate({ description: "a shape" }), 5)).toEqual([": Expected a shape, actual 5"])
    expect(lines(tagged.annotate({ identifier: "Shape" }), 5)).toEqual([": Expected Shape, actual 5"])
  })

  it("a missing discriminator is missing", () => {
    expect(lines(tagged, {})).toEqual(["type: is missing"])
  })

  it("tuples are told apart by their literal elements, not optional ones", () => {
    const pairs = Schema.Union([Schema.Tuple([Schema.Literal("a"), Schema.Number]), Schema.Tuple([Schema.Literal("b"), Schema.String])])
    expect(lines(pairs, ["c", 1])).toEqual([": Expected readonly [\"a\", number] | readonly [\"b\", string], actual [\"c\",1]"])
    const optional = Schema.Union([Schema.Tuple([Schema.optionalKey(Schema.Literal(1))]), Schema.Tuple([Schema.Literal("b")])])
    expect(lines(optional, ["c"])).toEqual([
      ": Expected readonly [\"b\"], actual [\"c\"]",
      "0: Expected 1, actual \"c\""
    ])
  })

  it("null is a discriminator value too", () => {
    const nullable = Schema.Union([Schema.Struct({ k: Schema.Null, a: Schema.Number }), Schema.Struct({ k: Schema.Literal("x") })])
    expect(lines(nullable, { k: 3 })).toEqual(["k: Expected null | \"x\", actual 3"])
  })

  it("members with two discriminators: each key's values, and the members a value leads to", () => {
    const two = Schema.Union([
      Schema.Struct({ t: Schema.Literal("a"), u: Schema.Literal("x") }),
      Schema.Struct({ t: Schema.Literal("a"), u: Schema.Literal("y") }),
      Schema.Struct({ t: Schema.Literal("b"), u: Schema.Literal("y") })
    ])
    expect(lines(two, { t: "c", u: "z" })).toEqual(["t: Expected \"a\" | \"b\", actual \"c\"", "u: Expected \"y\", actual \"z\""])
    expect(lines(two, { t: "a", u: "z" })).toEqual(["u: Expected \"y\", actual \"z\"", "u: Expected \"x\", actual \"z\""])
  })

  it("members that share a discriminator value are each tried", () => {
    const shared = Schema.Union([
      Schema.Struct({ t: Schema.Literal("a"), x: Schema.Number }),
      Schema.Struct({ t: Schema.Literal("a"), y: Schema.String })
    ])
    expect(lines(shared, { t: "a" })).toEqual(["x: is missing", "y: is missing"])
  })

  it("a member whose decoding dies on the value is named with why, beside the other members' problems", () => {
    const dying = Schema.String.pipe(Schema.decode({
      decode: SchemaGetter.transform((s: string): string => {
        throw new Error(`cannot read ${s}`)
      }),
      encode: SchemaGetter.passthrough()
    }))
    const union = Schema.Union([
      Schema.Struct({ t: Schema.Literal("a"), u: Schema.Literal("x"), n: dying }),
      Schema.Struct({ t: Schema.Literal("b"), u: Schema.Literal("y") }),
      Schema.String
    ])
    expect(lines(union, { t: "a", u: "y", n: "q" })).toEqual([
      ": Expected { readonly t: \"a\"; readonly u: \"x\"; readonly n: (string <-> string) }, but decoding it failed: cannot read q",
      ": Expected string, actual {\"t\":\"a\",\"u\":\"y\",\"n\":\"q\"}"
    ])
    // the only member its tag leaves: without that line there would be no reason at all
    const tagged = Schema.Union([
      Schema.Struct({ t: Schema.Literal("a"), u: Schema.Literal("x"), n: dying }),
      Schema.Struct({ t: Schema.Literal("b"), u: Schema.Literal("y") })
    ])
    expect(lines(tagged, { t: "a", u: "y", n: "q" })).toEqual([
      ": Expected { readonly t: \"a\"; readonly u: \"x\"; readonly n: (string <-> string) }, but decoding it failed: cannot read q"
    ])
  })

  it("oneOf: a value two members take, and one no member takes", () => {
    const either = Schema.Union([Schema.String, Schema.String.check(Schema.isMinLength(1))], { mode: "oneOf" })
    expect(lines(either, "ab")).toEqual([": Expected exactly one member to match the input \"ab\""])
    expect(lines(Schema.Union([Schema.String, Schema.Number], { mode: "oneOf" }), true)).toEqual([
      ": Expected string, actual true",
      ": Expected number, actual true"
    ])
  })

  it("a union's issue without the input: its members' problems, else the union expected", () => {
    const union = Schema.Union([Schema.String, Schema.Number]).ast
    expect(issuesOf(new SchemaIssue.AnyOf(union, []))).toEqual([{ path: [], message: "Expected string | number" }])
    expect(issuesOf(new SchemaIssue.AnyOf(union, [new SchemaIssue.InvalidType(Schema.String.ast)]))).toEqual([
      { path: [], message: "Expected string" }
    ])
    expect(issuesOf(new SchemaIssue.OneOf(union, [Schema.String.ast, Schema.Number.ast]))).toEqual([
      { path: [], message: "Expected exactly one member to match" }
    ])
  })
})

describe("values a transformation refuses", () => {
  it("an invalid value: its own message, else the value, else just invalid", () => {
    const invalid = (annotations: SchemaIssue.InvalidValue["annotations"], withInput: boolean) =>
      decodedBy(SchemaGetter.fail((input, options) =>
        withInput ? new SchemaIssue.InvalidValue(annotations, Option.getOrUndefined(input), options) : new SchemaIssue.InvalidValue(annotations)
      ))
    expect(lines(invalid({ message: "bad value" }, true), "a")).toEqual([": bad value"])
    expect(lines(invalid(undefined, true), "a")).toEqual([": Invalid data \"a\""])
    expect(lines(invalid(undefined, false), "a")).toEqual([": Invalid data"])
  })

  it("a forbidden value: its own message, else forbidden", () => {
    expect(lines(decodedBy(SchemaGetter.forbidden(() => "no way")), "a")).toEqual([": no way"])
    expect(lines(decodedBy(SchemaGetter.fail(() => new SchemaIssue.Forbidden(undefined))), "a")).toEqual([": is forbidden"])
  })
})
