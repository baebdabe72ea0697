/**
 * The title, description and JSON Schema keywords Effect 3 gave each built-in check
 * (schemaCheckText.ts's `checkAnnotations`), key for key: the bounds with their zero names
 * (`positive`, `nonNegative`, ...), a length of a string told from one of an array, the string
 * checks' patterns, `Schema.Int`'s and its like's identifiers, a check's own annotations over
 * Effect 3's texts, a payload that is missing or holds a number as text; then `filtersOf`
 * (a group's members in order) and `filterExpected` (what a refused value was expected to be).
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema, SchemaAST } from "effect"
import { checkAnnotations, filterExpected, filtersOf } from "../../src/domain/schemaView.js"

/** The annotations of a schema's checks, in order (`isArray`: the checked value is an array). */
const texts = (schema: Schema.Top, isArray = false) => filtersOf(schema.ast.checks).map((c) => checkAnnotations(c, isArray))

/** The annotations of one check. */
const text = (check: SchemaAST.Filter<any>, isArray = false) => checkAnnotations(check, isArray)

/** A check that passes everything, with the representation of a built-in one. */
const represented = (id: string, payload: unknown) =>
  Schema.makeFilter(() => true, { representation: { id, payload } } as Schema.Annotations.Filter)

describe("number bounds", () => {
  it("a bound of 0 has Effect 3's own name; any other bound its value", () => {
    expect(texts(Schema.Number.check(Schema.isGreaterThan(0), Schema.isGreaterThan(3)))).toStrictEqual([
      { title: "positive", description: "a positive number", jsonSchema: { exclusiveMinimum: 0 } },
      { title: "greaterThan(3)", description: "a number greater than 3", jsonSchema: { exclusiveMinimum: 3 } }
    ])
    expect(texts(Schema.Number.check(Schema.isGreaterThanOrEqualTo(0), Schema.isGreaterThanOrEqualTo(-2)))).toStrictEqual([
      { title: "nonNegative", description: "a non-negative number", jsonSchema: { minimum: 0 } },
      { title: "greaterThanOrEqualTo(-2)", description: "a number greater than or equal to -2", jsonSchema: { minimum: -2 } }
    ])
    expect(texts(Schema.Number.check(Schema.isLessThan(0), Schema.isLessThan(1.5)))).toStrictEqual([
      { title: "negative", description: "a negative number", jsonSchema: { exclusiveMaximum: 0 } },
      { title: "lessThan(1.5)", description: "a number less than 1.5", jsonSchema: { exclusiveMaximum: 1.5 } }
    ])
    expect(texts(Schema.Number.check(Schema.isLessThanOrEqualTo(0), Schema.isLessThanOrEqualTo(10)))).toStrictEqual([
      { title: "nonPositive", description: "a non-positive number", jsonSchema: { maximum: 0 } },
      { title: "lessThanOrEqualTo(10)", description: "a number less than or equal to 10", jsonSchema: { maximum: 10 } }
    ])
  })

  it("between: inclusive or exclusive at either end", () => {
    expect(text(Schema.isBetween({ minimum: 1, maximum: 5 }))).toStrictEqual({
      title: "between(1, 5)",
      description: "a number between 1 and 5",
      jsonSchema: { minimum: 1, maximum: 5 }
    })
    expect(text(Schema.isBetween({ minimum: -1, maximum: 2, exclusiveMinimum: true })).jsonSchema).toStrictEqual({
      exclusiveMinimum: -1,
      maximum: 2
    })
    expect(text(Schema.isBetween({ minimum: 0, maximum: 9, exclusiveMaximum: true })).jsonSchema).toStrictEqual({
      minimum: 0,
      exclusiveMaximum: 9
    })
  })

  it("int, finite, multipleOf", () => {
    expect(text(Schema.isInt())).toStrictEqual({ title: "int", description: "an integer", jsonSchema: { type: "integer" } })
    expect(text(Schema.isFinite())).toStrictEqual({ title: "finite", description: "a finite number", jsonSchema: {} })
    expect(text(Schema.isMultipleOf(3))).toStrictEqual({
      title: "multipleOf(3)",
      description: "a number divisible by 3",
      jsonSchema: { multipleOf: 3 }
    })
  })

  it("a payload without the bound reads it as 0 (1 for a divisor); a number given as text is read as a number", () => {
    expect(text(represented("effect/schema/isGreaterThan", null)).title).toBe("positive")
    expect(text(represented("effect/schema/isGreaterThan", 7)).title).toBe("positive")
    expect(text(represented("effect/schema/isGreaterThan", { exclusiveMinimum: true })).title).toBe("positive")
    expect(text(represented("effect/schema/isGreaterThan", { exclusiveMinimum: "2.5" }))).toStrictEqual({
      title: "greaterThan(2.5)",
      description: "a number greater than 2.5",
      jsonSchema: { exclusiveMinimum: 2.5 }
    })
    expect(text(represented("effect/schema/isGreaterThanOrEqualTo", {})).title).toBe("nonNegative")
    expect(text(represented("effect/schema/isLessThan", {})).title).toBe("negative")
    expect(text(represented("effect/schema/isLessThanOrEqualTo", {})).title).toBe("nonPositive")
    expect(text(represented("effect/schema/isMultipleOf", {})).jsonSchema).toStrictEqual({ multipleOf: 1 })
    expect(text(represented("effect/schema/isBetween", null))).toStrictEqual({
      title: "between(0, 0)",
      description: "a number between 0 and 0",
      jsonSchema: { minimum: 0, maximum: 0 }
    })
    // only `true` makes an end exclusive
    expect(text(represented("effect/schema/isBetween", { minimum: 1, maximum: 2, exclusiveMinimum: "yes", exclusiveMaximum: 1 })).jsonSchema)
      .toStrictEqual({ minimum: 1, maximum: 2 })
  })
})

describe("lengths: of a string, or of an array", () => {
  it("minLength / minItems, maxLength / maxItems", () => {
    expect(text(Schema.isMinLength(2))).toStrictEqual({
      title: "minLength(2)",
      description: "a string at least 2 character(s) long",
      jsonSchema: { minLength: 2 }
    })
    expect(text(Schema.isMinLength(2), true)).toStrictEqual({
      title: "minItems(2)",
      description: "an array of at least 2 item(s)",
      jsonSchema: { minItems: 2 }
    })
    expect(text(Schema.isMaxLength(4))).toStrictEqual({
      title: "maxLength(4)",
      description: "a string at most 4 character(s) long",
      jsonSchema: { maxLength: 4 }
    })
    expect(text(Schema.isMaxLength(4), true)).toStrictEqual({
      title: "maxItems(4)",
      description: "an array of at most 4 item(s)",
      jsonSchema: { maxItems: 4 }
    })
    expect(text(represented("effect/schema/isMinLength", null)).title).toBe("minLength(0)")
    expect(text(represented("effect/schema/isMaxLength", null), true).title).toBe("maxItems(0)")
  })

  it("between two lengths, or exactly one", () => {
    expect(text(Schema.isBetweenLength(3, 3), true)).toStrictEqual({
      title: "itemsCount(3)",
      description: "an array of exactly 3 item(s)",
      jsonSchema: { minItems: 3, maxItems: 3 }
    })
    expect(text(Schema.isBetweenLength(1, 4), true)).toStrictEqual({
      description: "an array of at least 1 item(s) and at most 4 item(s)",
      jsonSchema: { minItems: 1, maxItems: 4 }
    })
    expect(text(Schema.isBetweenLength(1, 1))).toStrictEqual({
      title: "length(1)",
      description: "a single character",
      jsonSchema: { minLength: 1, maxLength: 1 }
    })
    expect(text(Schema.isBetweenLength(5, 5))).toStrictEqual({
      title: "length(5)",
      description: "a string 5 character(s) long",
      jsonSchema: { minLength: 5, maxLength: 5 }
    })
    expect(text(Schema.isBetweenLength(2, 6))).toStrictEqual({
      title: "length({ min: 2, max: 6)",
      description: "a string at least 2 character(s) and at most 6 character(s) long",
      jsonSchema: { minLength: 2, maxLength: 6 }
    })
    // a payload without a maximum: exactly the minimum; without either: 0
    expect(text(represented("effect/schema/isBetweenLength", { minimum: 2 })).title).toBe("length(2)")
    expect(text(represented("effect/schema/isBetweenLength", null), true).title).toBe("itemsCount(0)")
  })
})

describe("string checks", () => {
  it("pattern, trimmed, starts / ends with, includes", () => {
    expect(text(Schema.isPattern(/^a+b$/))).toStrictEqual({
      description: "a string matching the pattern ^a+b$",
      jsonSchema: { pattern: "^a+b$" }
    })
    expect(text(represented("effect/schema/isPattern", { source: 5 }))).toStrictEqual({
      description: "a string matching the pattern ",
      jsonSchema: { pattern: "" }
    })
    expect(text(represented("effect/schema/isPattern", "^x"))).toStrictEqual({
      description: "a string matching the pattern ",
      jsonSchema: { pattern: "" }
    })
    expect(text(Schema.isTrimmed())).toStrictEqual({
      title: "trimmed",
      description: "a string with no leading or trailing whitespace",
      jsonSchema: { pattern: "^\\S[\\s\\S]*\\S$|^\\S$|^$" }
    })
    expect(text(Schema.isStartingWith("ab"))).toStrictEqual({
      title: "startsWith(\"ab\")",
      description: "a string starting with \"ab\"",
      jsonSchema: { pattern: "^ab" }
    })
    expect(text(Schema.isEndingWith("yz"))).toStrictEqual({
      title: "endsWith(\"yz\")",
      description: "a string ending with \"yz\"",
      jsonSchema: { pattern: "^.*yz$" }
    })
    expect(text(Schema.isIncluding("mid"))).toStrictEqual({
      title: "includes(\"mid\")",
      description: "a string including \"mid\"",
      jsonSchema: { pattern: ".*mid.*" }
    })
    for (const id of ["effect/schema/isStartingWith", "effect/schema/isEndingWith", "effect/schema/isIncluding"]) {
      expect(text(represented(id, null)).title).toMatch(/\(""\)$/)
    }
  })

  it("letter case", () => {
    expect(text(Schema.isLowercased())).toStrictEqual({
      title: "lowercased",
      description: "a lowercase string",
      jsonSchema: { pattern: "^[^A-Z]*$" }
    })
    expect(text(Schema.isUppercased())).toStrictEqual({
      title: "uppercased",
      description: "an uppercase string",
      jsonSchema: { pattern: "^[^a-z]*$" }
    })
    expect(text(Schema.isCapitalized())).toStrictEqual({
      title: "capitalized",
      description: "a capitalized string",
      jsonSchema: { pattern: "^[^a-z]?.*$" }
    })
    expect(text(Schema.isUncapitalized())).toStrictEqual({
      title: "uncapitalized",
      description: "a uncapitalized string",
      jsonSchema: { pattern: "^[^A-Z]?.*$" }
    })
  })

  it("a check Effect 3 did not have, or one without a representation, has no texts of its own", () => {
    expect(text(Schema.isUUID())).toStrictEqual({})
    expect(text(Schema.makeFilter((s: string) => s.length > 0))).toStrictEqual({})
  })
})

describe("the checks of Schema.Int and its like, and a check's own annotations", () => {
  it("the very check of Schema.Int, Schema.Finite, Schema.NonEmptyString has Effect 3's identifier", () => {
    expect(texts(Schema.Int)).toStrictEqual([
      { title: "int", description: "an integer", jsonSchema: { type: "integer" }, identifier: "Int" }
    ])
    expect(texts(Schema.Finite)).toStrictEqual([
      { title: "finite", description: "a finite number", jsonSchema: {}, identifier: "Finite" }
    ])
    expect(texts(Schema.NonEmptyString)).toStrictEqual([
      { title: "nonEmptyString", description: "a non empty string", jsonSchema: { minLength: 1 }, identifier: "NonEmptyString" }
    ])
    // the same kind of check, made anew, is not theirs
    expect(texts(Schema.Number.check(Schema.isInt()))).toStrictEqual([
      { title: "int", description: "an integer", jsonSchema: { type: "integer" } }
    ])
    expect(texts(Schema.String.check(Schema.isNonEmpty()))[0]).toStrictEqual({
      title: "minLength(1)",
      description: "a string at least 1 character(s) long",
      jsonSchema: { minLength: 1 }
    })
  })

  it("a check's own annotations win over Effect 3's texts; one given as undefined does not", () => {
    const check = Schema.isGreaterThan(3, {
      title: "T",
      description: "D",
      identifier: "I",
      jsonSchema: { minimum: 4 },
      default: 5,
      examples: [6],
      message: "M"
    } as Schema.Annotations.Filter)
    expect(text(check)).toStrictEqual({
      title: "T",
      description: "D",
      jsonSchema: { minimum: 4 },
      identifier: "I",
      default: 5,
      examples: [6],
      message: "M"
    })
    expect(text(Schema.isGreaterThan(3, { description: undefined }))).toStrictEqual({
      title: "greaterThan(3)",
      description: "a number greater than 3",
      jsonSchema: { exclusiveMinimum: 3 }
    })
    // other annotations of a check are not Effect 3's
    expect(text(Schema.makeFilter(() => true, { expected: "E", brands: ["b"] } as Schema.Annotations.Filter))).toStrictEqual({})
  })
})

describe("filtersOf", () => {
  it("a node's checks one filter each, a group's members in order, none for no checks", () => {
    const a = Schema.isMinLength(1)
    const b = Schema.isMaxLength(3)
    const c = Schema.isTrimmed()
    const d = Schema.isLowercased()
    const group = Schema.makeFilterGroup([b, Schema.makeFilterGroup([c, d])])
    expect(filtersOf([a, group, a])).toStrictEqual([a, b, c, d, a])
    expect(filtersOf(undefined)).toStrictEqual([])
    expect(filtersOf(Schema.String.ast.checks)).toStrictEqual([])
  })
})

describe("filterExpected", () => {
  it("a check's description, else its title, else its identifier, else the refused value's kind", () => {
    const minLength: SchemaAST.Filter<any> = Schema.isMinLength(2)
    expect(filterExpected(minLength, "a")).toBe("a string at least 2 character(s) long")
    expect(filterExpected(minLength, [1])).toBe("an array of at least 2 item(s)")
    expect(filterExpected(Schema.makeFilter(() => true, { title: "T", identifier: "I" }), 1)).toBe("T")
    expect(filterExpected(Schema.makeFilter(() => true, { identifier: "I" }), 1)).toBe("I")
    const bare = Schema.makeFilter(() => true)
    expect(filterExpected(bare, null)).toBe("{ null | filter }")
    expect(filterExpected(bare, [])).toBe("{ ReadonlyArray<unknown> | filter }")
    expect(filterExpected(bare, "s")).toBe("{ string | filter }")
    expect(filterExpected(bare, { a: 1 })).toBe("{ object | filter }")
    expect(filterExpected(bare, undefined)).toBe("{ undefined | filter }")
  })
})
