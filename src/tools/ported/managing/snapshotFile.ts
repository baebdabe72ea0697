/**
 * `snapshot_file`: copies a file into the workspace's snapshot store (`snapshots.ts`) and
 * returns the new snapshot's id. Not a scoped write: where it writes is not a path the caller
 * gives, so read-only modes block it.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { ToolError } from "../../../domain/errors.js"
import { WorkspacePath } from "../../../domain/WorkspacePath.js"
import { Workspace } from "../../../services/Workspace.js"
import { make } from "../../defineBuiltin.js"
import { withPathLock } from "../../shared/pathLock.js"
import { openFile } from "../../shared/safeFs.js"
import { readBytes } from "../../shared/safeFsBytes.js"
import { deleteFile } from "../../shared/safeFsMove.js"
import { placeBytes } from "../../shared/safeFsPlace.js"
import { contentPathOf, encodeMeta, metaPathOf, newSnapshotId, SNAPSHOT_MAX_BYTES, storeProblem } from "./snapshots.js"

const TOOL = "snapshot_file"

export const snapshotFile = make(TOOL, {
  description: "Save a copy of a file (text or binary) in the workspace's .snapshots store and return its " +
    "snapshot id; restore_snapshot puts it back later, list_snapshots lists the snapshots. Take one before a " +
    "risky edit.",
  parameters: Schema.Struct({
    filepath: WorkspacePath.annotate({ description: "Path of the file to snapshot, relative to the workspace root" })
  }),
  tags: ["files", "ported"],
  timeout: "60 seconds",
  handler: ({ filepath }) =>
    Effect.gen(function*() {
      const workspace = yield* Workspace
      const root = yield* workspace.root
      const shown = yield* workspace.display(filepath)
      const fail = (message: string, cause?: unknown) => new ToolError({ tool: TOOL, message, cause })
      const problem = yield* storeProblem(root).pipe(Effect.mapError((error) => fail(error.message, error)))
      if (Option.isSome(problem)) return yield* fail(problem.value)
      const millis = yield* Clock.currentTimeMillis
      const id = yield* newSnapshotId(millis)
      const size = yield* withPathLock(filepath)(Effect.scoped(Effect.gen(function*() {
        const file = yield* openFile(filepath)
        const bytes = yield* readBytes(file, SNAPSHOT_MAX_BYTES)
        yield* placeBytes(root, contentPathOf(root, id), bytes, { overwrite: false })
        const meta = {
          version: 1,
          id,
          source: shown,
          created_at: new Date(millis).toISOString(),
          size: bytes.length,
          mode: file.mode & 0o777
        } as const
        yield* placeBytes(root, metaPathOf(root, id), encodeMeta(meta), { overwrite: false }).pipe(
          // no snapshot without its metadata: take the bytes back out
          Effect.tapError(() => Effect.ignore(deleteFile(contentPathOf(root, id))))
        )
        return bytes.length
      }))).pipe(
        Effect.mapError((error) =>
          fail(
            error._tag === "FileTooLarge"
              ? `${shown} is ${error.size} bytes; snapshot_file keeps files of at most ${SNAPSHOT_MAX_BYTES} bytes`
              : error.message,
            error
          )
        )
      )
      return `Snapshot ${id} of ${shown} (${size} bytes). Restore it with restore_snapshot and snapshot_id "${id}".`
    })
})
