/**
 * Shared pieces of the operations on directory entries bound to checked directories
 * (`safeFsPlace.ts`, `safeFsMove.ts`): the no-clobber `link(2)`, the error for an occupied
 * destination, and what an entry met at a destination means.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { changed, type OpenDirectory } from "./safeFs.js"
import { SafeFsError } from "./safeFsError.js"
import * as Node from "./safeFsNode.js"

/** Something is already at the destination and the caller did not ask to replace it. */
export class DestinationExists extends Data.TaggedError("DestinationExists")<{
  readonly path: string
  /** What is there: `file`, `directory`, ... */
  readonly kind: string
}> {
  override get message(): string {
    return `"${this.path}" already exists (a ${this.kind}); pass overwrite: true to replace it`
  }
}

/** An entry of an open directory: the path to use (through its descriptor) and the one to show. */
export interface Entry {
  readonly dir: OpenDirectory
  readonly name: string
  /** `/proc/self/fd/N/name` where descriptors have paths, else the joined path. */
  readonly target: string
  /** The expected real path. */
  readonly path: string
}

/** The entry `name` of an open directory. */
export const entryOf = (dir: OpenDirectory, name: string): Entry => ({
  dir,
  name,
  target: Node.childOf(dir.fd, dir.path, name),
  path: NodePath.join(dir.path, name)
})

/** `lstat` of an entry; `None` when nothing is there. */
export const lstatEntry = (entry: Entry): Effect.Effect<Option.Option<NodeFs.BigIntStats>, SafeFsError> =>
  Node.lstat(entry.target, entry.path).pipe(
    Effect.map(Option.some),
    Effect.catchIf((error) => error.reason === "NotFound", () => Effect.succeed(Option.none()))
  )

/**
 * `link(2)` of `from` as `to`, never following a final link and never replacing anything: an
 * occupied `to` fails with `code: "EEXIST"`. Uninterruptible, as the calls of `safeFsNode.ts`.
 */
export const link = (from: string, to: string, path: string): Effect.Effect<void, SafeFsError> =>
  Effect.uninterruptible(Effect.callback<void, SafeFsError>((resume) => {
    NodeFs.link(from, to, (error) =>
      resume(error === null ? Effect.void : Effect.fail(Node.fromSystemError("link", path, error))))
  }))

/** Errnos of a file system that has no hard links (or refuses them here): fall back to a checked rename. */
export const noHardLinks = (error: SafeFsError): boolean =>
  error.code === "EPERM" || error.code === "ENOTSUP" || error.code === "EOPNOTSUPP" || error.code === "ENOSYS" ||
  error.code === "EMLINK"

/** Fails unless `stats` (an `lstat` at `path`) is a regular file; a symlink means it changed. */
export const requireRegularFile = (stats: NodeFs.BigIntStats, path: string): Effect.Effect<void, SafeFsError> => {
  if (stats.isFile()) return Effect.void
  if (stats.isDirectory()) {
    return Effect.fail(
      new SafeFsError({ reason: "IsDirectory", path, message: `"${path}" is a directory, not a file` })
    )
  }
  if (stats.isSymbolicLink()) return Effect.fail(changed(path))
  const kind = Node.kindOf(stats)
  return Effect.fail(
    new SafeFsError({ reason: "NotRegularFile", path, kind, message: `"${path}" is a ${kind}, not a regular file` })
  )
}

/** Removes `entry` if it is still the file `own` (same device and inode); whether it did. */
export const removeIfSame = (entry: Entry, own: NodeFs.BigIntStats): Effect.Effect<boolean> =>
  lstatEntry(entry).pipe(
    Effect.flatMap((there) =>
      Option.isSome(there) && Node.sameFile(there.value, own)
        ? Effect.as(Node.unlink(entry.target, entry.path), true)
        : Effect.succeed(false)
    ),
    Effect.catch((error) => Effect.as(Effect.logWarning(`could not remove "${entry.path}"`, error), false))
  )
