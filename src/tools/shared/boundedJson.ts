/**
 * Parsing JSON from outside with a bound on its nesting: `JSON.parse` itself copes with deep
 * input, but whatever walks the value next (a schema decoder, an error formatter) recurses
 * and overflows the stack on an answer nested a million deep. The depth is checked first by
 * one linear scan of the text (strings skipped), so nothing recursive ever sees a deep value.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Result from "effect/Result"

/** The default bound on nesting (objects and arrays): far more than any API answer needs. */
export const JSON_MAX_DEPTH = 64

/** The text is not JSON, or JSON nested deeper than the bound. */
export class JsonRejected extends Data.TaggedError("JsonRejected")<{
  readonly reason: "syntax" | "too-deep"
  /** The bound, for `too-deep`. */
  readonly maxDepth: number
  /** The parser's error, for `syntax` (its message quotes the text: not part of `message`). */
  readonly cause?: unknown
}> {
  override get message(): string {
    return this.reason === "too-deep" ? `JSON nested deeper than ${this.maxDepth} levels` : "not JSON"
  }
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACE = 0x7b
const OPEN_BRACKET = 0x5b
const CLOSE_BRACE = 0x7d
const CLOSE_BRACKET = 0x5d

/**
 * Whether `text`, read as JSON, opens more than `maxDepth` objects or arrays inside one
 * another (brackets inside strings do not count). Linear in the text, no recursion; it does
 * not check that the text is valid JSON.
 */
export const nestsDeeperThan = (text: string, maxDepth: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
    } else if (c === QUOTE) {
      inString = true
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > maxDepth) return true
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--
    }
  }
  return false
}

/** Parses `text` as JSON nested at most `maxDepth` deep. */
export const parseJsonBounded = (
  text: string,
  maxDepth: number = JSON_MAX_DEPTH
): Result.Result<unknown, JsonRejected> => {
  if (nestsDeeperThan(text, maxDepth)) return Result.fail(new JsonRejected({ reason: "too-deep", maxDepth }))
  return Result.try({
    try: (): unknown => JSON.parse(text),
    catch: (cause) => new JsonRejected({ reason: "syntax", maxDepth, cause })
  })
}
