/**
 * `edit_file_line`: replaces one line (by its 1-based number) of a text file.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { ToolError } from "../../../domain/errors.js"
import { WorkspacePath } from "../../../domain/WorkspacePath.js"
import { make } from "../../defineBuiltin.js"
import { contentLines, eolOf, joinLines, spliceLines, splitLines } from "./lines.js"
import { editTextFile, plural } from "./textFile.js"

const TOOL = "edit_file_line"

export const editFileLine = make(TOOL, {
  description: "Replace one line of a text file in the workspace, by its 1-based line number. new_content replaces " +
    "the line's text (its line ending is kept); several lines in new_content replace the one line with all of them. " +
    "Use read_lines to see the numbered lines first.",
  parameters: Schema.Struct({
    filepath: WorkspacePath.annotate({
      description: "Path of an existing text file, relative to the workspace root"
    }),
    line_number: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).annotate({
      description: "1-based number of the line to replace"
    }),
    new_content: Schema.String.annotate({
      description: "The new text of the line, without its line break (\"\" leaves an empty line)"
    })
  }),
  scopedWrite: true,
  tags: ["files", "ported"],
  timeout: "30 seconds",
  handler: ({ filepath, line_number, new_content }) =>
    editTextFile(TOOL, filepath, (text, shown) =>
      Effect.gen(function*() {
        const lines = splitLines(text)
        if (line_number > lines.length) {
          return yield* new ToolError({
            tool: TOOL,
            message: `line_number ${line_number} is out of range: ` + (lines.length === 0
              ? `${shown} is empty (use insert_lines or append_to_file to add lines)`
              : `${shown} has ${plural(lines.length, "line")} (1-${lines.length})`)
          })
        }
        const added = contentLines(new_content)
        const edited = spliceLines(lines, line_number - 1, line_number, added, eolOf(text) ?? "\n")
        return {
          text: joinLines(edited),
          message: added.length === 1
            ? `Replaced line ${line_number} of ${shown}`
            : `Replaced line ${line_number} of ${shown} with ${plural(added.length, "line")} ` +
              `(now ${plural(edited.length, "line")})`
        }
      }))
})
