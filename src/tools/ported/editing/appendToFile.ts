/**
 * `append_to_file`: adds lines at the end of a text file, creating it if missing. Creating a
 * file is what `write_file` asks confirmation for, so this tool asks for it too in that case
 * (`asksConfirmation`), as it is about to create the file: the new file is put in place
 * without replacing anything (`placeBytes`), and one that appeared meanwhile is appended to.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { ToolError } from "../../../domain/errors.js"
import { type ResolvedPath, WorkspacePath } from "../../../domain/WorkspacePath.js"
import { confirmEffect } from "../../../services/CallConfirmation.js"
import { Workspace } from "../../../services/Workspace.js"
import { make } from "../../defineBuiltin.js"
import { withPathLock } from "../../shared/pathLock.js"
import { SafeFsError } from "../../shared/safeFsError.js"
import { placeBytes } from "../../shared/safeFsPlace.js"
import { contentLines, eolOf, joinLines, spliceLines, splitLines } from "./lines.js"
import { type Edit, editTextFile, plural, toToolError } from "./textFile.js"

const TOOL = "append_to_file"

/** The edit of an existing file: `content` as whole lines after its last one. */
const appendTo = (content: string) => (text: string, shown: string): Effect.Effect<Edit> =>
  Effect.sync(() => {
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
  })

/** Whether an edit failed because the file is missing. */
const isMissing = (error: ToolError): boolean => error.cause instanceof SafeFsError && error.cause.reason === "NotFound"

/**
 * Creates the missing file `path` holding `content`, once the call is confirmed; `None` when a
 * file appeared there meanwhile (nothing replaced).
 */
const create = (path: ResolvedPath, content: string) =>
  withPathLock(path)(Effect.gen(function*() {
    const workspace = yield* Workspace
    const root = yield* workspace.root
    const shown = yield* workspace.display(path)
    yield* confirmEffect(TOOL, `would create ${shown}`)
    const bytes = Buffer.from(content, "utf8")
    return yield* placeBytes(root, path, bytes, { overwrite: false }).pipe(
      Effect.as(Option.some(`Created ${shown} with ${bytes.length} bytes`)),
      Effect.catchTags({
        DestinationExists: () => Effect.succeed(Option.none<string>()),
        SafeFsError: (error) => Effect.fail(toToolError(TOOL)(error))
      })
    )
  }))

export const appendToFile = make(TOOL, {
  description: "Append text to the end of a text file in the workspace, creating the file (and its parent " +
    "directories) if it is missing. The text is added as whole lines after the last line; the file's line " +
    "endings (LF or CRLF) and its final newline, or lack of one, are kept. Creating a missing file needs " +
    "confirmation, as write_file does: the call answers CONFIRMATION_REQUIRED unless made with confirm: true.",
  parameters: Schema.Struct({
    filepath: WorkspacePath.annotate({ description: "Path of the file, relative to the workspace root" }),
    content: Schema.String.annotate({
      description: "The text to append: one or more lines (a final line break is optional)"
    })
  }),
  scopedWrite: true,
  asksConfirmation: "when the file is missing and would be created",
  tags: ["files", "ported"],
  timeout: "30 seconds",
  handler: ({ content, filepath }) =>
    editTextFile(TOOL, filepath, appendTo(content)).pipe(
      Effect.catchIf(isMissing, () =>
        Effect.flatMap(create(filepath, content), (created) =>
          Option.match(created, {
            // it appeared meanwhile: appended to like every existing file
            onNone: () => editTextFile(TOOL, filepath, appendTo(content)),
            onSome: Effect.succeed
          })))
    )
})
