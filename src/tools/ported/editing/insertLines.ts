/**
 * `insert_lines`: inserts lines before a 1-based line number (the line count + 1 appends).
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

const TOOL = "insert_lines"

export const insertLines = make(TOOL, {
  description: "Insert lines into a text file in the workspace before the given 1-based line number; the file's " +
    "line count + 1 appends after the last line. The file's line endings (LF or CRLF) and its final newline, or " +
    "lack of one, are kept. Use read_lines to see the numbered lines first.",
  parameters: Schema.Struct({
    filepath: WorkspacePath.annotate({
      description: "Path of an existing text file, relative to the workspace root"
    }),
    line_number: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).annotate({
      description: "1-based number of the line to insert before (the line count + 1 to append at the end)"
    }),
    content: Schema.String.annotate({ description: "The lines to insert (a final line break is optional)" })
  }),
  scopedWrite: true,
  tags: ["files", "ported"],
  timeout: "30 seconds",
  handler: ({ content, filepath, line_number }) =>
    editTextFile(TOOL, filepath, (text, shown) =>
      Effect.gen(function*() {
        const lines = splitLines(text)
        if (line_number > lines.length + 1) {
          return yield* new ToolError({
            tool: TOOL,
            message: `line_number ${line_number} is out of range: ${shown} has ${plural(lines.length, "line")}, ` +
              `so it must be between 1 and ${lines.length + 1} (${lines.length + 1} appends at the end)`
          })
        }
        // an empty file takes the content as it is, with its own line endings
        if (lines.length === 0) {
          return { text: content, message: `Wrote ${Buffer.byteLength(content)} bytes to the empty file ${shown}` }
        }
        const added = contentLines(content)
        const edited = spliceLines(lines, line_number - 1, line_number - 1, added, eolOf(text) ?? "\n")
        const where = line_number === lines.length + 1 ? "at the end" : `before line ${line_number}`
        return {
          text: joinLines(edited),
          message: `Inserted ${plural(added.length, "line")} ${where} of ${shown} ` +
            `(now ${plural(edited.length, "line")})`
        }
      }))
})
