/**
 * `read_file`: a UTF-8 text file, optionally the first `max_lines` lines.
 *
 * The file is opened bound to the resolved path (`shared/safeFs.ts`: no final symlink, the
 * descriptor's real path must be the resolved one, FIFOs and devices refused unread) and read
 * as a stream: a whole-file read stops at `READ_FILE_MAX_BYTES`; `max_lines` reads only as far
 * as the lines it returns, then counts the lines that follow up to `READ_FILE_COUNT_BYTES`.
 * Binary detection looks at the first block only.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Match from "effect/Match"
import * as Schema from "effect/Schema"
import { ToolError } from "../../domain/errors.js"
import { WorkspacePath } from "../../domain/WorkspacePath.js"
import { make } from "../defineBuiltin.js"
import { openFile } from "../shared/safeFs.js"
import type { BinaryFile, FileTooLarge, SafeFsError } from "../shared/safeFsError.js"
import { type FirstLines, readFirstLines, readText } from "../shared/safeFsRead.js"

/** Largest file `read_file` reads whole, and most text a `max_lines` read returns. */
export const READ_FILE_MAX_BYTES = 10 * 1024 * 1024

/** Most bytes a `max_lines` read goes through, counting the lines it does not return. */
export const READ_FILE_COUNT_BYTES = 64 * 1024 * 1024

const TOOL = "read_file"

/** How to read past what one call returns. */
const FURTHER = "use read_lines with start_line/end_line to read further"

const toToolError = (error: SafeFsError | FileTooLarge | BinaryFile): ToolError =>
  new ToolError({
    tool: TOOL,
    message: error._tag === "FileTooLarge"
      ? `${error.message}; pass max_lines to read the beginning, or use read_lines with start_line/end_line to read a range`
      : error.message,
    cause: error
  })

/** The text of a `max_lines` read, with a closing line when the file goes on. */
const render = (size: number) =>
  Match.type<FirstLines>().pipe(
    Match.tag("Whole", ({ text }) => text),
    Match.tag("Head", ({ exact, moreLines, text }) =>
      exact
        ? `${text}\n... (${moreLines} more lines)`
        : `${text}\n... (at least ${moreLines} more lines; the file is ${size} bytes: ${FURTHER})`),
    Match.tag("Capped", ({ line, text }) =>
      `${text}\n... (stopped after ${READ_FILE_MAX_BYTES} bytes, inside line ${line}; the file is ${size} bytes: ${FURTHER})`),
    Match.exhaustive
  )

/**
 * `read_file` (read-only): a UTF-8 text file of the workspace, whole or its first `max_lines` lines.
 *
 * @since 0.1.0
 * @category tools
 */
export const readFile = make(TOOL, {
  description: "Read a UTF-8 text file from the workspace. Use max_lines to read only the beginning of a long file.",
  parameters: Schema.Struct({
    filepath: WorkspacePath.annotate({ description: "Path of the file, relative to the workspace root" }),
    max_lines: Schema.optional(
      Schema.Int.check(Schema.isGreaterThan(0)).annotate({ description: "Read at most this many lines" })
    )
  }),
  readOnly: true,
  tags: ["files", "builtin"],
  timeout: "30 seconds",
  handler: ({ filepath, max_lines }) =>
    Effect.scoped(Effect.gen(function*() {
      const file = yield* openFile(filepath)
      if (max_lines === undefined) return yield* readText(file, READ_FILE_MAX_BYTES)
      const lines = yield* readFirstLines(file, {
        maxLines: max_lines,
        maxBytes: READ_FILE_MAX_BYTES,
        readBytes: READ_FILE_COUNT_BYTES
      })
      return render(file.size)(lines)
    })).pipe(Effect.mapError(toToolError))
})
