/**
 * `move_file`: moves (renames) a file or a directory inside the workspace. Both paths are
 * `WorkspacePath`s, so the executor resolves both and the mode gate checks both (in plan mode
 * the call passes only when both lie under `plans/`). The move is bound to the checked
 * directories (`shared/safeFsMove.ts`) and holds the locks of both paths.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { ToolError } from "../../../domain/errors.js"
import { WorkspacePath } from "../../../domain/WorkspacePath.js"
import { Workspace } from "../../../services/Workspace.js"
import { make } from "../../define.js"
import { withPathLocks } from "../../shared/pathLock.js"
import { moveEntry } from "../../shared/safeFsMove.js"

const TOOL = "move_file"

export const moveFile = make(TOOL, {
  description: "Move or rename a file (or a directory) inside the workspace, creating the destination's parent " +
    "directories. destination is the full new path, not a folder to move into. An existing file at the destination " +
    "is an error unless overwrite is true; an existing directory there is never replaced.",
  parameters: Schema.Struct({
    source: WorkspacePath.annotations({
      description: "Path of the file or directory to move, relative to the workspace root"
    }),
    destination: WorkspacePath.annotations({ description: "Its new path, relative to the workspace root" }),
    overwrite: Schema.optionalWith(
      Schema.Boolean.annotations({ description: "Replace a file already at the destination" }),
      { default: () => false }
    )
  }),
  scopedWrite: true,
  tags: ["files", "ported"],
  timeout: "30 seconds",
  handler: ({ destination, overwrite, source }) =>
    Effect.gen(function*() {
      const workspace = yield* Workspace
      const root = yield* workspace.root
      const from = yield* workspace.display(source)
      const to = yield* workspace.display(destination)
      const moved = yield* moveEntry(root, source, destination, { overwrite }).pipe(
        withPathLocks([source, destination]),
        Effect.mapError((error) =>
          new ToolError({
            tool: TOOL,
            message: error._tag === "SafeFsError" && error.code === "EXDEV"
              ? `${from} and ${to} are on different file systems; nothing was moved (copy_file, then delete_file)`
              : `${error.message}; nothing was moved`,
            cause: error
          })
        )
      )
      return `Moved ${moved.kind === "directory" ? "directory " : ""}${from} to ${to}` +
        (moved.replaced ? " (replaced an existing file)" : "")
    })
})
