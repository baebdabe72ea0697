/**
 * The first bytes of a file, read into one buffer and left undecoded, for a worker to decode
 * and parse (`csvWorker.ts`). Decoding or joining 10 MiB on the main thread costs it 60-300 ms
 * on a loaded machine (`TextDecoder` with `stream: true`, `Buffer.concat` of fresh memory);
 * reading into one buffer leaves the copying to the file system's threads, and the buffer is
 * moved to the worker, not copied (`CsvSource`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type { OpenFile } from "../../shared/safeFs.js"
import type { BinaryFile, SafeFsError } from "../../shared/safeFsError.js"
import * as Node from "../../shared/safeFsNode.js"
import { CHUNK_BYTES, checkFirstBlock, FIRST_BLOCK_BYTES } from "../../shared/safeFsRead.js"
import { decodeUtf8Prefix } from "../../shared/text.js"

/** At most `maxBytes` of a file, and whether the file goes on after them. */
export interface FileHead {
  readonly bytes: Uint8Array
  readonly cut: boolean
  /** The bytes' buffer is their own: it can be moved to a worker (`CsvSource`). */
  readonly move: true
}

/**
 * The first `maxBytes` of `file` (all of it when shorter), or `BinaryFile` when its first
 * block is not UTF-8 text.
 */
export const readHead = (file: OpenFile, maxBytes: number): Effect.Effect<FileHead, SafeFsError | BinaryFile> =>
  Effect.gen(function*() {
    // room for the file as it was opened, within the cap; a file that grew is read up to the room
    // its own ArrayBuffer, which can be moved to a worker (pages are zeroed by the system as they are touched)
    const buffer = new Uint8Array(Math.min(maxBytes, Math.max(file.size, FIRST_BLOCK_BYTES)))
    let filled = 0
    for (;;) {
      const want = Math.min(filled === 0 ? FIRST_BLOCK_BYTES : CHUNK_BYTES, buffer.length - filled)
      const n = want === 0 ? 0 : yield* Node.read(file.fd, file.path, buffer.subarray(filled), want, filled)
      if (filled === 0) yield* checkFirstBlock(file, buffer, n)
      if (n === 0) break
      filled += n
    }
    // the buffer is full: one more byte says whether the file goes on
    const more = filled === buffer.length ? yield* Node.read(file.fd, file.path, new Uint8Array(1), 1, filled) : 0
    return { bytes: buffer.subarray(0, filled), cut: more > 0, move: true }
  })

/** Characters `guessDelimiter` looks at, as UTF-8 bytes (4 a character at most, and one cut). */
const SAMPLE_BYTES = 4 * 64 * 1024 + 4

/** The text of the head's first bytes, enough for `guessDelimiter` to see what it would in the whole. */
export const sampleOf = (head: FileHead): string => decodeUtf8Prefix(head.bytes, SAMPLE_BYTES)
