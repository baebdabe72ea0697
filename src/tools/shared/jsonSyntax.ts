/**
 * JSON from a model or a file, parsed with a bound on its nesting and, when it is not JSON,
 * an error that names the line and column of the first problem and shows that line.
 *
 * `JSON.parse` does the parsing. Its error on Node 20 does not always say where the problem
 * is ("Unexpected token 'x', ..."), so after a failure one linear, non-recursive scan of the
 * text (`firstSyntaxError`) finds the first offset where the text stops being JSON.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Result from "effect/Result"
import { nestsDeeperThan } from "./boundedJson.js"
import { isHighSurrogate, isLowSurrogate } from "./text.js"

/** The nesting bound for JSON data a tool reads (objects and arrays inside one another). */
export const DATA_JSON_MAX_DEPTH = 256

/** Where a text stops being JSON: a 0-based offset and what was expected there. */
export interface SyntaxProblem {
  readonly offset: number
  readonly expected: string
}

/** The text is not JSON (`line`, `column` 1-based), or nests deeper than the bound. */
export class JsonSyntaxError extends Data.TaggedError("JsonSyntaxError")<{
  readonly reason: "syntax" | "too-deep"
  readonly message: string
  readonly line?: number | undefined
  readonly column?: number | undefined
}> {}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d
const HEX = /^[0-9a-fA-F]{4}$/

/** A scan step: a problem, a container just opened, or a complete value. */
type Step = SyntaxProblem | "opened" | "done"

/**
 * The first offset at which `text` is not JSON, or `undefined` when it is. Linear and
 * iterative (an explicit stack), so any nesting is scanned without recursion.
 */
export const firstSyntaxError = (text: string): SyntaxProblem | undefined => {
  const n = text.length
  const stack: Array<number> = [] // 0x5b `[` or 0x7b `{`
  let i = 0
  const skip = () => {
    // (past the end the code unit is NaN, not a space)
    while (isSpace(text.charCodeAt(i))) i++
  }
  const problem = (expected: string): SyntaxProblem => ({ offset: i, expected })

  /** Scans a string at `i` (a quote); `undefined` when it is well formed. */
  const string = (): SyntaxProblem | undefined => {
    i++
    while (i < n) {
      const c = text.charCodeAt(i)
      if (c === 0x22) {
        i++
        return undefined
      }
      if (c < 0x20) return problem("a closing quote (a control character must be escaped)")
      if (c === 0x5c) {
        const e = text[i + 1]
        if (e === "u") {
          if (!HEX.test(text.slice(i + 2, i + 6))) return problem("four hex digits after \\u")
          i += 6
        } else if (e !== undefined && "\"\\/bfnrt".includes(e)) {
          i += 2
        } else {
          return problem("a valid escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX)")
        }
      } else {
        i++
      }
    }
    return problem("a closing quote")
  }

  /** Scans a number at `i`. */
  const number = (): SyntaxProblem | undefined => {
    if (text.charCodeAt(i) === 0x2d) i++
    if (text.charCodeAt(i) === 0x30) i++
    else if (isDigit(text.charCodeAt(i))) while (isDigit(text.charCodeAt(i))) i++
    else return problem("a digit")
    if (text.charCodeAt(i) === 0x2e) {
      i++
      if (!isDigit(text.charCodeAt(i))) return problem("a digit after the decimal point")
      while (isDigit(text.charCodeAt(i))) i++
    }
    const e = text.charCodeAt(i)
    if (e === 0x65 || e === 0x45) {
      i++
      const sign = text.charCodeAt(i)
      if (sign === 0x2b || sign === 0x2d) i++
      if (!isDigit(text.charCodeAt(i))) return problem("a digit in the exponent")
      while (isDigit(text.charCodeAt(i))) i++
    }
    return undefined
  }

  /** Scans one value at `i`; an opening bracket only pushes its container (`"opened"`). */
  const value = (): Step => {
    skip()
    const c = text.charCodeAt(i)
    if (c === 0x7b || c === 0x5b) {
      stack.push(c)
      i++
      return "opened"
    }
    if (c === 0x22) return string() ?? "done"
    if (c === 0x2d || isDigit(c)) return number() ?? "done"
    for (const word of ["true", "false", "null"]) {
      if (text.startsWith(word, i)) {
        i += word.length
        return "done"
      }
    }
    return problem("a value (an object, array, string, number, true, false or null)")
  }

  /** After `{` or `,` in an object: a key, a colon, then a value. */
  const member = (): Step => {
    skip()
    if (text.charCodeAt(i) !== 0x22) return problem("a property name in double quotes")
    const bad = string()
    if (bad !== undefined) return bad
    skip()
    if (text.charCodeAt(i) !== 0x3a) return problem("':' after the property name")
    i++
    return value()
  }

  const closing = (open: number | undefined) => (open === 0x7b ? 0x7d : 0x5d)

  let step = value()
  for (;;) {
    if (typeof step === "object") return step
    const top = stack[stack.length - 1]
    if (step === "opened") {
      // the first item, or the end of an empty container
      skip()
      if (text.charCodeAt(i) === closing(top)) {
        stack.pop()
        i++
        step = "done"
      } else {
        step = top === 0x7b ? member() : value()
      }
      continue
    }
    skip()
    if (top === undefined) return i < n ? problem("the end of the text after the JSON value") : undefined
    const c = text.charCodeAt(i)
    if (c === 0x2c) {
      i++
      step = top === 0x7b ? member() : value()
    } else if (c === closing(top)) {
      stack.pop()
      i++
    } else {
      return problem(top === 0x7b ? "',' or '}' after a property value" : "',' or ']' after an array item")
    }
  }
}

/** A 1-based line and column (counted in characters, a surrogate pair as one). */
export interface Position {
  readonly line: number
  readonly column: number
}

/** The line and column of `offset` in `text` (lines end at `\n`). Linear. */
export const positionOf = (text: string, offset: number): Position & { readonly lineStart: number } => {
  let line = 1
  let lineStart = 0
  for (let i = 0; i < offset; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++
      lineStart = i + 1
    }
  }
  return { line, column: codePoints(text, lineStart, offset) + 1, lineStart }
}

/** Characters in `text[from, to)`, a surrogate pair counted once. */
const codePoints = (text: string, from: number, to: number): number => {
  let count = 0
  // the code unit before, in the range: none (0) at its start
  let previous = 0
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i)
    if (!(isLowSurrogate(c) && isHighSurrogate(previous))) count++
    previous = c
  }
  return count
}

/** Characters shown before and after the problem in the excerpt. */
const BEFORE = 60
const AFTER = 20

/** Control characters (tab included) would shift the caret or forge lines: shown as spaces. */
const visible = (s: string) => s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, " ")

/** The line around `offset` (at most 80 characters) and a caret under `offset`. */
export const excerptAt = (text: string, offset: number, lineStart: number): string => {
  const from = Math.max(lineStart, offset - BEFORE)
  let to = Math.min(text.length, offset + AFTER)
  const newline = text.indexOf("\n", offset)
  if (newline !== -1) to = Math.min(to, newline)
  // (from is at most the text's length, where the code unit is NaN, not a low surrogate)
  const start = from > lineStart && isLowSurrogate(text.charCodeAt(from)) ? from + 1 : from
  const head = visible(text.slice(start, offset))
  const tail = visible(text.slice(offset, to)).trimEnd()
  const prefix = start > lineStart ? "…" : ""
  return `  ${prefix}${head}${tail}\n  ${" ".repeat(codePoints(head, 0, head.length) + prefix.length)}^`
}

/** What is at `offset`, for "found ...". */
const foundAt = (text: string, offset: number): string => {
  if (offset >= text.length) return "the end of the text"
  const point = text.codePointAt(offset) ?? 0
  const char = String.fromCodePoint(point)
  return point < 0x20 || (point >= 0x7f && point <= 0x9f) || point === 0xfeff
    ? `U+${point.toString(16).toUpperCase().padStart(4, "0")}`
    : `'${char}'`
}

/** The `JsonSyntaxError` of a text that `JSON.parse` refused where the scan saw no problem (they should agree). */
export const unlocatedSyntaxError = (cause: unknown): JsonSyntaxError => {
  // V8's message, without the text it quotes
  const reason = cause instanceof Error ? cause.message.replace(/,? ".*/s, "") : String(cause)
  return new JsonSyntaxError({ reason: "syntax", message: `not valid JSON: ${reason.slice(0, 200)}` })
}

/** Where the text before and after a problem that the excerpt shows starts and ends (`syntaxErrorAt`). */
export const EXCERPT_AROUND = { before: BEFORE, after: AFTER } as const

/** A problem located in a text: what was expected, and its 1-based line and column. */
export interface LocatedProblem extends Position {
  readonly expected: string
}

/**
 * The `JsonSyntaxError` of `problem`, given the text around it: `window` is the text from
 * `lineStart`, or from `EXCERPT_AROUND.before` characters before the problem when the line
 * starts earlier, to `EXCERPT_AROUND.after` characters past it (or the text's end); `offset`
 * and `lineStart` are counted from the window's start (`lineStart` negative when the line
 * starts before it). A worker that scanned a long text sends only that window back.
 */
export const syntaxErrorAt = (problem: LocatedProblem, window: string, offset: number, lineStart: number): JsonSyntaxError =>
  new JsonSyntaxError({
    reason: "syntax",
    line: problem.line,
    column: problem.column,
    message: `not valid JSON: line ${problem.line}, column ${problem.column}: expected ${problem.expected}, found ${
      foundAt(window, offset)
    }\n${excerptAt(window, offset, lineStart)}`
  })

/** The `JsonSyntaxError` of a text that `JSON.parse` refused, located by `firstSyntaxError`. */
export const syntaxErrorOf = (text: string, cause: unknown): JsonSyntaxError => {
  const problem = firstSyntaxError(text)
  if (problem === undefined) return unlocatedSyntaxError(cause)
  const { column, line, lineStart } = positionOf(text, problem.offset)
  return syntaxErrorAt({ expected: problem.expected, line, column }, text, problem.offset, lineStart)
}

/** The `JsonSyntaxError` of a text nested deeper than `maxDepth`. */
export const tooDeepError = (maxDepth: number): JsonSyntaxError =>
  new JsonSyntaxError({ reason: "too-deep", message: `the JSON is nested deeper than ${maxDepth} levels` })

/**
 * Parses `text` as JSON nested at most `maxDepth` deep; a syntax error names its line and
 * column. Linear in the text; nothing recursive sees a value deeper than the bound.
 */
export const parseJsonLocated = (
  text: string,
  maxDepth: number = DATA_JSON_MAX_DEPTH
): Result.Result<unknown, JsonSyntaxError> => {
  if (nestsDeeperThan(text, maxDepth)) return Result.fail(tooDeepError(maxDepth))
  return Result.try({
    try: (): unknown => JSON.parse(text),
    catch: (cause) => syntaxErrorOf(text, cause)
  })
}
