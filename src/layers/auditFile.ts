/**
 * Opens the audit log's file so that nothing placed at its path can take the records elsewhere
 * or stop the host: the file is opened without following a symbolic link at its path and
 * without blocking (a FIFO with no reader fails at once, one with a reader is refused), anything
 * but a regular file is refused, a file that others can read is made private (`0o600`) or
 * refused, and a missing folder is created (`0o700`).
 *
 * The checked descriptor is then reopened through `/proc/self/fd/N` with the platform's
 * `FileSystem` (so that a swapped-in `FileSystem` still sees every write): that opens the very
 * file that was checked, whatever is at the path by then. Where descriptors have no paths
 * (not Linux), the path is opened again after the check; a swap in between is not caught there.
 *
 * @since 0.9.0
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type { PlatformError } from "effect/PlatformError"
import type * as Scope from "effect/Scope"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import type { SafeFsError } from "../tools/shared/safeFsError.js"
import * as SafeFsNode from "../tools/shared/safeFsNode.js"

const C = NodeFs.constants
/** Append, create `0o600`, never through a final symlink, never waiting for a FIFO's reader. */
const APPEND_FLAGS = C.O_WRONLY | C.O_APPEND | C.O_CREAT | (C.O_NOFOLLOW ?? 0) | (C.O_NONBLOCK ?? 0)

/** The audit log's path holds something it must not write to, or cannot be opened. */
export class AuditFileError extends Data.TaggedError("AuditFileError")<{
  readonly file: string
  readonly reason: string
  readonly cause?: unknown
}> {
  override get message(): string {
    return `${this.file}: ${this.reason}`
  }
}

/** Why `open(2)` refused, in the words of the audit log. */
const refusal = (file: string, error: SafeFsError): AuditFileError => {
  switch (error.code) {
    case "ELOOP":
      return new AuditFileError({ file, reason: "it is a symbolic link, which the audit log does not follow", cause: error })
    case "ENXIO":
      return new AuditFileError({ file, reason: "it is a FIFO or socket, not a regular file", cause: error })
    default:
      return new AuditFileError({ file, reason: error.message, cause: error })
  }
}

/** A descriptor of the file at `file` that is a private regular file, closed with the scope. */
const checkedDescriptor = (file: string): Effect.Effect<number, AuditFileError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.mapError(SafeFsNode.open(file, APPEND_FLAGS, 0o600), (error) => refusal(file, error)),
    (fd) =>
      Effect.catch(
        SafeFsNode.close(fd, file),
        (error) => Effect.logWarning(`Audit log ${file}: closing its checked descriptor failed: ${error.message}`)
      )
  ).pipe(
    Effect.tap((fd) =>
      Effect.gen(function*() {
        const stats = yield* Effect.mapError(SafeFsNode.fstat(fd, file), (error) => refusal(file, error))
        if (!stats.isFile()) {
          return yield* new AuditFileError({ file, reason: `it is a ${SafeFsNode.kindOf(stats)}, not a regular file` })
        }
        if ((Number(stats.mode) & 0o077) !== 0) {
          yield* Effect.mapError(
            SafeFsNode.fchmod(fd, file, 0o600),
            (error) =>
              new AuditFileError({
                file,
                reason: `others may read it (mode ${
                  (Number(stats.mode) & 0o777).toString(8)
                }) and it cannot be made private: ${error.message}`,
                cause: error
              })
          )
        }
      })
    )
  )

/**
 * The audit log's file, opened to append, closed with the scope. See the module comment for
 * what is refused.
 */
export const openAuditFile = (
  fs: FileSystem.FileSystem,
  file: string
): Effect.Effect<FileSystem.File, AuditFileError, Scope.Scope> =>
  Effect.gen(function*() {
    const folder = NodePath.dirname(file)
    yield* Effect.mapError(
      fs.makeDirectory(folder, { recursive: true, mode: 0o700 }),
      (error: PlatformError) =>
        new AuditFileError({ file, reason: `its folder cannot be created: ${error.message}`, cause: error })
    )
    const fd = yield* checkedDescriptor(file)
    const target = SafeFsNode.hasFdPaths() ? `${SafeFsNode.fdDir()}${fd}` : file
    return yield* Effect.mapError(
      fs.open(target, { flag: "a", mode: 0o600 }),
      (error) => new AuditFileError({ file, reason: error.message, cause: error })
    )
  })
