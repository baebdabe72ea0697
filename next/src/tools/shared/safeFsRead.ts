/**
 * Streaming reads from a checked descriptor (`openFile` in `safeFs.ts`): the whole file up to
 * a byte cap, or its first lines, reading only as much as the answer needs. Binary detection
 * looks at the first block only, so no read ever holds more than its cap plus one chunk.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type { OpenFile } from "./safeFs.js"
import { BinaryFile, FileTooLarge, type SafeFsError } from "./safeFsError.js"
import * as Node from "./safeFsNode.js"
import { decodeUtf8, decodeUtf8Prefix, looksBinary } from "./text.js"

/** The first block, the one binary detection looks at. */
export const FIRST_BLOCK_BYTES = 64 * 1024
/** Every later read. */
export const CHUNK_BYTES = 1024 * 1024
/** The line feed byte. */
export const NEWLINE = 10

/** Newlines in `bytes[from, to)`. */
const countNewlines = (bytes: Uint8Array, from: number, to: number): number => {
  let n = 0
  for (let i = from; i < to; i++) if (bytes[i] === NEWLINE) n++
  return n
}

/** A read buffer for `file`: one chunk, or less for a small file (at least the first block). */
export const bufferFor = (file: OpenFile): Buffer =>
  Buffer.allocUnsafe(Math.min(CHUNK_BYTES, Math.max(FIRST_BLOCK_BYTES, file.size + 1)))

/** Reads the next piece at `position` into `buffer`: the first block first, then chunks. */
const readPiece = (file: OpenFile, buffer: Uint8Array, position: number) =>
  Node.read(file.fd, file.path, buffer, position === 0 ? FIRST_BLOCK_BYTES : buffer.length, position)

/** Fails with `BinaryFile` when the first block (`n` bytes read) is not UTF-8 text. */
export const checkFirstBlock = (file: OpenFile, buffer: Uint8Array, n: number): Effect.Effect<void, BinaryFile> =>
  looksBinary(buffer.subarray(0, n), n < FIRST_BLOCK_BYTES)
    ? Effect.fail(new BinaryFile({ path: file.path, size: file.size }))
    : Effect.void

/**
 * The whole file as UTF-8 text, or `FileTooLarge` when it has more than `limit` bytes (by its
 * size when opened, or by what is read if it grows), or `BinaryFile`.
 */
export const readText = (file: OpenFile, limit: number): Effect.Effect<string, SafeFsError | FileTooLarge | BinaryFile> =>
  Effect.gen(function*() {
    const tooLarge = (read: number) => new FileTooLarge({ path: file.path, size: Math.max(file.size, read), limit })
    if (file.size > limit) return yield* tooLarge(file.size)
    const buffer = bufferFor(file)
    const kept: Array<Buffer> = []
    let position = 0
    for (;;) {
      const n = yield* readPiece(file, buffer, position)
      if (position === 0) yield* checkFirstBlock(file, buffer, n)
      if (n === 0) break
      position += n
      if (position > limit) return yield* tooLarge(position)
      kept.push(Buffer.from(buffer.subarray(0, n)))
    }
    return decodeUtf8(Buffer.concat(kept))
  })

/** What `readFirstLines` found. */
export type FirstLines =
  /** The file has at most the lines asked for: all of it. */
  | { readonly _tag: "Whole"; readonly text: string }
  /**
   * The first lines (without the newline after the last), and how many lines follow:
   * exactly, or at least (`exact: false`) when counting stopped at the read budget.
   */
  | { readonly _tag: "Head"; readonly text: string; readonly moreLines: number; readonly exact: boolean }
  /** The output cap was reached inside line `line` (1-based) before the lines asked for ended. */
  | { readonly _tag: "Capped"; readonly text: string; readonly line: number }

/** How much `readFirstLines` may return and read. */
export interface FirstLinesOptions {
  /** Lines to return (at least 1). */
  readonly maxLines: number
  /** Most bytes of text returned (and held). */
  readonly maxBytes: number
  /** Most bytes read in all, counting the lines that follow included. */
  readonly readBytes: number
}

/**
 * The first `maxLines` lines of a file, reading only as far as they go, then counting the
 * lines that follow until `readBytes` have been read. Memory stays within `maxBytes` plus one
 * chunk, whatever the file's size or its longest line.
 */
export const readFirstLines = (
  file: OpenFile,
  options: FirstLinesOptions
): Effect.Effect<FirstLines, SafeFsError | BinaryFile> =>
  Effect.gen(function*() {
    const buffer = bufferFor(file)
    const kept: Array<Buffer> = []
    let keptBytes = 0
    let position = 0
    let newlines = 0
    // phase 1: keep bytes up to the newline that ends line `maxLines`
    let n: number
    let cut = -1
    for (;;) {
      n = yield* readPiece(file, buffer, position)
      if (position === 0) yield* checkFirstBlock(file, buffer, n)
      if (n === 0) return { _tag: "Whole", text: decodeUtf8(Buffer.concat(kept)) } as const
      const before = newlines
      for (let i = 0; i < n; i++) {
        if (buffer[i] === NEWLINE && ++newlines === options.maxLines) {
          cut = i
          break
        }
      }
      const end = cut >= 0 ? cut : n
      if (keptBytes + end > options.maxBytes) {
        const room = options.maxBytes - keptBytes
        kept.push(Buffer.from(buffer.subarray(0, room)))
        const line = before + countNewlines(buffer, 0, room) + 1
        return { _tag: "Capped", text: decodeUtf8Prefix(Buffer.concat(kept), options.maxBytes), line } as const
      }
      kept.push(Buffer.from(buffer.subarray(0, end)))
      keptBytes += end
      position += n
      if (cut >= 0) break
    }
    // phase 2: count the lines after the cut, within the read budget
    let rest = n - cut - 1
    let restNewlines = countNewlines(buffer, cut + 1, n)
    // the last byte read: the cut's newline when nothing follows it yet
    let last = buffer[n - 1]
    let exact = false
    for (;;) {
      if (position >= options.readBytes && position < file.size) break
      const m = yield* readPiece(file, buffer, position)
      if (m === 0) {
        exact = true
        break
      }
      position += m
      rest += m
      restNewlines += countNewlines(buffer, 0, m)
      last = buffer[m - 1]
    }
    const text = decodeUtf8(Buffer.concat(kept))
    if (exact && rest === 0) return { _tag: "Whole", text: `${text}\n` } as const
    return { _tag: "Head", text, moreLines: restNewlines + (last === NEWLINE ? 0 : 1), exact } as const
  })
