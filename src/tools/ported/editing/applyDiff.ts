/**
 * `apply_diff`: applies a unified diff of one file with the `diff` package. Every hunk must
 * apply (context and removed lines matching exactly, at the stated line or nearby), else
 * nothing is written and the error names the first hunk that does not.
 *
 * @since 0.1.0
 */
import { applyPatch, parsePatch, type StructuredPatch } from "diff"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { ToolError } from "../../../domain/errors.js"
import { WorkspacePath } from "../../../domain/WorkspacePath.js"
import { make } from "../../define.js"
import { editTextFile, plural } from "./textFile.js"

const TOOL = "apply_diff"

/** Most hunks tried one by one to find the one that does not apply. */
const DIAGNOSED_HUNKS = 50

/** The `@@ -a,b +c,d @@` header of a hunk. */
const headerOf = (hunk: StructuredPatch["hunks"][number]): string =>
  `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`

/** `applyPatch`, with its rare throw as `false`. */
const tryApply = (text: string, patch: StructuredPatch): string | false => {
  try {
    return applyPatch(text, patch)
  } catch {
    return false
  }
}

/** Which hunk fails: applying the first 1, 2, ... hunks until one does not apply. */
const failingHunk = (text: string, patch: StructuredPatch): string => {
  const hunks = patch.hunks
  for (let i = 0; i < Math.min(hunks.length, DIAGNOSED_HUNKS); i++) {
    const hunk = hunks[i]
    if (hunk !== undefined && tryApply(text, { ...patch, hunks: hunks.slice(0, i + 1) }) === false) {
      return `hunk ${i + 1} of ${hunks.length} (${headerOf(hunk)})`
    }
  }
  // the whole patch failed, so a prefix fails by its last hunk at the latest: only a patch of more
  // than DIAGNOSED_HUNKS hunks, failing past them, gets here
  return "a hunk"
}

export const applyDiff = make(TOOL, {
  description: "Apply a unified diff (as `diff -u` or `git diff` print it) to one text file in the workspace. Each " +
    "hunk's context and removed lines must match the file exactly (a hunk may sit a few lines off its stated " +
    "position). If any hunk does not apply, nothing is changed and the error names the hunk. The file names in " +
    "the ---/+++ lines are ignored: the diff is applied to filepath.",
  parameters: Schema.Struct({
    filepath: WorkspacePath.annotations({
      description: "Path of the existing text file to patch, relative to the workspace root"
    }),
    diff: Schema.String.pipe(Schema.minLength(1)).annotations({
      description: "The unified diff of this one file: optional ---/+++ lines, then hunks starting with @@ -a,b +c,d @@"
    })
  }),
  scopedWrite: true,
  tags: ["files", "ported"],
  timeout: "30 seconds",
  handler: ({ diff, filepath }) =>
    editTextFile(TOOL, filepath, (current, shown) =>
      Effect.gen(function*() {
        const fail = (message: string) => new ToolError({ tool: TOOL, message })
        const patches = yield* Effect.try({
          try: () => parsePatch(diff),
          catch: (error) =>
            fail(
              `the diff cannot be parsed: ${error instanceof Error ? error.message.trim() : String(error)} ` +
                "(check that each hunk's @@ -a,b +c,d @@ counts match its lines); nothing was changed"
            )
        })
        const withHunks = patches.filter((p) => p.hunks.length > 0)
        if (withHunks.length > 1) {
          return yield* fail(
            `the diff changes ${withHunks.length} files; apply_diff takes the diff of one file per call`
          )
        }
        const patch = withHunks[0]
        if (patch === undefined) return yield* fail("the diff has no hunks (lines starting with @@ -a,b +c,d @@)")
        // Stryker disable next-line StringLiteral: current is always Some (this tool does not create missing files), so the fallback is never used
        const text = Option.getOrElse(current, () => "")
        const patched = tryApply(text, patch)
        if (patched === false) {
          return yield* fail(
            `${failingHunk(text, patch)} does not apply to ${shown}: its context or removed lines do not match the ` +
              "file; nothing was changed (read the file again and make the diff against its current text)"
          )
        }
        let added = 0
        let removed = 0
        for (const hunk of patch.hunks) {
          for (const line of hunk.lines) {
            if (line.startsWith("+")) added++
            else if (line.startsWith("-")) removed++
          }
        }
        return {
          text: patched,
          message: `Applied ${plural(patch.hunks.length, "hunk")} to ${shown} (+${added} -${removed} lines)`
        }
      }))
})
