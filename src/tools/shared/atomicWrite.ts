/**
 * Atomic file writes bound to their target (see `safeFs.ts`): the content goes to a temp file
 * created inside the checked parent directory, then a rename puts it in place, so a failed
 * write never leaves a half-written file, and nothing is ever left outside the expected
 * directory, not even a temp file.
 *
 * 1. The parent directory is opened and checked to be at the expected path; missing
 *    directories are created one level at a time from the workspace root, each created and
 *    opened through its parent's descriptor, never through a link, and checked.
 * 2. The temp file is created with `O_CREAT | O_EXCL | O_NOFOLLOW` through the directory's
 *    descriptor; its own descriptor must then be at `dir/tempName`, else it is removed where
 *    it landed and the write fails.
 * 3. The content is written and synced, with the permission bits of the file it replaces.
 * 4. The rename goes through the directory's descriptor too; afterwards the temp file's
 *    descriptor tells where the inode now is: anywhere but the target, it is removed there and
 *    the write fails (`Changed`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import { randomBytes } from "node:crypto"
import * as NodePath from "node:path"
import { changed, isAt, openChildDirectory, type OpenDirectory, openDirectory } from "./safeFs.js"
import { SafeFsError } from "./safeFsError.js"
import * as Node from "./safeFsNode.js"

/** What a write did. */
export interface WriteOutcome {
  /** A regular file was there before and was replaced. */
  readonly replaced: boolean
  readonly bytes: number
}

/** The name of a temp file beside `name`: hidden, unique, and short enough for any file system. */
export const tempNameOf = (name: string): string => {
  let stem = ""
  for (const char of name) {
    if (Buffer.byteLength(stem + char) > 64) break
    stem += char
  }
  return `.${stem}.${randomBytes(8).toString("hex")}.tmp`
}

/**
 * Removes the file open as `fd` from the first of `candidates` that holds that very inode
 * (never another file that took its name); none of them holding it, nothing is removed.
 */
const removeOwn = (fd: number, path: string, candidates: ReadonlyArray<string>): Effect.Effect<void> =>
  Effect.gen(function*() {
    const own = yield* Node.fstat(fd, path)
    for (const candidate of candidates) {
      const there = yield* Effect.option(Node.lstat(candidate, path))
      if (Option.isSome(there) && Node.sameFile(own, there.value)) {
        return yield* Node.unlink(candidate, path)
      }
    }
  }).pipe(Effect.catch((error) => Effect.logWarning(`could not remove a temp file of "${path}"`, error)))

/**
 * Opens the directory `dir` (a resolved path inside `root`), creating what is missing one level
 * at a time from `root`, each level opened through its parent's descriptor and checked.
 */
export const ensureDirectory = (root: string, dir: string): Effect.Effect<OpenDirectory, SafeFsError, Scope.Scope> =>
  openDirectory(dir).pipe(
    Effect.catchIf((error) => error.reason === "NotFound", () =>
      Effect.gen(function*() {
        const rel = NodePath.relative(root, dir)
        if (rel === ".." || rel.startsWith(`..${NodePath.sep}`) || NodePath.isAbsolute(rel)) {
          return yield* changed(dir, "its directories were created")
        }
        let current = yield* openDirectory(root)
        // `relative` joins names with one separator, no empty name; a `rel` of "" (the root, created
        // since its open failed) splits to [""], and the child "" of the root is the root itself
        for (const name of rel.split(NodePath.sep)) {
          const parent = current
          const child = Node.childOf(parent.fd, parent.path, name)
          const childPath = NodePath.join(parent.path, name)
          current = yield* openChildDirectory(parent, name).pipe(
            Effect.catchIf((error) => error.reason === "NotFound", () =>
              Node.mkdir(child, childPath).pipe(
                Effect.catchIf((error) => error.code === "EEXIST", () => Effect.void),
                Effect.andThen(openChildDirectory(parent, name)),
                // created where it should not be (the parent moved meanwhile): take it back out
                Effect.tapErrorTag("SafeFsError", (error) =>
                  error.reason === "Changed" ? Effect.ignore(Node.rmdir(child, childPath)) : Effect.void)
              ))
          )
        }
        return current
      }))
  )

/**
 * The shared body of the atomic writers: checks the target, creates the temp file bound to
 * the checked directory, lets `fill` write it (returning how many bytes it wrote), syncs it with
 * the replaced file's permission bits, renames it into place and verifies where it landed.
 * On any failure or interruption before the rename the temp file is removed.
 */
export const writeAtomicWith = <E>(
  root: string,
  path: string,
  fill: (fd: number) => Effect.Effect<number, E | SafeFsError>
): Effect.Effect<WriteOutcome, E | SafeFsError> =>
  Effect.scoped(Effect.gen(function*() {
    if (path === root) return yield* new SafeFsError({ reason: "IsDirectory", path, message: `"${path}" is a directory` })
    const dir = yield* ensureDirectory(root, NodePath.dirname(path))
    const name = NodePath.basename(path)
    const target = Node.childOf(dir.fd, dir.path, name)
    const existing = yield* Effect.option(Node.lstat(target, path))
    if (Option.isSome(existing)) {
      const stats = existing.value
      if (stats.isDirectory()) return yield* new SafeFsError({ reason: "IsDirectory", path, message: `"${path}" is a directory` })
      if (stats.isSymbolicLink()) return yield* changed(path, "it was being written")
      if (!stats.isFile()) {
        const kind = Node.kindOf(stats)
        return yield* new SafeFsError({ reason: "NotRegularFile", path, kind, message: `"${path}" is a ${kind}, not a regular file` })
      }
    }

    const tempName = tempNameOf(name)
    const temp = Node.childOf(dir.fd, dir.path, tempName)
    const tempPath = NodePath.join(dir.path, tempName)
    // the temp file lives until it is renamed; on any failure or interruption before that, it is removed
    let placed = false
    const fd = yield* Effect.acquireRelease(
      Node.open(temp, Node.CREATE_FLAGS, 0o666, path).pipe(
        // the checked directory was removed meanwhile (replaced by another one of its name)
        Effect.catchIf((error) => error.reason === "NotFound", () => changed(path, "it was being written"))
      ),
      (fd) =>
        Effect.andThen(
          placed ? Effect.void : removeOwn(fd, path, [temp, tempPath]),
          Node.close(fd, path).pipe(Effect.catch((error) => Effect.logWarning(`could not close "${path}"`, error)))
        )
    )
    if (!(yield* isAt(fd, tempPath))) return yield* changed(path, "it was being written")
    const bytes = yield* fill(fd)
    // the permission bits only: a set-user-ID bit is not carried over to new content
    if (Option.isSome(existing)) yield* Node.fchmod(fd, path, Number(existing.value.mode) & 0o777)
    yield* Node.fsync(fd, path)

    yield* Effect.uninterruptible(Effect.gen(function*() {
      yield* Node.rename(temp, target, path)
      placed = true
      // a check that cannot be made counts as a failed one
      if (yield* Effect.orElseSucceed(isAt(fd, path), () => false)) return
      // it landed elsewhere: take it back out, from where the rename put it or wherever it is now
      const landed = yield* Effect.orElseSucceed(Node.fdPath(fd, path), () => Option.none<string>())
      yield* removeOwn(fd, path, Option.isSome(landed) ? [target, landed.value] : [target])
      return yield* changed(path, "it was being written")
    }))
    return { replaced: Option.isSome(existing), bytes }
  }))

/**
 * Writes `content` to `path` (a resolved path inside the workspace `root`) atomically, creating
 * parent directories, bound to what it opens (see the module comment). `IsDirectory` when a
 * directory is there; `NotRegularFile` for a FIFO, socket or device; `Changed` when a link or a
 * move interfered, with nothing left behind.
 */
export const writeFileAtomic = (
  root: string,
  path: string,
  content: string | Uint8Array
): Effect.Effect<WriteOutcome, SafeFsError> =>
  writeAtomicWith(root, path, (fd) => {
    const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : content
    return Effect.as(Node.writeAll(fd, path, bytes, 0), bytes.length)
  })
