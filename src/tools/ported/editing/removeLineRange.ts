/**
 * `remove_line_range`: removes lines `start_line` to `end_line` (1-based, inclusive).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { ToolError } from "../../../domain/errors.js"
import { WorkspacePath } from "../../../domain/WorkspacePath.js"
import { make } from "../../defineBuiltin.js"
import { eolOf, joinLines, spliceLines, splitLines } from "./lines.js"
import { editTextFile, plural } from "./textFile.js"

const TOOL = "remove_line_range"

export const removeLineRange = make(TOOL, {
  description: "Remove the lines start_line to end_line (1-based, both included) from a text file in the workspace. " +
    "The other lines, the file's line endings and its final newline, or lack of one, are kept. Use read_lines " +
    "to see the numbered lines first.",
  parameters: Schema.Struct({
    filepath: WorkspacePath.annotate({
      description: "Path of an existing text file, relative to the workspace root"
    }),
    start_line: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).annotate({
      description: "1-based number of the first line to remove"
    }),
    end_line: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).annotate({
      description: "1-based number of the last line to remove (included; equal to start_line removes one line)"
    })
  }),
  scopedWrite: true,
  tags: ["files", "ported"],
  timeout: "30 seconds",
  handler: ({ end_line, filepath, start_line }) =>
    editTextFile(TOOL, filepath, (text, shown) =>
      Effect.gen(function*() {
        const fail = (message: string) => new ToolError({ tool: TOOL, message })
        if (start_line > end_line) {
          return yield* fail(`start_line ${start_line} is after end_line ${end_line}; nothing was removed`)
        }
        const lines = splitLines(text)
        if (end_line > lines.length) {
          return yield* fail(
            `lines ${start_line}-${end_line} are out of range: ` + (lines.length === 0
              ? `${shown} is empty`
              : `${shown} has ${plural(lines.length, "line")} (1-${lines.length})`)
          )
        }
        const edited = spliceLines(lines, start_line - 1, end_line, [], eolOf(text) ?? "\n")
        const removed = end_line - start_line + 1
        return {
          text: joinLines(edited),
          message: `Removed ${plural(removed, "line")} (${start_line}-${end_line}) from ${shown} ` +
            `(now ${plural(edited.length, "line")})`
        }
      }))
})
