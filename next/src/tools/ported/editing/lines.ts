/**
 * A text file as lines that remember their own endings, so that an edit changes the lines it
 * touches and nothing else: a CRLF file stays CRLF (a file with mixed endings keeps each
 * line's), and a file without a final newline still has none after the edit.
 *
 * @since 0.1.0
 */

/** A line ending. */
export type Eol = "\n" | "\r\n"

/** One line: its text and what ended it (`""` only for a last line without a final newline). */
export interface Line {
  readonly text: string
  readonly end: Eol | ""
}

/** Splits text into lines; an empty text has none, `"a\n"` has one. */
export const splitLines = (text: string): Array<Line> => {
  const lines: Array<Line> = []
  let start = 0
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", start)) {
    // at a line's start, i - 1 is the previous line's "\n" or before the text (NaN): never a CR
    const crlf = text.charCodeAt(i - 1) === 13
    lines.push({ text: text.slice(start, crlf ? i - 1 : i), end: crlf ? "\r\n" : "\n" })
    start = i + 1
  }
  if (start < text.length) lines.push({ text: text.slice(start), end: "" })
  return lines
}

/** The text of some lines, each with its own ending. */
export const joinLines = (lines: ReadonlyArray<Line>): string => {
  let text = ""
  for (const line of lines) text += line.text + line.end
  return text
}

/** The ending most lines of `text` use (`\r\n` only when CRLF is the majority); `undefined` when it has none. */
export const eolOf = (text: string): Eol | undefined => {
  let lf = 0
  let crlf = 0
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) {
    if (text.charCodeAt(i - 1) === 13) crlf++ // NaN before the text
    else lf++
  }
  return lf + crlf === 0 ? undefined : crlf > lf ? "\r\n" : "\n"
}

/** `text` with every line break (`\n` or `\r\n`) written as `eol`. */
export const withEol = (text: string, eol: Eol): string => text.replace(/\r?\n/g, eol)

/**
 * The lines of a content argument: one final line break is the end of its last line, not an
 * empty line after it (`"a\n"` and `"a"` are both the one line `a`; `""` is one empty line).
 */
export const contentLines = (content: string): Array<string> =>
  content.replace(/\r?\n$/, "").split(/\r?\n/)

/**
 * Replaces `lines[from, to)` with new lines of `texts`, written with `eol`. A replaced range
 * passes its last line's ending on to the last new line (so a line of a mixed file keeps its
 * own). A file without a final newline keeps lacking one: the line that ends up last has no
 * ending, and a line that was last and no longer is gets `eol`.
 */
export const spliceLines = (
  lines: ReadonlyArray<Line>,
  from: number,
  to: number,
  texts: ReadonlyArray<string>,
  eol: Eol
): Array<Line> => {
  const replacedEnd = to > from ? lines[to - 1]?.end : undefined
  const lastNew = texts.length - 1
  const added = texts.map((text, i): Line => ({ text, end: i === lastNew && replacedEnd !== undefined ? replacedEnd : eol }))
  const out = [...lines.slice(0, from), ...added, ...lines.slice(to)]
  const noFinalNewline = lines.at(-1)?.end === ""
  const lastOut = out.length - 1
  return out.map((line, i) => {
    if (i === lastOut) return noFinalNewline ? { text: line.text, end: "" } : line
    return line.end === "" ? { text: line.text, end: eol } : line
  })
}
