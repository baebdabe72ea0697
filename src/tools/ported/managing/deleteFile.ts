/**
 * `delete_file`: removes one regular file, bound to its checked directory
 * (`shared/safeFsMove.ts`). A directory is an error. Needs confirmation.
 *
 * The path is resolved like every path argument: a symbolic link inside the workspace names
 * the file it points to, and that file is what is deleted.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { ToolError } from "../../../domain/errors.js"
import { WorkspacePath } from "../../../domain/WorkspacePath.js"
import { Workspace } from "../../../services/Workspace.js"
import { make } from "../../defineBuiltin.js"
import { withPathLock } from "../../shared/pathLock.js"
import { deleteFile as deleteBound } from "../../shared/safeFsMove.js"

const TOOL = "delete_file"

export const deleteFile = make(TOOL, {
  description: "Delete a file in the workspace. Files only: a directory is an error. Take a snapshot_file first " +
    "if the content may be needed again.",
  parameters: Schema.Struct({
    filepath: WorkspacePath.annotate({ description: "Path of the file to delete, relative to the workspace root" })
  }),
  requiresConfirmation: true,
  tags: ["files", "ported"],
  timeout: "30 seconds",
  handler: ({ filepath }) =>
    Effect.gen(function*() {
      const workspace = yield* Workspace
      const root = yield* workspace.root
      const shown = yield* workspace.display(filepath)
      if (filepath === root) {
        return yield* new ToolError({
          tool: TOOL,
          message: "the workspace root is a directory; delete_file deletes files only"
        })
      }
      const deleted = yield* withPathLock(filepath)(deleteBound(filepath)).pipe(
        Effect.mapError((error) =>
          new ToolError({
            tool: TOOL,
            message: error.reason === "IsDirectory"
              ? `${shown} is a directory; delete_file deletes files only`
              : `${error.message}; nothing was deleted`,
            cause: error
          })
        )
      )
      return `Deleted ${shown} (${deleted.bytes} bytes)`
    })
})
