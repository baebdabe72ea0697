/**
 * `write_file`: writes UTF-8 text atomically, creating parent directories, and says when it
 * overwrote an existing file.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Schema } from "effect"
import { ToolError } from "../../domain/errors.js"
import { WorkspacePath } from "../../domain/WorkspacePath.js"
import { Workspace } from "../../services/Workspace.js"
import { make } from "../define.js"
import { writeFileAtomic } from "../shared/atomicWrite.js"

export const writeFile = make("write_file", {
  description:
    "Write UTF-8 text to a file in the workspace, creating parent directories. Replaces the file if it exists.",
  parameters: Schema.Struct({
    filepath: WorkspacePath.annotations({ description: "Path of the file, relative to the workspace root" }),
    content: Schema.String.annotations({ description: "The full text to write" })
  }),
  requiresConfirmation: true,
  scopedWrite: true,
  tags: ["files", "builtin"],
  timeout: "30 seconds",
  handler: ({ content, filepath }) =>
    Effect.gen(function*() {
      const workspace = yield* Workspace
      const fs = yield* FileSystem.FileSystem
      const path = filepath // resolved by the executor
      const existing = yield* Effect.option(fs.stat(path))
      if (existing._tag === "Some" && existing.value.type === "Directory") {
        return yield* new ToolError({ tool: "write_file", message: `"${filepath}" is a directory` })
      }
      yield* writeFileAtomic(path, content)
      const shown = yield* workspace.display(path)
      const bytes = Buffer.byteLength(content)
      return `Wrote ${bytes} bytes to ${shown}${existing._tag === "Some" ? " (overwrote an existing file)" : ""}`
    })
})
