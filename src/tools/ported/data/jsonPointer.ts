/**
 * RFC 6901 JSON pointers: `""` is the whole document, `/a/0/b` steps into key `a`, item 0,
 * key `b`; `~1` stands for `/` and `~0` for `~` inside a step. The URI fragment form
 * (`#/a%20b`) is accepted too. Only a value's own keys are followed (never `constructor` or
 * `__proto__` through the prototype), and an error says where the walk stopped and what was there.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Either from "effect/Either"
import { headOf } from "../../shared/outputCap.js"

/** The pointer is malformed, or names nothing in the document. */
export class PointerError extends Data.TaggedError("PointerError")<{
  readonly message: string
}> {}

/** Keys listed in a "no key" error. */
const KEYS_SHOWN = 20
/** Longest key or pointer quoted in an error. */
const QUOTE_MAX = 120

const quote = (s: string) => JSON.stringify(s.length > QUOTE_MAX ? `${headOf(s, QUOTE_MAX)}…` : s)

/** A pointer from its steps (each escaped again). */
export const formatPointer = (tokens: ReadonlyArray<string>): string =>
  tokens.map((t) => `/${t.replaceAll("~", "~0").replaceAll("/", "~1")}`).join("")

/** The steps of a pointer, unescaped. */
export const parsePointer = (pointer: string): Either.Either<ReadonlyArray<string>, PointerError> => {
  let text = pointer
  if (text.startsWith("#")) {
    try {
      text = decodeURIComponent(text.slice(1))
    } catch {
      return Either.left(new PointerError({ message: `the pointer ${quote(pointer)} has an invalid %-escape` }))
    }
  }
  if (text === "") return Either.right([])
  if (!text.startsWith("/")) {
    return Either.left(
      new PointerError({
        message: `the pointer ${quote(pointer)} must be empty (the whole document) or start with "/", e.g. "/items/0/name"`
      })
    )
  }
  const tokens = text.slice(1).split("/")
  for (const token of tokens) {
    if (/~[^01]|~$/.test(token)) {
      return Either.left(
        new PointerError({
          message: `the pointer ${quote(pointer)} has a "~" not followed by 0 or 1 (write "~0" for "~" and "~1" for "/")`
        })
      )
    }
  }
  return Either.right(tokens.map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~")))
}

/** `null`, `array`, `object`, `string`, `number` or `boolean`. */
export const kindOf = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "array" : typeof value

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/

/** The value the steps lead to, or where and why the walk stopped. */
export const resolvePointer = (
  document: unknown,
  tokens: ReadonlyArray<string>
): Either.Either<unknown, PointerError> => {
  let current = document
  for (let i = 0; i < tokens.length; i++) {
    // Stryker disable next-line StringLiteral: equivalent, i is within tokens
    const token = tokens[i] ?? ""
    const at = i === 0 ? "the document root" : `"${headOf(formatPointer(tokens.slice(0, i)), QUOTE_MAX)}"`
    const fail = (why: string) =>
      Either.left(new PointerError({ message: `no value at "${headOf(formatPointer(tokens), QUOTE_MAX)}": ${why}` }))
    if (Array.isArray(current)) {
      if (token === "-") return fail(`"-" at ${at} names the position after the last item, which has no value`)
      if (!ARRAY_INDEX.test(token)) {
        return fail(`${quote(token)} is not an index of the array at ${at} (use 0 to ${current.length - 1})`)
      }
      const index = Number(token)
      if (index >= current.length) {
        return fail(
          current.length === 0
            ? `the array at ${at} is empty`
            : `the array at ${at} has ${current.length} items (indices 0 to ${current.length - 1})`
        )
      }
      current = current[index]
    } else if (isRecord(current)) {
      if (!Object.hasOwn(current, token)) {
        const keys = Object.keys(current)
        const shown = keys.slice(0, KEYS_SHOWN).map(quote).join(", ")
        const more = keys.length > KEYS_SHOWN ? `, and ${keys.length - KEYS_SHOWN} more` : ""
        return fail(
          keys.length === 0
            ? `the object at ${at} is empty`
            : `the object at ${at} has no key ${quote(token)} (its keys: ${shown}${more})`
        )
      }
      current = current[token]
    } else {
      return fail(`the value at ${at} is ${kindOf(current) === "null" ? "null" : `a ${kindOf(current)}`}, not an object or array`)
    }
  }
  return Either.right(current)
}

/** Parses `pointer` and follows it in `document`. */
export const selectPointer = (document: unknown, pointer: string): Either.Either<unknown, PointerError> =>
  Either.flatMap(parsePointer(pointer), (tokens) => resolvePointer(document, tokens))
