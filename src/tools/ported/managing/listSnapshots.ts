/**
 * `list_snapshots`: the snapshots in the store (`snapshots.ts`), newest first, optionally only
 * those of one file; a page of `LIST_PAGE` at a time (`offset` for the next). Only regular
 * `<id>.json` files with a valid id are read (a symbolic link in the store is never followed),
 * each bound to its path; damaged metadata is counted, not shown.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { ToolError } from "../../../domain/errors.js"
import { WorkspacePath } from "../../../domain/WorkspacePath.js"
import { Workspace } from "../../../services/Workspace.js"
import { make } from "../../defineBuiltin.js"
import { listDirectory, openDirectory } from "../../shared/safeFs.js"
import {
  readMeta,
  SNAPSHOT_DIR,
  SNAPSHOT_ID_PATTERN,
  snapshotDirOf,
  type SnapshotMeta,
  storeProblem
} from "./snapshots.js"

const TOOL = "list_snapshots"

/** Snapshots listed per call. */
export const LIST_PAGE = 100

/** Most metadata files read per call (the newest ids first). */
export const LIST_READ_MAX = 5000

/**
 * The newest first, by time taken. Snapshots taken at the same time keep their order, the
 * greater id first: the ids are read in that order and the sort is stable.
 */
const newestFirst = (a: SnapshotMeta, b: SnapshotMeta): number =>
  a.created_at === b.created_at ? 0 : a.created_at < b.created_at ? 1 : -1

export const listSnapshots = make(TOOL, {
  description: "List the snapshots taken with snapshot_file, newest first: id, the file it was taken of, when, and " +
    "its size. Give filepath to list only that file's snapshots.",
  parameters: Schema.Struct({
    filepath: Schema.optional(
      WorkspacePath.annotate({
        description: "List only the snapshots of this file (relative to the workspace root)"
      })
    ),
    offset: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({
      description: `Skip this many of the newest snapshots (pages of ${LIST_PAGE})`
    }).pipe(Schema.withDecodingDefaultType(Effect.succeed(0)))
  }),
  readOnly: true,
  tags: ["files", "ported"],
  timeout: "30 seconds",
  handler: ({ filepath, offset }) =>
    Effect.gen(function*() {
      const workspace = yield* Workspace
      const root = yield* workspace.root
      const fail = (message: string, cause?: unknown) => new ToolError({ tool: TOOL, message, cause })
      const problem = yield* storeProblem(root).pipe(Effect.mapError((error) => fail(error.message, error)))
      if (Option.isSome(problem)) return yield* fail(problem.value)
      const only = filepath === undefined ? undefined : yield* workspace.display(filepath)

      const listed = yield* Effect.scoped(Effect.flatMap(openDirectory(snapshotDirOf(root)), listDirectory)).pipe(
        Effect.map(Option.some),
        Effect.catchIf((error) => error.reason === "NotFound", () => Effect.succeed(Option.none())),
        Effect.mapError((error) => fail(error.message, error))
      )
      const ids = Option.getOrElse(listed, () => [])
        .filter((entry) => entry.kind === "file" && entry.name.endsWith(".json"))
        .map((entry) => entry.name.slice(0, -".json".length))
        .filter((id) => SNAPSHOT_ID_PATTERN.test(id))
        .sort()
        .reverse()
      const read = ids.slice(0, LIST_READ_MAX)
      const metas = yield* Effect.forEach(read, (id) => Effect.result(readMeta(root, id)), { concurrency: 8 })
      const damaged = metas.filter(Result.isFailure).length
      const found = metas
        .filter(Result.isSuccess)
        .map((m) => m.success)
        .filter((m) => only === undefined || m.source === only)
      found.sort(newestFirst)

      const of = only === undefined ? "" : ` of ${only}`
      const notes: Array<string> = []
      if (damaged > 0) notes.push(`(${damaged} snapshot${damaged === 1 ? "" : "s"} with damaged metadata skipped)`)
      if (ids.length > read.length) {
        notes.push(`(only the newest ${LIST_READ_MAX} of ${ids.length} snapshots in ${SNAPSHOT_DIR} were read)`)
      }
      if (found.length === 0) return [`No snapshots${of}.`, ...notes].join("\n")
      const page = found.slice(offset, offset + LIST_PAGE)
      const lines = page.map((m) => `${m.id}  ${m.source}  ${m.created_at}  ${m.size} bytes`)
      const rest = found.length - offset - page.length
      const head = page.length === 0
        ? `No snapshots${of} past offset ${offset} (there are ${found.length}).`
        : `Snapshots${of}, newest first (${offset + 1}-${offset + page.length} of ${found.length}):`
      if (rest > 0) notes.unshift(`... ${rest} older: call again with offset ${offset + page.length}`)
      return [head, ...lines, ...notes].join("\n")
    })
})
