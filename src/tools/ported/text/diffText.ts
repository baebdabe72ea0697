/**
 * `diff_text`: a unified diff of two strings, by the `diff` package.
 *
 * `diff`'s line diff costs several microseconds per line even where the texts agree, all of it
 * synchronous, so the lines the two texts share at their start and end are set aside first
 * (`diffTextScan.ts`: native block comparisons, no line arrays): only the part between, with
 * `context_lines` of the shared lines around it, is diffed, and the hunks are moved back to
 * their real line numbers. That part is bounded (`DIFF_MAX_LINES`, `DIFF_MAX_CHARS`, checked
 * before any diff) and the diff has a deadline (`DIFF_TIMEOUT_MS`); past either the answer says
 * which lines differ and to compare smaller parts. A small part (`INLINE_MAX_LINES`,
 * `INLINE_MAX_CHARS`: a few milliseconds of Myers at worst) is diffed here; a larger one in a
 * worker thread (`shared/diffWorker.ts`), so that no call holds the event loop, and the call's
 * timeout terminates it.
 *
 * @since 0.1.0
 */
import { FILE_HEADERS_ONLY, formatPatch, structuredPatch } from "diff"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { ToolError } from "../../../domain/errors.js"
import { make } from "../../defineBuiltin.js"
import { diffInWorker } from "../../shared/diffWorker.js"
import { capOutput } from "../../shared/outputCap.js"
import { linesOf, middleOf, newlines, sameButLineEndings } from "./diffTextScan.js"

export { middleOf } from "./diffTextScan.js"

const TOOL = "diff_text"

/** Most lines of either text's differing part that are diffed. */
export const DIFF_MAX_LINES = 100_000
/** Most characters of either text's differing part that are diffed. */
export const DIFF_MAX_CHARS = 4 * 1024 * 1024
/** How long the diff itself may run. */
export const DIFF_TIMEOUT_MS = 5000
/** Most lines of both differing parts together that are diffed on the calling thread. */
export const INLINE_MAX_LINES = 128
/** Most characters of both differing parts together that are diffed on the calling thread. */
export const INLINE_MAX_CHARS = 32 * 1024

const refused = (message: string) => new ToolError({ tool: TOOL, message })

/** `formatPatch`'s text without the line feed it always ends with. */
const withoutFinalNewline = (text: string): string =>
  text.endsWith("\n") ? text.slice(0, -1) : text

/** A small part's diff, on this thread (`undefined`: past the deadline). */
const diffHere = (midA: string, midB: string, context: number, startLine: number): string | undefined => {
  const patch = structuredPatch("a", "b", midA, midB, undefined, undefined, { context, timeout: DIFF_TIMEOUT_MS })
  if (patch === undefined) return undefined
  const hunks = patch.hunks.map((h) => ({ ...h, oldStart: h.oldStart + startLine, newStart: h.newStart + startLine }))
  return formatPatch({ ...patch, hunks }, FILE_HEADERS_ONLY)
}

/**
 * The unified diff of `a` and `b` (`--- a`, `+++ b`, hunks; no final newline), a sentence when
 * they are identical or differ only in line endings, or a `ToolError` saying why it cannot be
 * computed. Not capped.
 */
export const unifiedDiff = (a: string, b: string, context: number): Effect.Effect<string, ToolError> =>
  Effect.gen(function*() {
    if (a === b) return "The texts are identical."
    const { endA, endB, start } = middleOf(a, b, context)
    const midA = a.slice(start, endA)
    const midB = b.slice(start, endB)
    // what is set aside is equal and cut just after a "\n", so the texts read alike with every
    // line ending as "\n" exactly when their middles do
    if ((midA.includes("\r") || midB.includes("\r")) && (yield* sameButLineEndings(midA, midB))) {
      const kind = (s: string) => (s.includes("\r\n") ? "CRLF" : s.includes("\r") ? "CR" : "LF")
      return `The texts differ only in their line endings (a: ${kind(a)}, b: ${kind(b)}).`
    }
    const startLine = yield* newlines(a, 0, start)
    const linesA = yield* linesOf(midA)
    const linesB = yield* linesOf(midB)
    const where = `the texts differ between line ${startLine + 1} and line ${startLine + Math.max(linesA, linesB)}`
    if (Math.max(linesA, linesB) > DIFF_MAX_LINES || Math.max(midA.length, midB.length) > DIFF_MAX_CHARS) {
      return yield* refused(
        `${where}: more than ${DIFF_MAX_LINES} lines or ${DIFF_MAX_CHARS} characters to compare at once; diff smaller parts`
      )
    }
    const tooDifferent = refused(
      `${where}, too differently to compute a diff within ${DIFF_TIMEOUT_MS / 1000} s; diff smaller parts`
    )
    if (linesA + linesB <= INLINE_MAX_LINES && midA.length + midB.length <= INLINE_MAX_CHARS) {
      const text = diffHere(midA, midB, context, startLine)
      return text === undefined ? yield* tooDifferent : withoutFinalNewline(text)
    }
    const outcome = yield* diffInWorker({
      nameA: "a",
      nameB: "b",
      a: midA,
      b: midB,
      context,
      timeoutMs: DIFF_TIMEOUT_MS,
      shift: startLine
    }).pipe(Effect.mapError((error) => refused(`${where}: ${error.message}; diff smaller parts`)))
    // (the middles differ: `same` cannot come back, and is read as the worker's "too different" would be)
    return outcome.kind === "diff" ? withoutFinalNewline(outcome.text) : yield* tooDifferent
  })

export const diffText = make(TOOL, {
  description: "Show the differences between two texts as a unified diff (--- a, +++ b, @@ hunks), with context_lines " +
    "unchanged lines around each change. Says so when the texts are identical or differ only in line endings. " +
    `The differing part is limited to ${DIFF_MAX_LINES} lines; a long diff is cut and says so.`,
  parameters: Schema.Struct({
    a: Schema.String.annotate({ description: "The original text" }),
    b: Schema.String.annotate({ description: "The changed text" }),
    context_lines: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100 })).annotate({
      description: "Unchanged lines shown around each change"
    }).pipe(Schema.withDecodingDefaultType(Effect.succeed(3)))
  }),
  readOnly: true,
  tags: ["text", "ported"],
  timeout: "30 seconds",
  handler: ({ a, b, context_lines }) =>
    Effect.map(
      unifiedDiff(a, b, context_lines),
      (text) => capOutput(text, { atLine: true, rest: "lower context_lines or diff smaller parts of the texts" })
    )
})
