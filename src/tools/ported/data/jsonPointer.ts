/**
 * RFC 6901 JSON pointers: `""` is the whole document, `/a/0/b` steps into key `a`, item 0,
 * key `b`; `~1` stands for `/` and `~0` for `~` inside a step. The URI fragment form
 * (`#/a%20b`) is accepted too. Only a value's own keys are followed (never `constructor` or
 * `__proto__` through the prototype), and an error says where the walk stopped and what was there.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Result from "effect/Result"
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
export const parsePointer = (pointer: string): Result.Result<ReadonlyArray<string>, PointerError> => {
  let text = pointer
  if (text.startsWith("#")) {
    try {
      text = decodeURIComponent(text.slice(1))
    } catch {
      return Result.fail(new PointerError({ message: `the pointer ${quote(pointer)} has an invalid %-escape` }))
    }
  }
  if (text === "") return Result.succeed([])
  if (!text.startsWith("/")) {
    return Result.fail(
      new PointerError({
        message: `the pointer ${quote(pointer)} must be empty (the whole document) or start with "/", e.g. "/items/0/name"`
      })
    )
  }
  const tokens = text.slice(1).split("/")
  for (const token of tokens) {
    if (/~[^01]|~$/.test(token)) {
      return Result.fail(
        new PointerError({
          message: `the pointer ${quote(pointer)} has a "~" not followed by 0 or 1 (write "~0" for "~" and "~1" for "/")`
        })
      )
    }
  }
  return Result.succeed(tokens.map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~")))
}

/** `null`, `array`, `object`, `string`, `number` or `boolean`. */
export const kindOf = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "array" : typeof value

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/

/**
 * Where a walk stopped: at step `step` (0-based), in an array of `length` items, in an object
 * (its first `KEYS_SHOWN` keys, and how many it has) or at a value of `kind`. It is all a
 * message needs, small enough for a worker that walked a big document to send back.
 */
export type PointerStop =
  | { readonly step: number; readonly kind: "array"; readonly length: number }
  | { readonly step: number; readonly kind: "object"; readonly keys: ReadonlyArray<string>; readonly count: number }
  | { readonly step: number; readonly kind: "value"; readonly of: string }

/** Keys of an object a stop keeps, for the message (the worker's walk keeps as many). */
export const POINTER_KEYS_SHOWN = KEYS_SHOWN

/**
 * The value the steps lead to, or where the walk stopped. Only own keys are followed; an
 * array step is a canonical index within its length. (`jsonWorker.ts` walks the same way.)
 */
export const walkPointer = (document: unknown, tokens: ReadonlyArray<string>): Result.Result<unknown, PointerStop> => {
  let current = document
  for (let step = 0; step < tokens.length; step++) {
    const token = tokens[step] ?? ""
    if (Array.isArray(current)) {
      if (!ARRAY_INDEX.test(token) || Number(token) >= current.length) {
        return Result.fail({ step, kind: "array", length: current.length })
      }
      current = current[Number(token)]
    } else if (isRecord(current)) {
      if (!Object.hasOwn(current, token)) {
        const keys = Object.keys(current)
        return Result.fail({ step, kind: "object", keys: keys.slice(0, KEYS_SHOWN), count: keys.length })
      }
      current = current[token]
    } else {
      return Result.fail({ step, kind: "value", of: kindOf(current) })
    }
  }
  return Result.succeed(current)
}

/** Why the walk of `tokens` stopped at `stop`, and where. */
export const stopError = (tokens: ReadonlyArray<string>, stop: PointerStop): PointerError => {
  const i = stop.step
  const token = tokens[i] ?? ""
  const at = i === 0 ? "the document root" : `"${headOf(formatPointer(tokens.slice(0, i)), QUOTE_MAX)}"`
  const fail = (why: string) => new PointerError({ message: `no value at "${headOf(formatPointer(tokens), QUOTE_MAX)}": ${why}` })
  switch (stop.kind) {
    case "array":
      if (token === "-") return fail(`"-" at ${at} names the position after the last item, which has no value`)
      if (!ARRAY_INDEX.test(token)) {
        return fail(`${quote(token)} is not an index of the array at ${at} (use 0 to ${stop.length - 1})`)
      }
      return fail(
        stop.length === 0
          ? `the array at ${at} is empty`
          : `the array at ${at} has ${stop.length} items (indices 0 to ${stop.length - 1})`
      )
    case "object": {
      const shown = stop.keys.map(quote).join(", ")
      const more = stop.count > KEYS_SHOWN ? `, and ${stop.count - KEYS_SHOWN} more` : ""
      return fail(
        stop.count === 0
          ? `the object at ${at} is empty`
          : `the object at ${at} has no key ${quote(token)} (its keys: ${shown}${more})`
      )
    }
    case "value":
      return fail(`the value at ${at} is ${stop.of === "null" ? "null" : `a ${stop.of}`}, not an object or array`)
  }
}

/** The value the steps lead to, or where and why the walk stopped. */
export const resolvePointer = (
  document: unknown,
  tokens: ReadonlyArray<string>
): Result.Result<unknown, PointerError> => Result.mapError(walkPointer(document, tokens), (stop) => stopError(tokens, stop))

/** Parses `pointer` and follows it in `document`. */
export const selectPointer = (document: unknown, pointer: string): Result.Result<unknown, PointerError> =>
  Result.flatMap(parsePointer(pointer), (tokens) => resolvePointer(document, tokens))
