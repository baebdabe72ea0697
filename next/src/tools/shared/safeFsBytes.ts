/**
 * Whole-file byte reads from a checked descriptor (`openFile` in `safeFs.ts`), for tools that
 * copy or rewrite a file as it is (binary or not): the bytes exactly as stored, up to a cap.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type { OpenFile } from "./safeFs.js"
import { FileTooLarge, type SafeFsError } from "./safeFsError.js"
import * as Node from "./safeFsNode.js"
import { CHUNK_BYTES } from "./safeFsRead.js"


/**
 * Every byte of the open file, or `FileTooLarge` when it has more than `limit` (by its size
 * when opened, or by what is read if it grows meanwhile). Holds at most `limit` plus one chunk.
 */
export const readBytes = (file: OpenFile, limit: number): Effect.Effect<Uint8Array, SafeFsError | FileTooLarge> =>
  Effect.gen(function*() {
    const tooLarge = (read: number) => new FileTooLarge({ path: file.path, size: Math.max(file.size, read), limit })
    if (file.size > limit) return yield* tooLarge(file.size)
    const parts: Array<Uint8Array> = []
    let position = 0
    for (;;) {
      // up to the size it had when opened, one byte more (to see that it grew); past that, as
      // much as keeps it under the cap (not a byte at a time, for a file still being written)
      const left = file.size - position
      const buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, (left > 0 ? left : limit - position) + 1))
      const n = yield* Node.read(file.fd, file.path, buffer, buffer.length, position)
      if (n === 0) break
      position += n
      if (position > limit) return yield* tooLarge(position)
      parts.push(buffer.subarray(0, n))
    }
    return Buffer.concat(parts)
  })
