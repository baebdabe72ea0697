/**
 * `diff_files`: a unified diff of two workspace text files (the `diff` package), with
 * `context_lines` lines of context. Both paths are `WorkspacePath`s, resolved and checked by
 * the executor. Each file is read whole through a checked descriptor up to `DIFF_MAX_BYTES`.
 *
 * Myers' diff is synchronous and O(N·D): seconds on two dissimilar files of a few MiB, during
 * which no other fiber, timer or timeout of the host could run. So the bytes go to a worker
 * thread (`shared/diffWorker.ts`), which decodes, compares and diffs them there with
 * `DIFF_TIMEOUT_MS` to find the diff; the call's timeout or interruption terminates it. Past
 * `MAX_OUTPUT_BYTES` the diff is cut after a whole hunk with a note that says where the rest
 * begins.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { WorkspacePath } from "../../../domain/WorkspacePath.js"
import { Workspace } from "../../../services/Workspace.js"
import { make } from "../../defineBuiltin.js"
import { type Diff, diffInWorker } from "../../shared/diffWorker.js"
import { openFile } from "../../shared/safeFs.js"
import { readBytes } from "../../shared/safeFsBytes.js"
import { checkFirstBlock, FIRST_BLOCK_BYTES } from "../../shared/safeFsRead.js"
import { failure, fileFailure, MAX_OUTPUT_BYTES, TAGS } from "./common.js"

/** Largest file compared. */
export const DIFF_MAX_BYTES = 4 * 1024 * 1024
/** Longest the diff may search (in its worker); past it the call fails and says so. */
export const DIFF_TIMEOUT_MS = 5000
/** Largest `context_lines`. */
export const DIFF_MAX_CONTEXT = 1000

const TOOL = "diff_files"

/** A file's bytes, refused as `readText` would: over the cap, or binary by its first block. */
const read = (path: string) =>
  Effect.scoped(Effect.flatMap(openFile(path), (file) =>
    Effect.tap(readBytes(file, DIFF_MAX_BYTES), (bytes) =>
      checkFirstBlock(file, bytes, Math.min(bytes.length, FIRST_BLOCK_BYTES))))).pipe(
    Effect.mapError(fileFailure(TOOL))
  )

/** `a` and `b` hold the same bytes (one native comparison). */
const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0

/** The diff as shown: as many whole hunks as fit in the output cap (at least one), with a note on the rest. */
const shownDiff = (patch: Diff, shownA: string, shownB: string): string => {
  const { hunks } = patch
  let shown = 0
  let bytes = shownA.length + shownB.length + 10
  for (const hunk of hunks) {
    const size = 40 + hunk.lineChars
    if (shown > 0 && bytes + size > MAX_OUTPUT_BYTES) break
    bytes += size
    shown++
  }
  const end = shown === hunks.length ? patch.text.length : (hunks[shown - 1]?.end ?? patch.text.length)
  // formatPatch ends every patch and hunk with a line feed: not shown
  const text = patch.text.slice(0, end - 1)
  const first = hunks[0]
  if (text.length > MAX_OUTPUT_BYTES && first !== undefined) {
    // one hunk over the cap on its own: cut it at a line
    const cut = text.lastIndexOf("\n", MAX_OUTPUT_BYTES)
    return `${text.slice(0, cut)}\n(the diff is cut at ${MAX_OUTPUT_BYTES} bytes inside its first hunk, which begins at ` +
      `line ${first.oldStart} of ${shownA} and line ${first.newStart} of ${shownB}: compare smaller parts with read_lines)`
  }
  const rest = hunks[shown]
  if (rest === undefined) return text
  return `${text}\n(the diff stops after ${shown} of ${hunks.length} hunks, at ${MAX_OUTPUT_BYTES} bytes; the rest begins ` +
    `at line ${rest.oldStart} of ${shownA} and line ${rest.newStart} of ${shownB}: read those parts with read_lines, ` +
    "or lower context_lines)"
}

export const diffFiles = make(TOOL, {
  description: "Compare two UTF-8 text files of the workspace and show a unified diff (lines starting with - are " +
    `only in file_a, + only in file_b). Files of up to ${DIFF_MAX_BYTES / 1024 / 1024} MiB.`,
  parameters: Schema.Struct({
    file_a: WorkspacePath.annotate({ description: "The first (old) file, relative to the workspace root" }),
    file_b: WorkspacePath.annotate({ description: "The second (new) file, relative to the workspace root" }),
    context_lines: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: DIFF_MAX_CONTEXT })).annotate({
      description: "Unchanged lines shown around each change"
    }).pipe(Schema.withDecodingDefaultType(Effect.succeed(3)))
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
      const identical = `The files are identical (${shownA}, ${shownB}).`
      if (sameBytes(a, b)) return identical
      const outcome = yield* diffInWorker({
        nameA: shownA,
        nameB: shownB,
        a,
        b,
        context: context_lines,
        timeoutMs: DIFF_TIMEOUT_MS,
        shift: 0
      }).pipe(Effect.mapError((error) => failure(TOOL, `${error.message}; compare smaller parts (read_lines)`, error)))
      if (outcome.kind === "same") return identical
      if (outcome.kind === "tooDifferent") {
        return yield* failure(
          TOOL,
          `the files differ too much to diff within ${DIFF_TIMEOUT_MS / 1000} s; compare smaller parts (read_lines)`
        )
      }
      return shownDiff(outcome, shownA, shownB)
    })
})
