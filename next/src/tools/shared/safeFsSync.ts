/**
 * Synchronous twins of the bound operations of `safeFs.ts`, for walks over many small entries
 * (`search_files` reading 50,000 files, `find_files` listing 500 directories). Each call into
 * libuv's thread pool costs tens of microseconds on a busy machine, several times the system
 * call itself; a search that makes four such calls per file is many times slower than `grep`.
 * These make the same system calls on the calling thread. Callers keep each synchronous step
 * short (one directory listing, a batch of small files), so the event loop runs between steps.
 *
 * The discipline is that of `safeFs.ts`:
 * - a directory is opened with `O_NOFOLLOW | O_DIRECTORY` and checked to be at its expected
 *   real path (`/proc/self/fd/N`, or device and inode elsewhere) before it is listed;
 * - an entry of an open directory is opened through the directory's descriptor
 *   (`/proc/self/fd/N/name`, what `openat` does in C) with `O_NOFOLLOW | O_NONBLOCK`: it is the
 *   entry of the checked directory, never a link, and never blocks. Where descriptors have no
 *   paths, the entry is opened by its joined path and checked afterwards, as `isAt` does.
 *
 * Failures are thrown as `SafeFsError` (a caller turns them into notes or Effect failures).
 *
 * @since 0.1.0
 */
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import type { OpenDirectory } from "./safeFs.js"
import { SafeFsError } from "./safeFsError.js"
import { childOf, DIRECTORY_FLAGS, fdDir, fromSystemError, hasFdPaths, READ_FLAGS } from "./safeFsNode.js"

/** Runs a system call, throwing its `SafeFsError`. */
const attempt = <A>(operation: string, path: string, run: () => A): A => {
  try {
    return run()
  } catch (error) {
    throw fromSystemError(operation, path, error)
  }
}

/** `isAtSync` (below) where descriptors have no paths: the same device and inode at `expected`, whose directory is real. */
const isAtByStatsSync = (fd: number, expected: string): boolean => {
  const opened = NodeFs.fstatSync(fd, { bigint: true })
  const there = NodeFs.lstatSync(expected, { bigint: true })
  return opened.dev === there.dev && opened.ino === there.ino &&
    NodeFs.realpathSync(NodePath.dirname(expected)) === NodePath.dirname(expected)
}

/** Whether the descriptor `fd` is at `expected` (a real path) now. */
const isAtSync = (fd: number, expected: string): boolean => {
  if (hasFdPaths()) return NodeFs.readlinkSync(`${fdDir()}${fd}`) === expected
  return isAtByStatsSync(fd, expected)
}

const changed = (path: string): SafeFsError =>
  new SafeFsError({
    reason: "Changed",
    path,
    message: `"${path}" changed while it was being opened (a symbolic link or a move replaced part of it); try again`
  })

/** Closes a descriptor; a failure (which leaves nothing to undo for a read) is thrown. */
export const closeSync = (fd: number, path: string): void => attempt("close", path, () => NodeFs.closeSync(fd))

/** Checks that the descriptor `fd` is at `path`; closes it when it is not, or when the check fails. */
const requireAtOrClose = (fd: number, path: string): void => {
  let ok = false
  try {
    ok = attempt("check", path, () => isAtSync(fd, path))
  } finally {
    if (!ok) NodeFs.closeSync(fd)
  }
  if (!ok) throw changed(path)
}

/** Opens `target` as the directory `path` and checks it is there; closes it again if it is not. */
const openDirectoryAt = (target: string, path: string): OpenDirectory => {
  const fd = attempt("open", path, () => NodeFs.openSync(target, DIRECTORY_FLAGS))
  requireAtOrClose(fd, path)
  return { fd, path }
}

/** Opens the directory at `path` (a resolved, real path), bound to it. The caller closes it. */
export const openDirectorySync = (path: string): OpenDirectory => openDirectoryAt(path, path)

/**
 * A second descriptor of an open directory: through its descriptor where descriptors have
 * paths (`/proc/PID/fd/N/.`, the same directory whatever its path leads to now, so nothing to
 * check), else opened at its path and checked. The caller closes it.
 */
export const reopenDirectorySync = (dir: OpenDirectory): OpenDirectory =>
  hasFdPaths()
    ? { fd: attempt("open", dir.path, () => NodeFs.openSync(`${fdDir()}${dir.fd}/.`, DIRECTORY_FLAGS)), path: dir.path }
    : openDirectorySync(dir.path)

/** Opens the subdirectory `name` of an open directory through its descriptor. The caller closes it. */
export const openChildDirectorySync = (parent: OpenDirectory, name: string): OpenDirectory =>
  openDirectoryAt(childOf(parent.fd, parent.path, name), NodePath.join(parent.path, name))

/**
 * The entries of an open directory, read through its descriptor: Node's `Dirent`s as they come
 * (their types are what `readdir` tells, a link is not followed; no `DirectoryEntry` copies,
 * for walks that list tens of thousands of entries).
 */
export const listDirectorySync = (dir: OpenDirectory): Array<NodeFs.Dirent> =>
  attempt("list", dir.path, () => NodeFs.readdirSync(hasFdPaths() ? `${fdDir()}${dir.fd}` : dir.path, { withFileTypes: true }))

/**
 * Opens the entry `name` of an open directory to read: never through a link (`ELOOP`, thrown as
 * `Changed`), never blocking. It is not `fstat`ed: the caller knows from the listing that it was
 * a regular file, and checks with `fstatSync` before reading more than one block of it (a FIFO
 * swapped in meanwhile gives at most what a writer put in it; a device cannot be made there
 * without privileges). The caller closes it.
 */
export const openChildFileSync = (dir: OpenDirectory, name: string): number => {
  let fd: number
  try {
    fd = NodeFs.openSync(childOf(dir.fd, dir.path, name), READ_FLAGS)
  } catch (error) {
    throw fromSystemError("open", NodePath.join(dir.path, name), error)
  }
  if (hasFdPaths()) return fd
  requireAtOrClose(fd, NodePath.join(dir.path, name))
  return fd
}

/** Reads at most `length` bytes at `position` into `buffer` at `offset`; 0 at the end. */
export const readSync = (
  fd: number,
  path: string,
  buffer: Uint8Array,
  offset: number,
  length: number,
  position: number
): number => attempt("read", path, () => NodeFs.readSync(fd, buffer, offset, length, position))

/** Whether the open descriptor is a regular file, and its size. */
export const fileSizeSync = (fd: number, path: string): number | undefined => {
  const stats = attempt("stat", path, () => NodeFs.fstatSync(fd))
  return stats.isFile() ? stats.size : undefined
}

/**
 * The regular file `name` of an open directory read whole into `buffer` when it is shorter than
 * `length`, for searches over many small files: opened as `openChildFileSync` opens it (through
 * the directory's descriptor, never through a link, never blocking), read once, closed. Its
 * length; `undefined` when it fills `length`, when anything fails, or where descriptors have no
 * paths: the caller then takes the long way (`openChildFileSync`, `fileSizeSync`, `readSync`),
 * which reports what went wrong.
 */
export const readSmallChildSync = (dir: OpenDirectory, name: string, buffer: Uint8Array, length: number): number | undefined => {
  if (!hasFdPaths()) return undefined
  let fd: number
  try {
    fd = NodeFs.openSync(childOf(dir.fd, dir.path, name), READ_FLAGS)
  } catch {
    return undefined
  }
  let n: number | undefined
  try {
    n = NodeFs.readSync(fd, buffer, 0, length, 0)
  } catch {
    // n stays undefined: the long way reports why
  }
  try {
    NodeFs.closeSync(fd)
  } catch {
    return undefined
  }
  return n !== undefined && n < length ? n : undefined
}
