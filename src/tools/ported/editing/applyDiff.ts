/**
 * `apply_diff`: applies a unified diff of one file with the `diff` package. Every hunk must
 * apply (context and removed lines matching exactly, at the stated line or nearby), else
 * nothing is written and the error names the first hunk that does not.
 *
 * Parsing and applying run in a worker (`shared/diffWorker.ts`): `applyPatch` splits, searches
 * and joins the whole file, which on a big file takes longer than an event-loop turn may. A hunk
 * whose header lies outside the file (line 300,000,000 of a 10-line file) is refused before
 * `applyPatch` sees it: it would walk from that line back to the file, one line at a time.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { ToolError } from "../../../domain/errors.js"
import { WorkspacePath } from "../../../domain/WorkspacePath.js"
import { make } from "../../defineBuiltin.js"
import { applyInWorker, type HunkNumbers } from "../../shared/diffWorker.js"
import { EDIT_MAX_BYTES, editTextFile, plural } from "./textFile.js"

const TOOL = "apply_diff"

/** Most hunks tried one by one to find the one that does not apply. */
const DIAGNOSED_HUNKS = 50

/** Longest diff taken: the diff of a file the editing tools change, twice over. */
export const APPLY_DIFF_MAX_CHARS = 2 * EDIT_MAX_BYTES

/** The `@@ -a,b +c,d @@` header of a hunk. */
const headerOf = ([oldStart, oldLines, newStart, newLines]: HunkNumbers): string =>
  `@@ -${oldStart},${oldLines} +${newStart},${newLines} @@`

export const applyDiff = make(TOOL, {
  description: "Apply a unified diff (as `diff -u` or `git diff` print it) to one text file in the workspace. Each " +
    "hunk's context and removed lines must match the file exactly (a hunk may sit a few lines off its stated " +
    "position). If any hunk does not apply, nothing is changed and the error names the hunk. The file names in " +
    "the ---/+++ lines are ignored: the diff is applied to filepath.",
  parameters: Schema.Struct({
    filepath: WorkspacePath.annotate({
      description: "Path of the existing text file to patch, relative to the workspace root"
    }),
    diff: Schema.String.check(Schema.isMinLength(1)).annotate({
      description: "The unified diff of this one file: optional ---/+++ lines, then hunks starting with @@ -a,b +c,d @@"
    })
  }),
  scopedWrite: true,
  tags: ["files", "ported"],
  timeout: "30 seconds",
  handler: ({ diff, filepath }) =>
    editTextFile(TOOL, filepath, (text, shown) =>
      Effect.gen(function*() {
        const fail = (message: string) => new ToolError({ tool: TOOL, message })
        if (diff.length > APPLY_DIFF_MAX_CHARS) {
          return yield* fail(
            `the diff is ${diff.length} characters; apply_diff takes at most ${APPLY_DIFF_MAX_CHARS} ` +
              "(split it into several calls, or replace the file with write_file); nothing was changed"
          )
        }
        const applied = yield* applyInWorker(text, diff, DIAGNOSED_HUNKS).pipe(
          Effect.mapError((error) => fail(`${error.message}; nothing was changed (split the diff into smaller ones)`))
        )
        switch (applied.kind) {
          case "unparsable":
            return yield* fail(
              `the diff cannot be parsed: ${applied.message} ` +
                "(check that each hunk's @@ -a,b +c,d @@ counts match its lines); nothing was changed"
            )
          case "files":
            return yield* fail(
              applied.count === 0
                ? "the diff has no hunks (lines starting with @@ -a,b +c,d @@)"
                : `the diff changes ${applied.count} files; apply_diff takes the diff of one file per call`
            )
          case "outside":
            return yield* fail(
              `hunk ${applied.index + 1} of ${applied.total} (${headerOf(applied.hunk)}) lies outside ${shown}, which ` +
                `has ${plural(applied.lines, "line")} (${applied.newLines} after the diff); nothing was changed ` +
                "(read the file again and make the diff against its current text)"
            )
          case "failed": {
            const which = applied.index === null || applied.hunk === null
              ? "a hunk"
              : `hunk ${applied.index + 1} of ${applied.total} (${headerOf(applied.hunk)})`
            return yield* fail(
              `${which} does not apply to ${shown}: its context or removed lines do not match the ` +
                "file; nothing was changed (read the file again and make the diff against its current text)"
            )
          }
          case "applied":
            return {
              text: applied.text,
              message: `Applied ${plural(applied.hunks, "hunk")} to ${shown} (+${applied.added} -${applied.removed} lines)`
            }
        }
      }))
})
