/**
 * `diff_text`: a unified diff of two strings, by the `diff` package.
 *
 * `diff`'s line diff costs several microseconds per line even where the texts agree, all of it
 * synchronous, so the lines the two texts share at their start and end are set aside first
 * (one linear scan, no line arrays): only the part between, with `context_lines` of the shared
 * lines around it, is given to `structuredPatch`, and the hunks are moved back to their real
 * line numbers. That part is bounded (`DIFF_MAX_LINES`, `DIFF_MAX_CHARS`) and the diff itself
 * has a deadline (`DIFF_TIMEOUT_MS`); past either the answer says which lines differ and to
 * compare smaller parts.
 *
 * @since 0.1.0
 */
import { FILE_HEADERS_ONLY, formatPatch, structuredPatch } from "diff"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { ToolError } from "../../../domain/errors.js"
import { make } from "../../define.js"
import { capOutput } from "../../shared/outputCap.js"

const TOOL = "diff_text"

/** Most lines of either text's differing part that are diffed. */
export const DIFF_MAX_LINES = 100_000
/** Most characters of either text's differing part that are diffed. */
export const DIFF_MAX_CHARS = 4 * 1024 * 1024
/** How long the diff itself may run. */
export const DIFF_TIMEOUT_MS = 5000

/** Start of the line holding `i` (the index after the previous `\n`). */
const lineStartAt = (text: string, i: number): number => (i <= 0 ? 0 : text.lastIndexOf("\n", i - 1) + 1)

/** Newlines in `text[from, to)`. */
const newlines = (text: string, from: number, to: number): number => {
  let n = 0
  for (let i = text.indexOf("\n", from); i !== -1 && i < to; i = text.indexOf("\n", i + 1)) n++
  return n
}

/**
 * Moves `start` (a line start) back by `lines` lines. (Here and in `forwardLines` and
 * `middleOf`, a bound checked before a `charCodeAt` or a line search is a shortcut: its `true`
 * and off-by-one mutants are equivalent, as past either end charCodeAt is NaN and the search
 * stays put; left unmarked, as a mark would also hide the killed `false`.)
 */
const backLines = (text: string, start: number, lines: number): number => {
  let s = start
  for (let k = 0; k < lines && s > 0; k++) s = lineStartAt(text, s - 1)
  return s
}

/** Moves `end` (a line start, or the text's end) forward by `lines` lines. */
const forwardLines = (text: string, end: number, lines: number): number => {
  let e = end
  for (let k = 0; k < lines && e < text.length; k++) {
    const nl = text.indexOf("\n", e)
    e = nl === -1 ? text.length : nl + 1
  }
  return e
}

/**
 * The differing middle of `a` and `b` with `context` shared lines around it: where it starts in
 * each (the same offset and line, since what comes before is equal) and where it ends.
 */
export const middleOf = (a: string, b: string, context: number) => {
  const shortest = Math.min(a.length, b.length)
  let p = 0
  while (p < shortest && a.charCodeAt(p) === b.charCodeAt(p)) p++
  const start = backLines(a, lineStartAt(a, p), context)
  // the shared end, not reaching into the shared start, begun at a line start in both
  let s = 0
  const room = shortest - lineStartAt(a, p)
  while (s < room && a.charCodeAt(a.length - 1 - s) === b.charCodeAt(b.length - 1 - s)) s++
  let endA = a.length - s
  const atLineStart = (t: string, i: number) => i === 0 || t.charCodeAt(i - 1) === 0x0a
  // (`s > 0` as `true` is equivalent: with no shared end, a.indexOf finds no "\n" past a's end and adds s, 0)
  if (s > 0 && !(atLineStart(a, endA) && atLineStart(b, b.length - s))) {
    // the shared end is the same text in both: its first line break is at the same offset
    const nl = a.indexOf("\n", endA)
    endA += nl === -1 ? s : nl + 1 - endA
  }
  endA = forwardLines(a, endA, context)
  // b's end is as far from its end as a's
  const endB = b.length - (a.length - endA)
  return { start, startLine: newlines(a, 0, start), endA, endB }
}

/**
 * The lines of a part of a text: a last line without a line break counts, the empty "line" after
 * a final one does not. (`part === ""` as `false` is equivalent where it is used: one side of a
 * diff is empty only when the other is not, and the larger count is the one read.)
 */
const linesOf = (part: string): number => newlines(part, 0, part.length) + (part === "" || part.endsWith("\n") ? 0 : 1)

/**
 * The unified diff of `a` and `b` (`--- a`, `+++ b`, hunks; no final newline), a sentence when
 * they are identical or differ only in line endings, or why it cannot be computed (`Left`).
 * Not capped.
 */
export const unifiedDiff = (a: string, b: string, context: number): Either.Either<string, string> => {
  if (a === b) return Either.right("The texts are identical.")
  const lf = (s: string) => s.replace(/\r\n?/g, "\n")
  if (lf(a) === lf(b)) {
    const kind = (s: string) => (s.includes("\r\n") ? "CRLF" : s.includes("\r") ? "CR" : "LF")
    return Either.right(`The texts differ only in their line endings (a: ${kind(a)}, b: ${kind(b)}).`)
  }
  const { endA, endB, start, startLine } = middleOf(a, b, context)
  const midA = a.slice(start, endA)
  const midB = b.slice(start, endB)
  const linesA = linesOf(midA)
  const linesB = linesOf(midB)
  const where = `the texts differ between line ${startLine + 1} and line ${startLine + Math.max(linesA, linesB)}`
  if (Math.max(linesA, linesB) > DIFF_MAX_LINES || Math.max(midA.length, midB.length) > DIFF_MAX_CHARS) {
    return Either.left(
      `${where}: more than ${DIFF_MAX_LINES} lines or ${DIFF_MAX_CHARS} characters to compare at once; diff smaller parts`
    )
  }
  const patch = structuredPatch("a", "b", midA, midB, undefined, undefined, { context, timeout: DIFF_TIMEOUT_MS })
  if (patch === undefined) {
    return Either.left(`${where}, too differently to compute a diff within ${DIFF_TIMEOUT_MS / 1000} s; diff smaller parts`)
  }
  const shifted = {
    ...patch,
    hunks: patch.hunks.map((h) => ({ ...h, oldStart: h.oldStart + startLine, newStart: h.newStart + startLine }))
  }
  const text = formatPatch(shifted, FILE_HEADERS_ONLY)
  // Stryker disable next-line StringLiteral: formatPatch always ends its text with "\n", so endsWith("") is the same test
  return Either.right(text.endsWith("\n") ? text.slice(0, -1) : text)
}

export const diffText = make(TOOL, {
  description: "Show the differences between two texts as a unified diff (--- a, +++ b, @@ hunks), with context_lines " +
    "unchanged lines around each change. Says so when the texts are identical or differ only in line endings. " +
    `The differing part is limited to ${DIFF_MAX_LINES} lines; a long diff is cut and says so.`,
  parameters: Schema.Struct({
    a: Schema.String.annotations({ description: "The original text" }),
    b: Schema.String.annotations({ description: "The changed text" }),
    context_lines: Schema.optionalWith(
      Schema.Int.pipe(Schema.between(0, 100)).annotations({ description: "Unchanged lines shown around each change" }),
      { default: () => 3 }
    )
  }),
  readOnly: true,
  tags: ["text", "ported"],
  timeout: "30 seconds",
  handler: ({ a, b, context_lines }) =>
    Effect.suspend(() =>
      Either.match(unifiedDiff(a, b, context_lines), {
        onLeft: (message) => Effect.fail(new ToolError({ tool: TOOL, message })),
        onRight: (text) =>
          Effect.succeed(capOutput(text, { atLine: true, rest: "lower context_lines or diff smaller parts of the texts" }))
      })
    )
})
