/**
 * Puts whole bytes at a path, bound to the checked directory (see `safeFs.ts`), with what
 * `writeFileAtomic` lacks for copies and snapshots: the permission bits of a new file, and a
 * no-clobber mode that is atomic (a file that appears meanwhile is never replaced).
 *
 * 1. The destination's directory is opened and checked (created from the root if missing,
 *    as `writeFileAtomic` does), and what is at the destination is looked at through it.
 * 2. The bytes go to a hidden temp file beside it with `writeFileAtomic` (so the temp file is
 *    complete and synced), which is then opened, checked, and given its permission bits.
 * 3. It is put in place through the directory's descriptor: `rename(2)` to replace, or
 *    `link(2)` then removing the temp name not to (an occupied destination makes `link` fail,
 *    atomically). A file system without hard links falls back to a check and a rename.
 * 4. Afterwards the destination must hold the temp file's inode and the directory must still
 *    be at its path; else the file is taken back out and the call fails with `Changed`. The
 *    temp file never outlives the call.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as NodePath from "node:path"
import { ensureDirectory, tempNameOf, writeFileAtomic, type WriteOutcome } from "./atomicWrite.js"
import { changed, isAt, openFile } from "./safeFs.js"
import {
  DestinationExists,
  type Entry,
  entryOf,
  link,
  lstatEntry,
  noHardLinks,
  removeIfSame,
  requireRegularFile
} from "./safeFsEntry.js"
import { SafeFsError } from "./safeFsError.js"
import * as Node from "./safeFsNode.js"

/** How `placeBytes` treats the destination. */
export interface PlaceOptions {
  /** Replace a file already there (it keeps its permission bits); else `DestinationExists`. */
  readonly overwrite: boolean
  /** The permission bits of a new file; default 0666 less the umask. */
  readonly mode?: number | undefined
}

/** Removes a temp file of ours (a regular file under its random name), through the directory and by its path. */
const removeTemp = (temp: Entry): Effect.Effect<void> =>
  Effect.forEach([temp.target, temp.path], (target) =>
    Node.lstat(target, temp.path).pipe(
      Effect.flatMap((stats) => (stats.isFile() ? Node.unlink(target, temp.path) : Effect.void)),
      Effect.catchIf((error) => error.reason === "NotFound", () => Effect.void),
      Effect.catch((error) => Effect.logWarning(`could not remove the temp file "${temp.path}"`, error))
    ), { discard: true })

/**
 * Writes `bytes` to `path` (a resolved path inside the workspace `root`) as described in the
 * module comment. `DestinationExists` when something is there and `overwrite` is false;
 * `IsDirectory` / `NotRegularFile` when what is there is not a regular file.
 */
export const placeBytes = (
  root: string,
  path: string,
  bytes: Uint8Array,
  options: PlaceOptions
): Effect.Effect<WriteOutcome, SafeFsError | DestinationExists> =>
  Effect.scoped(Effect.gen(function*() {
    if (path === root) {
      return yield* new SafeFsError({ reason: "IsDirectory", path, message: `"${path}" is a directory` })
    }
    const dir = yield* ensureDirectory(root, NodePath.dirname(path))
    const dest = entryOf(dir, NodePath.basename(path))
    const existing = yield* lstatEntry(dest)
    if (Option.isSome(existing)) {
      yield* requireRegularFile(existing.value, path)
      if (!options.overwrite) return yield* new DestinationExists({ path, kind: "file" })
    }

    const temp = entryOf(dir, tempNameOf(dest.name))
    let tempGone = false
    yield* Effect.acquireRelease(
      writeFileAtomic(root, temp.path, bytes),
      () => (tempGone ? Effect.void : removeTemp(temp))
    )
    const file = yield* openFile(temp.path)
    const own = yield* Node.fstat(file.fd, path)
    const mode = Option.isSome(existing) ? Number(existing.value.mode) : options.mode
    if (mode !== undefined) yield* Node.fchmod(file.fd, path, mode & 0o777)

    yield* Effect.uninterruptible(Effect.gen(function*() {
      if (options.overwrite) {
        yield* Node.rename(temp.target, dest.target, path)
        tempGone = true
      } else {
        const linked = yield* link(temp.target, dest.target, path).pipe(
          Effect.as(true),
          Effect.catchIf(noHardLinks, () => Effect.succeed(false)),
          Effect.catchIf((error) => error.code === "EEXIST", () => new DestinationExists({ path, kind: "file" }))
        )
        if (!linked) {
          // no hard links here: check, then rename (a file appearing in between would be replaced)
          const there = yield* lstatEntry(dest)
          if (Option.isSome(there)) return yield* new DestinationExists({ path, kind: Node.kindOf(there.value) })
          yield* Node.rename(temp.target, dest.target, path)
          tempGone = true
        }
      }
      const there = yield* lstatEntry(dest)
      const inPlace = Option.isSome(there) && Node.sameFile(there.value, own) &&
        (yield* Effect.orElseSucceed(isAt(dir.fd, dir.path), () => false))
      if (inPlace) return
      // it landed elsewhere (the directory moved meanwhile): take it back out
      yield* removeIfSame(dest, own)
      return yield* changed(path, "it was being written")
    }))
    return { replaced: Option.isSome(existing), bytes: bytes.length }
  }))
