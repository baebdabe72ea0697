/**
 * Moving and deleting directory entries bound to checked directories (see `safeFs.ts`): the
 * source's and the destination's directories are opened and checked to be at their resolved
 * paths, and every `lstat`, `link`, `rename` and `unlink` names the entry through the open
 * directory's descriptor, never walking the path again.
 *
 * - **move**: the source entry must be a regular file or a directory (a symlink where the
 *   resolver saw a real file was swapped in: `Changed`). A file not replacing anything is
 *   hard-linked at the destination (atomic: an occupied destination fails) and then unlinked
 *   at the source; otherwise a `rename(2)`. Afterwards the destination must hold the source's
 *   inode and its directory must still be at its path, else the move is undone.
 * - **delete**: regular files only; the entry is checked to be the file that was looked at.
 *
 * What remains: between the `lstat` of an entry and the call that uses it, another process may
 * put a different file under that name in the same (checked) directory; the checks afterwards
 * catch that for moves, not for deletes.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { isInside } from "../../layers/Workspace.js"
import { ensureDirectory } from "./atomicWrite.js"
import { changed, isAt, openDirectory } from "./safeFs.js"
import {
  DestinationExists,
  type Entry,
  entryOf,
  link,
  lstatEntry,
  noHardLinks,
  requireRegularFile
} from "./safeFsEntry.js"
import { SafeFsError } from "./safeFsError.js"
import * as Node from "./safeFsNode.js"

/** What a move did. */
export interface MoveOutcome {
  readonly kind: "file" | "directory"
  /** A file was at the destination and was replaced. */
  readonly replaced: boolean
}

/** The source entry as found: a regular file or a directory (else the failure). */
const sourceKind = (stats: NodeFs.BigIntStats, path: string): Effect.Effect<"file" | "directory", SafeFsError> =>
  stats.isDirectory() ? Effect.succeed("directory") : Effect.as(requireRegularFile(stats, path), "file")

/** Moves the entry at `from` to `to` with `rename(2)`. */
const renameEntry = (from: Entry, to: Entry, path: string) => Node.rename(from.target, to.target, path)

/**
 * Moves `source` to `destination` (resolved paths inside the workspace `root`), creating the
 * destination's directories. `DestinationExists` when something is there and `overwrite` is
 * false; replacing only ever replaces a regular file with a regular file.
 */
export const moveEntry = (
  root: string,
  source: string,
  destination: string,
  options: { readonly overwrite: boolean }
): Effect.Effect<MoveOutcome, SafeFsError | DestinationExists> =>
  Effect.scoped(Effect.gen(function*() {
    const fail = (reason: SafeFsError["reason"], path: string, message: string) =>
      new SafeFsError({ reason, path, message })
    if (source === root) {
      return yield* fail("IsDirectory", source, `"${source}" is the workspace root; it cannot be moved`)
    }
    if (destination === root) return yield* fail("IsDirectory", destination, `"${destination}" is the workspace root`)
    if (source === destination) return yield* fail("Io", source, `"${source}" is both the source and the destination`)

    const from = entryOf(yield* openDirectory(NodePath.dirname(source)), NodePath.basename(source))
    const found = yield* lstatEntry(from)
    if (Option.isNone(found)) return yield* fail("NotFound", source, `"${source}" does not exist`)
    const own = found.value
    const kind = yield* sourceKind(own, source)
    if (kind === "directory" && isInside(source, destination)) {
      return yield* fail(
        "Io",
        destination,
        `"${destination}" is inside "${source}": a directory cannot be moved into itself`
      )
    }

    const to = entryOf(yield* ensureDirectory(root, NodePath.dirname(destination)), NodePath.basename(destination))
    const existing = yield* lstatEntry(to)
    if (Option.isSome(existing)) {
      const there = existing.value
      if (Node.sameFile(there, own)) {
        return yield* fail("Io", destination, `"${destination}" is the same file as "${source}"`)
      }
      if (there.isDirectory()) {
        return yield* fail(
          "IsDirectory",
          destination,
          `"${destination}" is an existing directory; name the full destination path, e.g. ` +
            `"${NodePath.join(destination, NodePath.basename(source))}"`
        )
      }
      yield* requireRegularFile(there, destination)
      if (!options.overwrite) return yield* new DestinationExists({ path: destination, kind: "file" })
      if (kind === "directory") {
        return yield* fail("NotDirectory", destination, `"${destination}" is a file; a directory cannot replace it`)
      }
    }

    return yield* Effect.uninterruptible(Effect.gen(function*() {
      let linked = false
      if (kind === "file" && !options.overwrite) {
        linked = yield* link(from.target, to.target, destination).pipe(
          Effect.as(true),
          Effect.catchIf(noHardLinks, () => Effect.succeed(false)),
          Effect.catchIf(
            (error) => error.code === "EEXIST",
            () => new DestinationExists({ path: destination, kind: "file" })
          )
        )
      }
      if (!linked) {
        // an occupied destination was refused above; this catches one that appeared after that look
        // (rename(2) would replace an empty directory with a directory, or a file with a file)
        if (!options.overwrite) {
          const appeared = yield* lstatEntry(to)
          if (Option.isSome(appeared)) {
            return yield* new DestinationExists({ path: destination, kind: Node.kindOf(appeared.value) })
          }
        }
        yield* renameEntry(from, to, destination)
      }
      const there = yield* lstatEntry(to)
      const inPlace = Option.isSome(there) && Node.sameFile(there.value, own) &&
        (yield* Effect.orElseSucceed(isAt(to.dir.fd, to.dir.path), () => false))
      if (!inPlace) {
        // the wrong file was linked, or it landed where the destination's directory moved to: undo
        if (linked) {
          // the name we linked (or one another process linked there); removing a regular file's
          // name loses nothing while it has another; anything else there is left alone
          if (Option.isSome(there) && there.value.isFile() && there.value.nlink > 1n) {
            yield* Effect.ignore(Node.unlink(to.target, destination))
          }
        } else if (Option.isSome(there) && Node.sameFile(there.value, own)) {
          yield* Effect.ignore(renameEntry(to, from, source))
        }
        return yield* changed(destination, "it was being moved")
      }
      if (linked) {
        // the file is at the destination: remove the source name if it still is that file (if
        // another process put something else there meanwhile, that is left alone)
        const still = yield* lstatEntry(from)
        if (Option.isSome(still) && Node.sameFile(still.value, own)) yield* Node.unlink(from.target, source)
      }
      return { kind, replaced: Option.isSome(existing) }
    }))
  }))

/** Deletes the regular file at `path` (a resolved path); a directory or anything else is refused. */
export const deleteFile = (path: string): Effect.Effect<{ readonly bytes: number }, SafeFsError> =>
  Effect.scoped(Effect.gen(function*() {
    const entry = entryOf(yield* openDirectory(NodePath.dirname(path)), NodePath.basename(path))
    const found = yield* lstatEntry(entry)
    if (Option.isNone(found)) {
      return yield* new SafeFsError({ reason: "NotFound", path, message: `"${path}" does not exist` })
    }
    yield* requireRegularFile(found.value, path)
    yield* Node.unlink(entry.target, path)
    return { bytes: Number(found.value.size) }
  }))
