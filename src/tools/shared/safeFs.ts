/**
 * File access bound to what is actually opened. The executor resolves every `WorkspacePath`
 * to a real path inside the workspace, but that is a check at one moment: a process in the
 * workspace may swap a directory for a symbolic link (or a file for a FIFO) right after it.
 * Every file tool goes through this module, which ties the check to the descriptor it uses:
 *
 * - **open**: `O_NOFOLLOW | O_NONBLOCK` (a final symlink fails, a FIFO opens without waiting),
 *   then the descriptor's real path (`/proc/self/fd/N` on Linux) must EQUAL the resolved path
 *   (not merely lie in the workspace: a swap inside it, `plans/` for a link to `src/`, is
 *   caught too), and `fstat` must say it is a regular file (or a directory, for
 *   `openDirectory`). Only then is anything read. Descriptors are closed with their scope.
 * - **directories**: opened the same way; entries are named through the open descriptor
 *   (`/proc/self/fd/N/name`), so listing, `lstat`, creating and renaming inside a checked
 *   directory never walk its path again (what `openat`/`renameat` do in C).
 * - **reads** (`safeFsRead.ts`) stream from the checked descriptor with byte caps;
 *   **writes** (`atomicWrite.ts`) create the temp file through the checked directory, verify
 *   where it was created and where the rename put it, and undo anything that landed elsewhere;
 *   **walks** (`safeFsWalk.ts`) open every directory this way before listing it.
 *
 * Errors are `SafeFsError` (`safeFsError.ts`) with a `reason` a tool maps to its message; the
 * system calls themselves are in `safeFsNode.ts`.
 *
 * What remains: Node has no `openat`/`renameat`/`mkdirat`. On Linux the `/proc/self/fd` paths
 * stand in for them; a directory that is *moved* (not swapped) while in use is still followed
 * by its descriptor, so every create and rename is verified afterwards through the new file's
 * descriptor and undone when it landed anywhere but the expected path. Elsewhere (no
 * `/proc`), the checks compare device and inode with the expected path's after the fact: a
 * swap is detected, but a file renamed through a swapped directory cannot be found to undo.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as NodePath from "node:path"
import { SafeFsError } from "./safeFsError.js"
import * as Node from "./safeFsNode.js"

export { BinaryFile, FileTooLarge, SafeFsError, type SafeFsReason } from "./safeFsError.js"

/** A regular file opened for reading and checked to be the expected one. */
export interface OpenFile {
  readonly fd: number
  /** The expected (resolved) path, which the descriptor was checked to be at. */
  readonly path: string
  /** Its size when it was opened. */
  readonly size: number
  readonly mode: number
}

/** A directory opened and checked to be at the expected path. */
export interface OpenDirectory {
  readonly fd: number
  readonly path: string
}

/** `Changed`: the descriptor is not at the expected path. */
export const changed = (path: string, what = "it was being opened"): SafeFsError =>
  new SafeFsError({
    reason: "Changed",
    path,
    message: `"${path}" changed while ${what} (a symbolic link or a move replaced part of it); try again`
  })

/** `isAt` (below) where descriptors have no paths: the same device and inode at `expected`, whose directory is real. */
const isAtByStats = (fd: number, expected: string): Effect.Effect<boolean> =>
  Effect.all([Node.fstat(fd, expected), Node.lstat(expected), Node.realPath(NodePath.dirname(expected))]).pipe(
    Effect.map(([opened, there, dir]) => Node.sameFile(opened, there) && dir === NodePath.dirname(expected)),
    Effect.orElseSucceed(() => false)
  )

/**
 * Whether the file open as `fd` is at `expected` now: its `/proc/self/fd` path equals it (Linux),
 * else `expected` is a real path naming the same device and inode.
 */
export const isAt = (fd: number, expected: string): Effect.Effect<boolean, SafeFsError> =>
  Effect.flatMap(Node.fdPath(fd, expected), (actual) =>
    Option.isSome(actual) ? Effect.succeed(actual.value === expected) : isAtByStats(fd, expected))

/** Opens `target` with `flags` in the current scope (closed when it ends). */
const acquire = (target: string, flags: number, path: string, mode = 0) =>
  Effect.acquireRelease(Node.open(target, flags, mode, path), (fd) =>
    Node.close(fd, path).pipe(Effect.catch((error) => Effect.logWarning(`could not close "${path}"`, error))))

/** Fails with `Changed` unless the descriptor is at `expected`. */
const verify = (fd: number, expected: string, what?: string) =>
  Effect.flatMap(isAt(fd, expected), (ok) => (ok ? Effect.void : Effect.fail(changed(expected, what))))

/**
 * Opens a regular file for reading, bound to `path` (a resolved, real path): a symlink, a path
 * component swapped since the check, a FIFO, socket, device or directory is refused before a
 * byte is read.
 */
export const openFile = (path: string): Effect.Effect<OpenFile, SafeFsError, Scope.Scope> =>
  Effect.gen(function*() {
    const fd = yield* acquire(path, Node.READ_FLAGS, path)
    yield* verify(fd, path)
    const stats = yield* Node.fstat(fd, path)
    if (stats.isDirectory()) {
      return yield* new SafeFsError({ reason: "IsDirectory", path, message: `"${path}" is a directory, not a file` })
    }
    if (!stats.isFile()) {
      const kind = Node.kindOf(stats)
      return yield* new SafeFsError({
        reason: "NotRegularFile",
        path,
        kind,
        message: `"${path}" is a ${kind}, not a regular file; it was not read`
      })
    }
    return { fd, path, size: Number(stats.size), mode: Number(stats.mode) }
  })

/**
 * Opens `target` as a directory, bound to `path`. `O_NOFOLLOW | O_DIRECTORY` on a symlink fails
 * with `ENOTDIR`: a link where the resolver saw a directory was swapped in, so that is `Changed`.
 */
const acquireDirectory = (target: string, path: string) =>
  Effect.gen(function*() {
    const fd = yield* acquire(target, Node.DIRECTORY_FLAGS, path).pipe(
      Effect.catchIf((error) => error.reason === "NotDirectory", (error) =>
        Effect.flatMap(Effect.option(Node.lstat(target, path)), (info) =>
          Effect.fail(Option.isSome(info) && info.value.isSymbolicLink() ? changed(path) : error)))
    )
    yield* verify(fd, path)
    return { fd, path }
  })

/** Opens the directory at `path` (a resolved, real path), bound to it as `openFile` is. */
export const openDirectory = (path: string): Effect.Effect<OpenDirectory, SafeFsError, Scope.Scope> =>
  acquireDirectory(path, path)

/** Opens the subdirectory `name` of an open directory, through its descriptor, never following a link. */
export const openChildDirectory = (
  parent: OpenDirectory,
  name: string
): Effect.Effect<OpenDirectory, SafeFsError, Scope.Scope> =>
  acquireDirectory(Node.childOf(parent.fd, parent.path, name), NodePath.join(parent.path, name))

/** What an entry of a directory is, as `readdir` tells without following it. */
export type EntryKind = "file" | "directory" | "symlink" | "other"

/** One entry of a directory. */
export interface DirectoryEntry {
  readonly name: string
  readonly kind: EntryKind
}

/** The entries of an open directory, read through its descriptor. */
export const listDirectory = (dir: OpenDirectory): Effect.Effect<ReadonlyArray<DirectoryEntry>, SafeFsError> =>
  Effect.map(Node.readDirectory(Node.hasFdPaths() ? `${Node.fdDir()}${dir.fd}` : dir.path, dir.path), (entries) =>
    entries.map((entry) => ({
      name: entry.name,
      kind: entry.isDirectory()
        ? "directory"
        : entry.isSymbolicLink()
        ? "symlink"
        : entry.isFile()
        ? "file"
        : "other"
    })))

/** `lstat` of the entry `name` of an open directory (a link is described, not followed). */
export const statEntry = (dir: OpenDirectory, name: string) =>
  Node.lstat(Node.childOf(dir.fd, dir.path, name), NodePath.join(dir.path, name))
