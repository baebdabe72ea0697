/**
 * `writeFileAtomic` (see `atomicWrite.ts`) for content that arrives as a stream (a download):
 * the same discipline, bound to what it opens, with a byte cap.
 *
 * 1. The parent directory is opened (created level by level from the root if missing) and
 *    checked to be at the expected path; what is at the target must be a regular file or
 *    nothing.
 * 2. The temp file is created with `O_CREAT | O_EXCL | O_NOFOLLOW` through the directory's
 *    descriptor and checked to be at `dir/tempName`.
 * 3. Chunks are written as they arrive; one that would pass `maxBytes` stops the stream
 *    (`StreamTooLarge`). Then the file is synced, with the permission bits of the file it
 *    replaces.
 * 4. The rename goes through the directory's descriptor and is verified afterwards; anywhere
 *    but the target, the file is removed where it landed (`Changed`).
 *
 * On any failure before the rename (the stream's error, the cap, a file system error) or an
 * interruption (a timeout), the temp file is removed: no partial file is ever left, and the
 * target is untouched.
 *
 * @since 0.1.0
 */
import { Data, Effect, Option, Stream } from "effect"
import * as NodePath from "node:path"
import { ensureDirectory, removeOwn, tempNameOf, type WriteOutcome } from "./atomicWrite.js"
import { changed, isAt } from "./safeFs.js"
import { SafeFsError } from "./safeFsError.js"
import * as Node from "./safeFsNode.js"

/** The stream went on past `maxBytes`; nothing was kept. */
export class StreamTooLarge extends Data.TaggedError("StreamTooLarge")<{
  readonly maxBytes: number
}> {}

/**
 * Writes what `content` streams to `path` (a resolved path inside the workspace `root`)
 * atomically, at most `maxBytes` bytes (see the module comment). `IsDirectory` when a
 * directory is there; `NotRegularFile` for a FIFO, socket or device; `Changed` when a link
 * or a move interfered; `StreamTooLarge` past the cap; the stream's own error as it is.
 */
export const writeStreamAtomic = <E>(
  root: string,
  path: string,
  content: Stream.Stream<Uint8Array, E>,
  maxBytes: number
): Effect.Effect<WriteOutcome, E | SafeFsError | StreamTooLarge> =>
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
        Effect.catchIf((error) => error.reason === "NotFound", () => changed(path, "it was being written"))
      ),
      (fd) =>
        Effect.zipRight(
          placed ? Effect.void : removeOwn(fd, path, [temp, tempPath]),
          Node.close(fd, path).pipe(Effect.catchAll((error) => Effect.logWarning(`could not close "${path}"`, error)))
        )
    )
    if (!(yield* isAt(fd, tempPath))) return yield* changed(path, "it was being written")

    let written = 0
    yield* Stream.runForEach(content, (chunk): Effect.Effect<void, SafeFsError | StreamTooLarge> => {
      if (written + chunk.length > maxBytes) return Effect.fail(new StreamTooLarge({ maxBytes }))
      const at = written
      written += chunk.length
      return Node.writeAll(fd, path, chunk, at)
    })
    if (Option.isSome(existing)) yield* Node.fchmod(fd, path, Number(existing.value.mode) & 0o777)
    yield* Node.fsync(fd, path)

    yield* Effect.uninterruptible(Effect.gen(function*() {
      yield* Node.rename(temp, target, path)
      placed = true
      if (yield* Effect.orElseSucceed(isAt(fd, path), () => false)) return
      const landed = yield* Effect.orElseSucceed(Node.fdPath(fd, path), () => Option.none<string>())
      yield* removeOwn(fd, path, Option.isSome(landed) ? [target, landed.value] : [target])
      return yield* changed(path, "it was being written")
    }))
    return { replaced: Option.isSome(existing), bytes: written }
  }))
