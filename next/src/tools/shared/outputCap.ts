/**
 * Capping what a tool returns: a text longer than its cap is cut (never inside a surrogate
 * pair, and at a line break when one is near the cut) and ends with a note that says how much
 * was left out and how to get the rest.
 *
 * @since 0.1.0
 */
import { isHighSurrogate } from "./text.js"

/** The default cap on one answer of the ported data and text tools, in UTF-16 code units. */
export const OUTPUT_MAX_CHARS = 256 * 1024

/**
 * The first at most `maxChars` code units of `text`, without splitting a surrogate pair at
 * the cut. Constant work beyond the slice itself.
 */
export const headOf = (text: string, maxChars: number): string => {
  if (text.length <= maxChars) return text
  // (at 0 the code unit at -1 is NaN, not a surrogate)
  const end = isHighSurrogate(text.charCodeAt(maxChars - 1)) ? maxChars - 1 : maxChars
  return text.slice(0, end)
}

/** What `capOutput` takes besides the text. */
export interface CapOptions {
  /** The cap, in UTF-16 code units. Default `OUTPUT_MAX_CHARS`. */
  readonly maxChars?: number
  /** Cut after the last line break of the kept part when it lies in its second half. */
  readonly atLine?: boolean
  /** How to get the rest: ends the note. */
  readonly rest: string
}

/** `text` as it is when within the cap; else its head and a note on what was left out. */
export const capOutput = (text: string, options: CapOptions): string => capHead(text, text.length, options)

/**
 * `capOutput` of a text of `length` characters of which only `head`, its first (at least
 * `maxChars + 1`) characters, is at hand: what a worker that built a long text sends back.
 */
export const capHead = (head: string, length: number, options: CapOptions): string => {
  const maxChars = options.maxChars ?? OUTPUT_MAX_CHARS
  if (length <= maxChars) return head
  let kept = headOf(head, maxChars)
  if (options.atLine === true) {
    const newline = kept.lastIndexOf("\n")
    if (newline >= kept.length / 2) kept = kept.slice(0, newline)
  }
  return `${kept}\n... (cut after ${kept.length} of ${length} characters; ${options.rest})`
}
