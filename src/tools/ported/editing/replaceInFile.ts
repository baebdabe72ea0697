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
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { ToolError } from "../../../domain/errors.js"
import { WorkspacePath } from "../../../domain/WorkspacePath.js"
import { make } from "../../define.js"
import { eolOf, withEol } from "./lines.js"
import { editTextFile, plural } from "./textFile.js"

const TOOL = "replace_in_file"

/** Most line numbers an "ambiguous" error lists. */
const LISTED_LINES = 10

/** Start offsets of the non-overlapping occurrences of `needle` in `text`, left to right. */
const occurrencesOf = (text: string, needle: string): Array<number> => {
  const found: Array<number> = []
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length)) found.push(i)
  return found
}

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
    filepath: WorkspacePath.annotations({
      description: "Path of an existing text file, relative to the workspace root"
    }),
    old_text: Schema.String.pipe(Schema.minLength(1)).annotations({
      description: "The exact text to replace; include surrounding lines to make it unique"
    }),
    new_text: Schema.String.annotations({ description: "The text to put in its place (\"\" deletes it)" }),
    count: Schema.optional(
      Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)).annotations({
        description: "Replace the first count occurrences; required when old_text occurs more than once"
      })
    )
  }),
  scopedWrite: true,
  tags: ["files", "ported"],
  timeout: "30 seconds",
  handler: ({ count, filepath, new_text, old_text }) =>
    editTextFile(TOOL, filepath, (current, shown) =>
      Effect.gen(function*() {
        const fail = (message: string) => new ToolError({ tool: TOOL, message })
        // Stryker disable next-line StringLiteral: current is always Some (this tool does not create missing files), so the fallback is never used
        const text = Option.getOrElse(current, () => "")
        const eol = eolOf(text)
        const variants: Array<readonly [string, string]> = eol === undefined
          ? [[old_text, new_text]]
          : [[withEol(old_text, eol), withEol(new_text, eol)], [old_text, new_text]]
        let chosen: readonly [string, string, Array<number>] | undefined
        for (const [from, to] of variants) {
          const found = occurrencesOf(text, from)
          if (found.length > 0) {
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
        if (count === undefined && found.length > 1) {
          const lines = lineNumbersOf(text, found.slice(0, LISTED_LINES))
          const more = found.length > LISTED_LINES ? `, ... (${found.length - LISTED_LINES} more)` : ""
          return yield* fail(
            `old_text occurs ${found.length} times in ${shown} (at lines ${lines.join(", ")}${more}); nothing was ` +
              "changed: pass count to replace the first ones, or include surrounding lines in old_text to make it " +
              "unique"
          )
        }
        const replaced = found.slice(0, count ?? 1)
        let edited = ""
        let last = 0
        for (const offset of replaced) {
          edited += text.slice(last, offset) + to
          last = offset + from.length
        }
        edited += text.slice(last)
        const left = found.length - replaced.length
        return {
          text: edited,
          message: `Replaced ${plural(replaced.length, "occurrence")} in ${shown}` +
            (left > 0 ? ` (${plural(left, "more occurrence")} left unchanged)` : "")
        }
      }))
})
