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
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { type WriteOutcome, writeAtomicWith } from "./atomicWrite.js"
import type { SafeFsError } from "./safeFsError.js"
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
  writeAtomicWith(root, path, (fd) => {
    let written = 0
    return Effect.map(
      Stream.runForEach(content, (chunk): Effect.Effect<void, SafeFsError | StreamTooLarge> => {
        if (written + chunk.length > maxBytes) return Effect.fail(new StreamTooLarge({ maxBytes }))
        const at = written
        written += chunk.length
        return Node.writeAll(fd, path, chunk, at)
      }),
      () => written
    )
  })
