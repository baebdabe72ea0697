/**
 * Bounds on what a call's arguments may be, checked before any validation or formatting
 * touches them: a model (or an attacker behind one) can send arguments nested thousands deep
 * or millions of items long, and both the schema decoder and its error formatter recurse.
 * Also the short, one-line form of every argument problem.
 *
 * @since 0.1.0
 */
import * as ParseResult from "effect/ParseResult"
import type { ArgumentIssue } from "./errors.js"

/**
 * Deepest nesting of objects and arrays accepted in a call's arguments.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_ARGUMENT_DEPTH = 64
/**
 * Most values (objects, arrays, strings, numbers, ...) accepted in a call's arguments.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_ARGUMENT_NODES = 100_000
/**
 * Most characters of all strings (values and keys) together in a call's arguments.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_ARGUMENT_CHARS = 32 * 1024 * 1024

/** Most issues listed for one call; the rest are counted. */
const MAX_ISSUES = 20
/** Longest message of one issue. */
const MAX_ISSUE_CHARS = 200

/** What a check has counted so far. */
interface Tally {
  nodes: number
  chars: number
}

const tooDeep: ArgumentIssue = { path: [], message: `nested deeper than ${MAX_ARGUMENT_DEPTH} levels` }
const tooMany: ArgumentIssue = { path: [], message: `more than ${MAX_ARGUMENT_NODES} values` }
const tooLong: ArgumentIssue = { path: [], message: `more than ${MAX_ARGUMENT_CHARS} characters of text` }

/** Counts one value (and what it holds). Recursion stops at `MAX_ARGUMENT_DEPTH`, so it stays shallow. */
const visit = (value: unknown, depth: number, tally: Tally): ArgumentIssue | undefined => {
  if (++tally.nodes > MAX_ARGUMENT_NODES) return tooMany
  if (typeof value === "string") {
    tally.chars += value.length
    return tally.chars > MAX_ARGUMENT_CHARS ? tooLong : undefined
  }
  if (typeof value !== "object" || value === null) return undefined
  if (depth > MAX_ARGUMENT_DEPTH) return tooDeep
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = visit(value[i], depth + 1, tally)
      if (problem !== undefined) return problem
    }
    return undefined
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue
    tally.chars += key.length
    const problem = visit(Reflect.get(value, key), depth + 1, tally)
    if (problem !== undefined) return problem
  }
  return undefined
}

/**
 * The first bound the arguments break, as an issue, or `undefined`. Linear in the size of the
 * input, stopped at the first bound it crosses; its recursion is bounded by the depth limit.
 *
 * @internal
 */
export const argumentsProblem = (input: unknown): ArgumentIssue | undefined =>
  typeof input !== "object" || input === null ? undefined : visit(input, 1, { nodes: 0, chars: 0 })

/** Flattens `text` to one line of at most `max` characters. */
const oneLine = (text: string, max: number): string => {
  const head = text.slice(0, max * 2)
  const flat = head.replace(/\s+/g, " ").trim()
  return flat.length > max || text.length > head.length ? `${flat.slice(0, max - 1)}…` : flat
}

/** An excess-property message of the formatter, said plainly. */
const plain = (message: string): string =>
  message.startsWith("is unexpected") ? message.replace(/^is unexpected, expected: /, "unknown property; expected one of: ") : message

/**
 * The issues of a failed decode: one short line each, with its path; at most 20, then a count.
 *
 * @internal
 */
export const issuesOf = (error: ParseResult.ParseError): ReadonlyArray<ArgumentIssue> => {
  const formatted = ParseResult.ArrayFormatter.formatErrorSync(error)
  // an optional field is `X | undefined`: when X has problems of its own, "expected undefined"
  // for the field says nothing more
  const all = formatted.filter((issue) =>
    !(issue.message.startsWith("Expected undefined") &&
      formatted.some((other) => other.path.length > issue.path.length && issue.path.every((k, i) => other.path[i] === k)))
  )
  const shown: Array<ArgumentIssue> = all.slice(0, MAX_ISSUES).map((i) => ({
    path: i.path,
    message: oneLine(plain(i.message), MAX_ISSUE_CHARS)
  }))
  if (all.length > MAX_ISSUES) shown.push({ path: [], message: `and ${all.length - MAX_ISSUES} more problems` })
  return shown
}
