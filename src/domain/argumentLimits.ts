/**
 * Bounds on what a call's arguments may be, checked before any validation or formatting
 * touches them: a model (or an attacker behind one) can send arguments nested thousands deep
 * or millions of items long, and both the schema decoder and its error formatter recurse.
 * Also the short, one-line form of every argument problem.
 *
 * @since 0.1.0
 */
import { ParseResult } from "effect"
import type { ArgumentIssue } from "./errors.js"

/** Deepest nesting of objects and arrays accepted in a call's arguments. */
export const MAX_ARGUMENT_DEPTH = 64
/** Most values (objects, arrays, strings, numbers, ...) accepted in a call's arguments. */
export const MAX_ARGUMENT_NODES = 100_000
/** Most characters of all strings (values and keys) together in a call's arguments. */
export const MAX_ARGUMENT_CHARS = 32 * 1024 * 1024

/** Most issues listed for one call; the rest are counted. */
const MAX_ISSUES = 20
/** Longest message of one issue. */
const MAX_ISSUE_CHARS = 200

/**
 * The first bound the arguments break, as an issue, or `undefined`. Iterative (no recursion),
 * linear in the size of the input and stopped at the first bound it crosses.
 */
export const argumentsProblem = (input: unknown): ArgumentIssue | undefined => {
  if (typeof input !== "object" || input === null) return undefined
  const stack: Array<unknown> = [input]
  const depths: Array<number> = [1]
  let nodes = 0
  let chars = 0
  while (stack.length > 0) {
    const value = stack.pop()
    const depth = depths.pop() ?? 0
    nodes += 1
    if (nodes > MAX_ARGUMENT_NODES) return { path: [], message: `more than ${MAX_ARGUMENT_NODES} values` }
    if (typeof value === "string") {
      chars += value.length
      if (chars > MAX_ARGUMENT_CHARS) return { path: [], message: `more than ${MAX_ARGUMENT_CHARS} characters of text` }
      continue
    }
    if (typeof value !== "object" || value === null) continue
    if (depth > MAX_ARGUMENT_DEPTH) return { path: [], message: `nested deeper than ${MAX_ARGUMENT_DEPTH} levels` }
    if (Array.isArray(value)) {
      for (const item of value) {
        stack.push(item)
        depths.push(depth + 1)
      }
      continue
    }
    for (const key of Object.keys(value)) {
      chars += key.length
      stack.push(Reflect.get(value, key))
      depths.push(depth + 1)
    }
  }
  return undefined
}

/** Flattens `text` to one line of at most `max` characters. */
const oneLine = (text: string, max: number): string => {
  const head = text.length > max * 2 ? text.slice(0, max * 2) : text
  const flat = head.replace(/\s+/g, " ").trim()
  return flat.length > max || text.length > head.length ? `${flat.slice(0, max - 1)}…` : flat
}

/** An excess-property message of the formatter, said plainly. */
const plain = (message: string): string =>
  message.startsWith("is unexpected") ? message.replace(/^is unexpected, expected: /, "unknown property; expected one of: ") : message

/** The issues of a failed decode: one short line each, with its path; at most 20, then a count. */
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
