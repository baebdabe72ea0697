/**
 * A file read as a stream of chunks from a checked descriptor (`openFile`): the first block is
 * checked for binary content before anything else is looked at, and a read never holds more
 * than one chunk, whatever the file's size or its longest line.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type { OpenFile } from "../../shared/safeFs.js"
import type { BinaryFile, SafeFsError } from "../../shared/safeFsError.js"
import * as Node from "../../shared/safeFsNode.js"
import { bufferFor, checkFirstBlock, FIRST_BLOCK_BYTES, NEWLINE } from "../../shared/safeFsRead.js"

export { CHUNK_BYTES, NEWLINE } from "../../shared/safeFsRead.js"

/**
 * The lines of a text: its line feeds, plus a last line without one. `last` is its last byte,
 * `NEWLINE` for an empty text (start a running `last` there).
 */
export const linesOf = (newlines: number, last: number): number => (last === NEWLINE ? newlines : newlines + 1)

/** How a chunked read ended. */
export interface ChunksRead {
  /** Bytes read. */
  readonly read: number
  /** The end of the file was reached (not stopped by the callback or the budget). */
  readonly complete: boolean
}

/**
 * Reads `file` from its start, handing each chunk to `onChunk` (valid only until its effect
 * ends; `false` stops), until its end or until `budget` bytes have been read (complete when the
 * file has no more). The callback is an effect, so that a chunk can be worked on off the main
 * thread before the next read. Fails with `BinaryFile` when the first block is not UTF-8 text.
 */
export const readChunksWith = <E>(
  file: OpenFile,
  budget: number,
  onChunk: (bytes: Buffer) => Effect.Effect<boolean, E>
): Effect.Effect<ChunksRead, E | SafeFsError | BinaryFile> =>
  Effect.gen(function*() {
    const buffer = bufferFor(file)
    let position = 0
    for (;;) {
      if (position >= budget) {
        // at the budget: complete when nothing follows (a file of exactly the budget is read whole)
        const more = yield* Node.read(file.fd, file.path, buffer, 1, position)
        return { read: position, complete: more === 0 }
      }
      const length = position === 0 ? FIRST_BLOCK_BYTES : Math.min(buffer.length, budget - position)
      const n = yield* Node.read(file.fd, file.path, buffer, length, position)
      if (position === 0) yield* checkFirstBlock(file, buffer, n)
      if (n === 0) return { read: position, complete: true }
      position += n
      if (!(yield* onChunk(buffer.subarray(0, n)))) return { read: position, complete: false }
    }
  })

/** `readChunksWith` with a plain callback (valid only during the call; `false` stops). */
export const readChunks = (
  file: OpenFile,
  budget: number,
  onChunk: (bytes: Uint8Array) => boolean
): Effect.Effect<ChunksRead, SafeFsError | BinaryFile> =>
  readChunksWith(file, budget, (bytes) => Effect.succeed(onChunk(bytes)))

/** Newlines in `bytes`. */
export const countNewlines = (bytes: Uint8Array): number => {
  let n = 0
  for (let i = bytes.indexOf(NEWLINE); i !== -1; i = bytes.indexOf(NEWLINE, i + 1)) n++
  return n
}
