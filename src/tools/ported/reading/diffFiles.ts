/**
 * `diff_files`: a unified diff of two workspace text files (the `diff` package), with
 * `context_lines` lines of context. Both paths are `WorkspacePath`s, resolved and checked by
 * the executor. Each file is read whole through a checked descriptor up to `DIFF_MAX_BYTES`;
 * the diff is given `DIFF_TIMEOUT_MS` and, past `MAX_OUTPUT_BYTES`, cut after a whole hunk with
 * a note that says where the rest begins.
 *
 * @since 0.1.0
 */
import { FILE_HEADERS_ONLY, formatPatch, structuredPatch } from "diff"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { WorkspacePath } from "../../../domain/WorkspacePath.js"
import { Workspace } from "../../../services/Workspace.js"
import { make } from "../../define.js"
import { openFile } from "../../shared/safeFs.js"
import { readText } from "../../shared/safeFsRead.js"
import { failure, fileFailure, MAX_OUTPUT_BYTES, TAGS } from "./common.js"

/** Largest file compared. */
export const DIFF_MAX_BYTES = 4 * 1024 * 1024
/** Longest a diff may compute (synchronously); past it the call fails and says so. */
export const DIFF_TIMEOUT_MS = 5000
/** Largest `context_lines`. */
export const DIFF_MAX_CONTEXT = 1000

const TOOL = "diff_files"

const read = (path: string) =>
  Effect.scoped(Effect.flatMap(openFile(path), (file) => readText(file, DIFF_MAX_BYTES))).pipe(
    Effect.mapError(fileFailure(TOOL))
  )

export const diffFiles = make(TOOL, {
  description: "Compare two UTF-8 text files of the workspace and show a unified diff (lines starting with - are " +
    `only in file_a, + only in file_b). Files of up to ${DIFF_MAX_BYTES / 1024 / 1024} MiB.`,
  parameters: Schema.Struct({
    file_a: WorkspacePath.annotations({ description: "The first (old) file, relative to the workspace root" }),
    file_b: WorkspacePath.annotations({ description: "The second (new) file, relative to the workspace root" }),
    context_lines: Schema.optionalWith(
      Schema.Int.pipe(Schema.between(0, DIFF_MAX_CONTEXT)).annotations({
        description: "Unchanged lines shown around each change"
      }),
      { default: () => 3 }
    )
  }),
  readOnly: true,
  tags: TAGS,
  timeout: "30 seconds",
  handler: ({ context_lines, file_a, file_b }) =>
    Effect.gen(function*() {
      const workspace = yield* Workspace
      const [a, b] = yield* Effect.all([read(file_a), read(file_b)])
      const shownA = yield* workspace.display(file_a)
      const shownB = yield* workspace.display(file_b)
      if (a === b) return `The files are identical (${shownA}, ${shownB}).`
      const patch = structuredPatch(shownA, shownB, a, b, undefined, undefined, {
        context: context_lines,
        timeout: DIFF_TIMEOUT_MS
      })
      if (patch === undefined) {
        return yield* failure(
          TOOL,
          `the files differ too much to diff within ${DIFF_TIMEOUT_MS / 1000} s; compare smaller parts (read_lines)`
        )
      }
      // as many whole hunks as fit in the output cap (at least one)
      let shown = 0
      let bytes = shownA.length + shownB.length + 10
      for (const hunk of patch.hunks) {
        const size = hunk.lines.reduce((sum, line) => sum + line.length + 1, 40)
        if (shown > 0 && bytes + size > MAX_OUTPUT_BYTES) break
        bytes += size
        shown++
      }
      const formatted = formatPatch({ ...patch, hunks: patch.hunks.slice(0, shown) }, FILE_HEADERS_ONLY)
      // Stryker disable next-line StringLiteral: equivalent, formatPatch ends every patch with a line feed
      const text = formatted.endsWith("\n") ? formatted.slice(0, -1) : formatted
      const first = patch.hunks[0]
      if (text.length > MAX_OUTPUT_BYTES && first !== undefined) {
        // one hunk over the cap on its own: cut it at a line
        const cut = text.lastIndexOf("\n", MAX_OUTPUT_BYTES)
        return `${text.slice(0, cut)}\n(the diff is cut at ${MAX_OUTPUT_BYTES} bytes inside its first hunk, which begins at ` +
          `line ${first.oldStart} of ${shownA} and line ${first.newStart} of ${shownB}: compare smaller parts with read_lines)`
      }
      const rest = patch.hunks[shown]
      if (rest === undefined) return text
      return `${text}\n(the diff stops after ${shown} of ${patch.hunks.length} hunks, at ${MAX_OUTPUT_BYTES} bytes; the rest begins ` +
        `at line ${rest.oldStart} of ${shownA} and line ${rest.newStart} of ${shownB}: read those parts with read_lines, ` +
        "or lower context_lines)"
    })
})
