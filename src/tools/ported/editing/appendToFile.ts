/**
 * `append_to_file`: adds lines at the end of a text file, creating it if missing.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { WorkspacePath } from "../../../domain/WorkspacePath.js"
import { make } from "../../define.js"
import { contentLines, eolOf, joinLines, spliceLines, splitLines } from "./lines.js"
import { editTextFile, plural } from "./textFile.js"

const TOOL = "append_to_file"

export const appendToFile = make(TOOL, {
  description: "Append text to the end of a text file in the workspace, creating the file (and its parent " +
    "directories) if it is missing. The text is added as whole lines after the last line; the file's line " +
    "endings (LF or CRLF) and its final newline, or lack of one, are kept.",
  parameters: Schema.Struct({
    filepath: WorkspacePath.annotations({ description: "Path of the file, relative to the workspace root" }),
    content: Schema.String.annotations({
      description: "The text to append: one or more lines (a final line break is optional)"
    })
  }),
  scopedWrite: true,
  tags: ["files", "ported"],
  timeout: "30 seconds",
  handler: ({ content, filepath }) =>
    editTextFile(TOOL, filepath, (current, shown) =>
      Effect.sync(() => {
        if (Option.isNone(current)) {
          return { text: content, message: `Created ${shown} with ${Buffer.byteLength(content)} bytes` }
        }
        const text = current.value
        if (content === "") return { text, message: `Nothing to append: content is empty; ${shown} is unchanged` }
        const lines = splitLines(text)
        // an empty file takes the content as it is, with its own line endings
        if (lines.length === 0) {
          return { text: content, message: `Appended ${Buffer.byteLength(content)} bytes to the empty file ${shown}` }
        }
        const added = contentLines(content)
        const edited = spliceLines(lines, lines.length, lines.length, added, eolOf(text) ?? "\n")
        return {
          text: joinLines(edited),
          message: `Appended ${plural(added.length, "line")} to ${shown} (now ${plural(edited.length, "line")})`
        }
      }), { createMissing: true })
})
