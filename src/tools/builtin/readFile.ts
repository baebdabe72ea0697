/**
 * `read_file`: a UTF-8 text file, optionally the first `max_lines` lines.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Schema } from "effect"
import { ToolError } from "../../domain/errors.js"
import { WorkspacePath } from "../../domain/WorkspacePath.js"
import { Workspace } from "../../services/Workspace.js"
import { make } from "../define.js"
import { decodeUtf8, looksBinary } from "../shared/text.js"

/** Largest file `read_file` reads whole (bigger files need `max_lines` or `read_lines`). */
export const READ_FILE_MAX_BYTES = 10 * 1024 * 1024

export const readFile = make("read_file", {
  description: "Read a UTF-8 text file from the workspace. Use max_lines to read only the beginning of a long file.",
  parameters: Schema.Struct({
    filepath: WorkspacePath.annotations({ description: "Path of the file, relative to the workspace root" }),
    max_lines: Schema.optional(
      Schema.Int.pipe(Schema.positive()).annotations({ description: "Read at most this many lines" })
    )
  }),
  readOnly: true,
  tags: ["files", "builtin"],
  timeout: "30 seconds",
  handler: ({ filepath, max_lines }) =>
    Effect.gen(function*() {
      const workspace = yield* Workspace
      const fs = yield* FileSystem.FileSystem
      const path = filepath // resolved by the executor
      const info = yield* fs.stat(path)
      if (info.type === "Directory") {
        return yield* new ToolError({ tool: "read_file", message: `"${filepath}" is a directory, not a file` })
      }
      if (info.type !== "File") {
        return yield* new ToolError({ tool: "read_file", message: `"${filepath}" is not a regular file` })
      }
      if (Number(info.size) > READ_FILE_MAX_BYTES && max_lines === undefined) {
        return yield* new ToolError({
          tool: "read_file",
          message: `"${filepath}" is ${info.size} bytes, over ${READ_FILE_MAX_BYTES}; pass max_lines or use read_lines`
        })
      }
      const bytes = yield* fs.readFile(path)
      if (looksBinary(bytes)) {
        return yield* new ToolError({
          tool: "read_file",
          message: `"${filepath}" is a binary file (${bytes.length} bytes), not UTF-8 text`
        })
      }
      const text = decodeUtf8(bytes)
      if (max_lines === undefined) return text
      const lines = text.split("\n")
      if (text.endsWith("\n")) lines.pop()
      if (lines.length <= max_lines) return text
      return `${lines.slice(0, max_lines).join("\n")}\n... (${lines.length - max_lines} more lines)`
    })
})
