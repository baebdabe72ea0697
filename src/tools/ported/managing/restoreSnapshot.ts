/**
 * `restore_snapshot`: puts a snapshot's bytes back at the file it was taken of (atomically; a
 * file there now keeps its mode, a deleted one comes back with the mode it had). The target is
 * read from the snapshot's metadata and resolved again through the `Workspace`: metadata that
 * leads out of the workspace is the `PathTraversalError` defect, never a write, and metadata
 * naming a path under a `.git` is refused (`ProtectedPath`) as a path argument would be.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { ToolError } from "../../../domain/errors.js"
import { Workspace } from "../../../services/Workspace.js"
import { refuseProtected } from "../../../layers/protectedPaths.js"
import { make } from "../../defineBuiltin.js"
import { withPathLock } from "../../shared/pathLock.js"
import { openFile } from "../../shared/safeFs.js"
import { readBytes } from "../../shared/safeFsBytes.js"
import { placeBytes } from "../../shared/safeFsPlace.js"
import { contentPathOf, DamagedSnapshot, readMeta, SNAPSHOT_MAX_BYTES, SnapshotId, storeProblem } from "./snapshots.js"

const TOOL = "restore_snapshot"

export const restoreSnapshot = make(TOOL, {
  description: "Restore a file from a snapshot taken with snapshot_file: the file it was taken of gets the " +
    "snapshot's content back (re-created if it was deleted). list_snapshots shows the ids.",
  parameters: Schema.Struct({ snapshot_id: SnapshotId }),
  requiresConfirmation: true,
  tags: ["files", "ported"],
  timeout: "60 seconds",
  handler: ({ snapshot_id }) =>
    Effect.gen(function*() {
      const workspace = yield* Workspace
      const root = yield* workspace.root
      const fail = (message: string, cause?: unknown) => new ToolError({ tool: TOOL, message, cause })
      const problem = yield* storeProblem(root).pipe(Effect.mapError((error) => fail(error.message, error)))
      if (Option.isSome(problem)) return yield* fail(problem.value)
      const meta = yield* readMeta(root, snapshot_id).pipe(
        Effect.mapError((error) =>
          error._tag === "SafeFsError" && error.reason === "NotFound"
            ? fail(`there is no snapshot ${snapshot_id} (list_snapshots lists the snapshots)`, error)
            : fail(
              error._tag === "DamagedSnapshot" ? error.message : `snapshot ${snapshot_id} is damaged: ${error.message}`,
              error
            )
        )
      )
      const target = yield* workspace.resolve(meta.source)
      // the executor checks path arguments; this path comes from metadata anyone could have written
      yield* refuseProtected(TOOL, root, [target])
      const shown = yield* workspace.display(target)
      const restored = yield* withPathLock(target)(Effect.scoped(Effect.gen(function*() {
        const file = yield* openFile(contentPathOf(root, snapshot_id))
        const bytes = yield* readBytes(file, SNAPSHOT_MAX_BYTES)
        if (bytes.length !== meta.size) {
          return yield* new DamagedSnapshot({
            id: snapshot_id,
            reason: `it holds ${bytes.length} bytes, its metadata says ${meta.size}`
          })
        }
        return yield* placeBytes(root, target, bytes, { overwrite: true, mode: meta.mode })
      }))).pipe(
        Effect.mapError((error) =>
          fail(
            error._tag === "DamagedSnapshot"
              ? error.message
              : error._tag !== "DestinationExists" && error.path === contentPathOf(root, snapshot_id)
              ? `snapshot ${snapshot_id} cannot be read: ${error.message}`
              : `${error.message}; nothing was restored`,
            error
          )
        )
      )
      return `Restored ${shown} from snapshot ${snapshot_id} taken at ${meta.created_at} (${restored.bytes} bytes` +
        `${restored.replaced ? "" : ", the file was re-created"})`
    })
})
