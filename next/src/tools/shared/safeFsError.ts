/**
 * The errors of the bound file operations (`safeFs.ts`): what went wrong, on which path, in
 * fields a tool turns into its own message.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"

/**
 * Why a bound file operation failed:
 * - `NotFound`: nothing at the path;
 * - `IsDirectory` / `NotDirectory`: a directory where a file was expected, or the reverse;
 * - `NotRegularFile`: a FIFO, socket or device (`kind` says which), refused without reading;
 * - `Changed`: the path changed between the workspace check and the use (a symbolic link was
 *   swapped in, a directory moved): nothing was read, and nothing written was left;
 * - `Io`: every other system error (`code` is its errno name).
 */
export type SafeFsReason = "NotFound" | "IsDirectory" | "NotDirectory" | "NotRegularFile" | "Changed" | "Io"

/** A bound file operation failed. `path` is the path the caller asked for (absolute). */
export class SafeFsError extends Data.TaggedError("SafeFsError")<{
  readonly reason: SafeFsReason
  readonly path: string
  readonly message: string
  /** The errno name (`ENOENT`, `ELOOP`, ...) when a system call failed. */
  readonly code?: string | undefined
  /** For `NotRegularFile`: `FIFO`, `socket`, `character device`, `block device`. */
  readonly kind?: string | undefined
  readonly cause?: unknown
}> {}

/** A whole-file read met more bytes than its cap; nothing was returned. */
export class FileTooLarge extends Data.TaggedError("FileTooLarge")<{
  readonly path: string
  /** The size `fstat` gave when the file was opened (it may have grown since). */
  readonly size: number
  readonly limit: number
}> {
  override get message(): string {
    return `"${this.path}" is ${this.size} bytes, over the ${this.limit}-byte limit of a whole-file read`
  }
}

/** The file's first block is not UTF-8 text (a NUL byte, or invalid UTF-8). */
export class BinaryFile extends Data.TaggedError("BinaryFile")<{
  readonly path: string
  readonly size: number
}> {
  override get message(): string {
    return `"${this.path}" is a binary file (${this.size} bytes), not UTF-8 text`
  }
}
