/**
 * Capping what a tool returns: a text longer than its cap is cut (never inside a surrogate
 * pair, and at a line break when one is near the cut) and ends with a note that says how much
 * was left out and how to get the rest.
 *
 * @since 0.1.0
 */

/** The default cap on one answer of the ported data and text tools, in UTF-16 code units. */
export const OUTPUT_MAX_CHARS = 256 * 1024

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff

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
export const capOutput = (text: string, options: CapOptions): string => {
  const maxChars = options.maxChars ?? OUTPUT_MAX_CHARS
  if (text.length <= maxChars) return text
  let head = headOf(text, maxChars)
  if (options.atLine === true) {
    const newline = head.lastIndexOf("\n")
    if (newline >= head.length / 2) head = head.slice(0, newline)
  }
  return `${head}\n... (cut after ${head.length} of ${text.length} characters; ${options.rest})`
}
