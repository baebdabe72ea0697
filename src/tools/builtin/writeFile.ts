/**
 * `write_file`: writes UTF-8 text atomically, creating parent directories, and says when it
 * overwrote an existing file. The write is bound to the resolved path (`shared/atomicWrite.ts`):
 * a directory swapped for a link meanwhile makes it fail cleanly, with nothing left anywhere
 * but the target.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { ToolError } from "../../domain/errors.js"
import { WorkspacePath } from "../../domain/WorkspacePath.js"
import { Workspace } from "../../services/Workspace.js"
import { make } from "../defineBuiltin.js"
import { writeFileAtomic } from "../shared/atomicWrite.js"

const TOOL = "write_file"

/**
 * `write_file` (needs confirmation): writes UTF-8 text to a file of the workspace atomically,
 * creating its parent directories.
 *
 * @since 0.1.0
 * @category tools
 */
export const writeFile = make(TOOL, {
  description:
    "Write UTF-8 text to a file in the workspace, creating parent directories. Replaces the file if it exists.",
  parameters: Schema.Struct({
    filepath: WorkspacePath.annotate({ description: "Path of the file, relative to the workspace root" }),
    content: Schema.String.annotate({ description: "The full text to write" })
  }),
  requiresConfirmation: true,
  scopedWrite: true,
  tags: ["files", "builtin"],
  timeout: "30 seconds",
  handler: ({ content, filepath }) =>
    Effect.gen(function*() {
      const workspace = yield* Workspace
      const root = yield* workspace.root
      const written = yield* writeFileAtomic(root, filepath, content).pipe(
        Effect.mapError((error) => new ToolError({ tool: TOOL, message: error.message, cause: error }))
      )
      const shown = yield* workspace.display(filepath)
      return `Wrote ${written.bytes} bytes to ${shown}${written.replaced ? " (overwrote an existing file)" : ""}`
    })
})
