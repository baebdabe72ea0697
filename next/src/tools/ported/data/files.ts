/**
 * Reading a workspace file for the data tools: through the bound descriptor (`openFile`,
 * `readText`), with a byte cap, every failure a `ToolError` in the tool's words.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { ToolError } from "../../../domain/errors.js"
import type { ResolvedPath } from "../../../domain/WorkspacePath.js"
import { openFile } from "../../shared/safeFs.js"
import type { BinaryFile, FileTooLarge, SafeFsError } from "../../shared/safeFsError.js"
import { readText } from "../../shared/safeFsRead.js"

/** The largest file `read_json` and `read_csv` read. */
export const DATA_FILE_MAX_BYTES = 10 * 1024 * 1024

/** The `ToolError` of a failed read; `tooLarge` says what to do instead when the file is over the cap. */
export const readError = (tool: string, tooLarge?: string) => (error: SafeFsError | FileTooLarge | BinaryFile) =>
  new ToolError({
    tool,
    message: error._tag === "FileTooLarge" && tooLarge !== undefined ? `${error.message}; ${tooLarge}` : error.message,
    cause: error
  })

/** The file at `path` as UTF-8 text, at most `limit` bytes. */
export const readTextFile = (
  tool: string,
  path: ResolvedPath,
  limit: number,
  tooLarge: string
): Effect.Effect<string, ToolError> =>
  Effect.scoped(Effect.flatMap(openFile(path), (file) => readText(file, limit))).pipe(
    Effect.mapError(readError(tool, tooLarge))
  )
