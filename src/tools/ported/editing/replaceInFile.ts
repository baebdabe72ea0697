/**
 * `replace_in_file`: replaces exact text. Not found, or found more than once without `count`,
 * is an error and the file is left as it was.
 *
 * Line breaks in `old_text`/`new_text` are written the way the file writes them (a model
 * sends `\n`; a CRLF file is matched and edited with `\r\n`); text that only matches as given
 * (a file with mixed endings) is replaced as given.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { ToolError } from "../../../domain/errors.js"
import { WorkspacePath } from "../../../domain/WorkspacePath.js"
import { make } from "../../defineBuiltin.js"
import { inSlices } from "../../shared/slices.js"
import { eolOf, withEol } from "./lines.js"
import { EDIT_MAX_BYTES, editTextFile, plural } from "./textFile.js"

const TOOL = "replace_in_file"

/**
 * Longest text a replacement may produce, in UTF-16 code units: the size of a file the editing
 * tools change. Checked from the counts before the text is built, far below V8's longest
 * string (2^29 - 24), past which building it would throw.
 */
export const REPLACE_MAX_RESULT_CHARS = EDIT_MAX_BYTES

/** Most line numbers an "ambiguous" error lists. */
const LISTED_LINES = 10

/** Matches looked for in one step of a slice (`shared/slices.ts`). */
const STEP = 4096

/**
 * How often `needle` occurs in `text` (non-overlapping, left to right) and where its first
 * `kept` occurrences start. A one-character needle may occur millions of times, so the search
 * runs in slices and keeps no more offsets than asked (an array of millions, grown as it fills,
 * stalls the thread on its own).
 */
const occurrencesOf = (text: string, needle: string, kept: number) =>
  Effect.suspend(() => {
    const first: Array<number> = []
    let total = 0
    let i = text.indexOf(needle)
    return inSlices(() => {
      for (let k = 0; k < STEP && i >= 0; k++) {
        if (total < kept) first.push(i)
        total++
        i = text.indexOf(needle, i + needle.length)
      }
      return i < 0
    }).pipe(Effect.map(() => ({ total, first })))
  })

/** `text` with its first `n` occurrences of `from` replaced by `to`, built in slices. */
const replaceFirst = (text: string, from: string, to: string, n: number): Effect.Effect<string> =>
  Effect.suspend(() => {
    const parts: Array<string> = []
    let last = 0
    let done = 0
    return inSlices(() => {
      const pieces: Array<string> = []
      for (const end = Math.min(done + STEP, n); done < end; done++) {
        const offset = text.indexOf(from, last)
        pieces.push(text.slice(last, offset), to)
        last = offset + from.length
      }
      parts.push(pieces.join(""))
      return done >= n
    }).pipe(Effect.map(() => parts.join("") + text.slice(last)))
  })

/** The 1-based line numbers of some offsets (in increasing order) of `text`. */
const lineNumbersOf = (text: string, offsets: ReadonlyArray<number>): Array<number> => {
  const numbers: Array<number> = []
  let line = 1
  let from = 0
  for (const offset of offsets) {
    for (let i = text.indexOf("\n", from); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) {
      line++
      from = i + 1
    }
    numbers.push(line)
  }
  return numbers
}

export const replaceInFile = make(TOOL, {
  description: "Replace exact text in a text file in the workspace. old_text must match exactly (whitespace and " +
    "case count) and occur once, unless count says how many occurrences to replace (the first ones, in order). " +
    "If it is not found, or found several times without count, nothing is changed and the error says where it occurs.",
  parameters: Schema.Struct({
    filepath: WorkspacePath.annotate({
      description: "Path of an existing text file, relative to the workspace root"
    }),
    old_text: Schema.String.check(Schema.isMinLength(1)).annotate({
      description: "The exact text to replace; include surrounding lines to make it unique"
    }),
    new_text: Schema.String.annotate({ description: "The text to put in its place (\"\" deletes it)" }),
    count: Schema.optional(
      Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).annotate({
        description: "Replace the first count occurrences; required when old_text occurs more than once"
      })
    )
  }),
  scopedWrite: true,
  tags: ["files", "ported"],
  timeout: "30 seconds",
  handler: ({ count, filepath, new_text, old_text }) =>
    editTextFile(TOOL, filepath, (text, shown) =>
      Effect.gen(function*() {
        const fail = (message: string) => new ToolError({ tool: TOOL, message })
        const eol = eolOf(text)
        const variants: Array<readonly [string, string]> = eol === undefined
          ? [[old_text, new_text]]
          : [[withEol(old_text, eol), withEol(new_text, eol)], [old_text, new_text]]
        let chosen: readonly [string, string, { readonly total: number; readonly first: Array<number> }] | undefined
        for (const [from, to] of variants) {
          const found = yield* occurrencesOf(text, from, LISTED_LINES)
          if (found.total > 0) {
            chosen = [from, to, found]
            break
          }
        }
        if (chosen === undefined) {
          return yield* fail(
            `old_text was not found in ${shown}; nothing was changed ` +
              "(the match is exact: whitespace, indentation and case count)"
          )
        }
        const [from, to, found] = chosen
        if (count === undefined && found.total > 1) {
          const lines = lineNumbersOf(text, found.first)
          const more = found.total > LISTED_LINES ? `, ... (${found.total - LISTED_LINES} more)` : ""
          return yield* fail(
            `old_text occurs ${found.total} times in ${shown} (at lines ${lines.join(", ")}${more}); nothing was ` +
              "changed: pass count to replace the first ones, or include surrounding lines in old_text to make it " +
              "unique"
          )
        }
        const replaced = Math.min(found.total, count ?? 1)
        const size = text.length + replaced * (to.length - from.length)
        if (size > REPLACE_MAX_RESULT_CHARS) {
          return yield* fail(
            `replacing ${plural(replaced, "occurrence")} would make ${shown} ${size} characters long, past the ` +
              `limit of ${REPLACE_MAX_RESULT_CHARS} characters for an edited file; nothing was changed ` +
              "(replace fewer occurrences, or write the file with write_file)"
          )
        }
        const edited = yield* replaceFirst(text, from, to, replaced)
        const left = found.total - replaced
        return {
          text: edited,
          message: `Replaced ${plural(replaced, "occurrence")} in ${shown}` +
            (left > 0 ? ` (${plural(left, "more occurrence")} left unchanged)` : "")
        }
      }))
})
