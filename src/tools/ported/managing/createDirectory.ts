/**
 * `create_directory`: creates a directory and its missing parents, one level at a time from the
 * workspace root, each created and opened through its parent's checked descriptor
 * (`ensureDirectory`). An existing directory is fine.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { ToolError } from "../../../domain/errors.js"
import { WorkspacePath } from "../../../domain/WorkspacePath.js"
import { Workspace } from "../../../services/Workspace.js"
import { make } from "../../defineBuiltin.js"
import { ensureDirectory } from "../../shared/atomicWrite.js"
import { openDirectory } from "../../shared/safeFs.js"

const TOOL = "create_directory"

export const createDirectory = make(TOOL, {
  description: "Create a directory in the workspace, with any missing parent directories. " +
    "A directory that already exists is not an error.",
  parameters: Schema.Struct({
    dirpath: WorkspacePath.annotate({ description: "Path of the directory, relative to the workspace root" })
  }),
  tags: ["files", "ported"],
  timeout: "30 seconds",
  handler: ({ dirpath }) =>
    Effect.gen(function*() {
      const workspace = yield* Workspace
      const root = yield* workspace.root
      const shown = yield* workspace.display(dirpath)
      const existed = Result.isSuccess(yield* Effect.result(Effect.scoped(openDirectory(dirpath))))
      if (existed) return `Directory ${shown} already exists`
      yield* Effect.scoped(ensureDirectory(root, dirpath)).pipe(
        Effect.mapError((error) =>
          new ToolError({
            tool: TOOL,
            message: error.reason === "NotDirectory"
              ? `cannot create the directory ${shown}: a file is in the way (${error.message})`
              : error.message,
            cause: error
          })
        )
      )
      return `Created directory ${shown}`
    })
})
