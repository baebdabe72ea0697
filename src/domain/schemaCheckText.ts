/**
 * The title, description and JSON Schema keywords Effect 3 gave each built-in check, read back
 * from an Effect 4 check's representation (part of `schemaView.ts`'s Effect 3 view).
 *
 * @since 1.0.0
 */
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import { annotationsOf, type ViewAnnotations } from "./schemaViewModel.js"

// -------------------------------------------------------------------------------------------------
// Checks as Effect 3 wrote them
// -------------------------------------------------------------------------------------------------

/** What Effect 3 gave a built-in check: its title, description and JSON Schema keywords. */
interface CheckText {
  readonly title?: string
  readonly description?: string
  readonly jsonSchema?: Readonly<Record<string, unknown>>
}

const numberOf = (payload: unknown, key: string): number | undefined => {
  const value: unknown = Predicate.isObject(payload) ? Reflect.get(payload, key) : undefined
  return typeof value === "number" ? value : typeof value === "string" ? Number(value) : undefined
}

const stringOf = (payload: unknown, key: string): string | undefined => {
  const value: unknown = Predicate.isObject(payload) ? Reflect.get(payload, key) : undefined
  return typeof value === "string" ? value : undefined
}

/** The bound checks written one way for numbers: `greaterThan(0)` is Effect 3's `positive()`. */
const bound = (
  n: number,
  keyword: string,
  name: string,
  zero: string,
  zeroText: string,
  text: string
): CheckText => ({
  title: n === 0 ? zero : `${name}(${n})`,
  description: n === 0 ? zeroText : `${text} ${n}`,
  jsonSchema: { [keyword]: n }
})

/** Effect 3's texts of an Effect 4 check, by its representation (a length: of an array, or of a string). */
const builtinText = (check: SchemaAST.Filter<unknown>, isArray: boolean): CheckText | undefined => {
  const representation = check.annotations?.representation
  if (representation === undefined) return undefined
  const payload: unknown = representation.payload
  switch (representation.id) {
    case "effect/schema/isInt":
      return { title: "int", description: "an integer", jsonSchema: { type: "integer" } }
    case "effect/schema/isFinite":
      return { title: "finite", description: "a finite number", jsonSchema: {} }
    case "effect/schema/isGreaterThan": {
      const n = numberOf(payload, "exclusiveMinimum") ?? 0
      return bound(n, "exclusiveMinimum", "greaterThan", "positive", "a positive number", "a number greater than")
    }
    case "effect/schema/isGreaterThanOrEqualTo": {
      const n = numberOf(payload, "minimum") ?? 0
      return bound(n, "minimum", "greaterThanOrEqualTo", "nonNegative", "a non-negative number", "a number greater than or equal to")
    }
    case "effect/schema/isLessThan": {
      const n = numberOf(payload, "exclusiveMaximum") ?? 0
      return bound(n, "exclusiveMaximum", "lessThan", "negative", "a negative number", "a number less than")
    }
    case "effect/schema/isLessThanOrEqualTo": {
      const n = numberOf(payload, "maximum") ?? 0
      return bound(n, "maximum", "lessThanOrEqualTo", "nonPositive", "a non-positive number", "a number less than or equal to")
    }
    case "effect/schema/isBetween": {
      const minimum = numberOf(payload, "minimum") ?? 0
      const maximum = numberOf(payload, "maximum") ?? 0
      const exclusiveMinimum = Predicate.isObject(payload) && Reflect.get(payload, "exclusiveMinimum") === true
      const exclusiveMaximum = Predicate.isObject(payload) && Reflect.get(payload, "exclusiveMaximum") === true
      return {
        title: `between(${minimum}, ${maximum})`,
        description: `a number between ${minimum} and ${maximum}`,
        jsonSchema: {
          [exclusiveMinimum ? "exclusiveMinimum" : "minimum"]: minimum,
          [exclusiveMaximum ? "exclusiveMaximum" : "maximum"]: maximum
        }
      }
    }
    case "effect/schema/isMultipleOf": {
      const divisor = numberOf(payload, "divisor") ?? 1
      return { title: `multipleOf(${divisor})`, description: `a number divisible by ${divisor}`, jsonSchema: { multipleOf: divisor } }
    }
    case "effect/schema/isMinLength": {
      const n = numberOf(payload, "minLength") ?? 0
      return isArray
        ? { title: `minItems(${n})`, description: `an array of at least ${n} item(s)`, jsonSchema: { minItems: n } }
        : { title: `minLength(${n})`, description: `a string at least ${n} character(s) long`, jsonSchema: { minLength: n } }
    }
    case "effect/schema/isMaxLength": {
      const n = numberOf(payload, "maxLength") ?? 0
      return isArray
        ? { title: `maxItems(${n})`, description: `an array of at most ${n} item(s)`, jsonSchema: { maxItems: n } }
        : { title: `maxLength(${n})`, description: `a string at most ${n} character(s) long`, jsonSchema: { maxLength: n } }
    }
    case "effect/schema/isBetweenLength": {
      const min = numberOf(payload, "minimum") ?? 0
      const max = numberOf(payload, "maximum") ?? min
      if (isArray) {
        return min === max
          ? { title: `itemsCount(${min})`, description: `an array of exactly ${min} item(s)`, jsonSchema: { minItems: min, maxItems: min } }
          : {
            description: `an array of at least ${min} item(s) and at most ${max} item(s)`,
            jsonSchema: { minItems: min, maxItems: max }
          }
      }
      return min === max
        ? {
          title: `length(${min})`,
          description: min === 1 ? "a single character" : `a string ${min} character(s) long`,
          jsonSchema: { minLength: min, maxLength: min }
        }
        : {
          title: `length({ min: ${min}, max: ${max})`,
          description: `a string at least ${min} character(s) and at most ${max} character(s) long`,
          jsonSchema: { minLength: min, maxLength: max }
        }
    }
    case "effect/schema/isPattern": {
      const source = stringOf(payload, "source") ?? ""
      return { description: `a string matching the pattern ${source}`, jsonSchema: { pattern: source } }
    }
    case "effect/schema/isTrimmed":
      return {
        title: "trimmed",
        description: "a string with no leading or trailing whitespace",
        jsonSchema: { pattern: "^\\S[\\s\\S]*\\S$|^\\S$|^$" }
      }
    case "effect/schema/isStartingWith": {
      const s = stringOf(payload, "startsWith") ?? ""
      const formatted = JSON.stringify(s)
      return { title: `startsWith(${formatted})`, description: `a string starting with ${formatted}`, jsonSchema: { pattern: `^${s}` } }
    }
    case "effect/schema/isEndingWith": {
      const s = stringOf(payload, "endsWith") ?? ""
      const formatted = JSON.stringify(s)
      return { title: `endsWith(${formatted})`, description: `a string ending with ${formatted}`, jsonSchema: { pattern: `^.*${s}$` } }
    }
    case "effect/schema/isIncluding": {
      const s = stringOf(payload, "includes") ?? ""
      const formatted = JSON.stringify(s)
      return { title: `includes(${formatted})`, description: `a string including ${formatted}`, jsonSchema: { pattern: `.*${s}.*` } }
    }
    case "effect/schema/isLowercased":
      return { title: "lowercased", description: "a lowercase string", jsonSchema: { pattern: "^[^A-Z]*$" } }
    case "effect/schema/isUppercased":
      return { title: "uppercased", description: "an uppercase string", jsonSchema: { pattern: "^[^a-z]*$" } }
    case "effect/schema/isCapitalized":
      return { title: "capitalized", description: "a capitalized string", jsonSchema: { pattern: "^[^a-z]?.*$" } }
    case "effect/schema/isUncapitalized":
      return { title: "uncapitalized", description: "a uncapitalized string", jsonSchema: { pattern: "^[^A-Z]?.*$" } }
    default:
      return undefined
  }
}

/** The first check of `Schema.X`, whose refinement Effect 3 named `X` (its `Schema.Int` was a class). */
const namedChecks: ReadonlyArray<readonly [SchemaAST.AST, string, CheckText]> = [
  [Schema.Int.ast, "Int", {}],
  [Schema.Finite.ast, "Finite", {}],
  [Schema.NonEmptyString.ast, "NonEmptyString", { title: "nonEmptyString", description: "a non empty string" }]
]

/**
 * The refinement a check stands for: Effect 3's texts, the check's own annotations over them (a
 * `description` given to the check wins), and the identifier Effect 3 gave `Schema.Int` and
 * its like when the check is theirs.
 *
 * @internal
 */
export const checkAnnotations = (check: SchemaAST.Filter<unknown>, isArray: boolean): ViewAnnotations => {
  const out: Record<string, unknown> = {}
  const builtin = builtinText(check, isArray)
  if (builtin?.title !== undefined) out.title = builtin.title
  if (builtin?.description !== undefined) out.description = builtin.description
  if (builtin?.jsonSchema !== undefined) out.jsonSchema = builtin.jsonSchema
  // the very check of `Schema.Int` (annotating it makes a new one, as it lost Effect 3's identifier)
  for (const [named, identifier, text] of namedChecks) {
    if (named.checks?.[0] === check) {
      out.identifier = identifier
      if (text.title !== undefined) out.title = text.title
      if (text.description !== undefined) out.description = text.description
    }
  }
  const own = check.annotations
  for (const key of ["title", "description", "identifier", "jsonSchema", "default", "examples", "message"]) {
    const value = own?.[key]
    if (value !== undefined) out[key] = value
  }
  return out
}

/**
 * A node's checks, one filter each (a group's members in order).
 *
 * @internal
 */
export const filtersOf = (checks: SchemaAST.Checks | undefined): ReadonlyArray<SchemaAST.Filter<unknown>> => {
  const out: Array<SchemaAST.Filter<unknown>> = []
  const add = (check: SchemaAST.Check<unknown>): void => {
    if (check._tag === "Filter") out.push(check)
    else for (const member of check.checks) add(member)
  }
  for (const check of checks ?? []) add(check)
  return out
}
