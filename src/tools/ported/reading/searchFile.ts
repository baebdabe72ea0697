/**
 * One file searched by `search_files`, two ways:
 *
 * - `searchSmallSync`: a file of an open directory, opened through the directory's descriptor
 *   and read with synchronous calls (`safeFsSync.ts`), for files up to `SYNC_MAX_BYTES`; most
 *   files of a source tree are one read. A binary file is never read past its first block, and
 *   for a case-sensitive literal a file without the literal is never decoded nor judged.
 * - `searchStreamed`: a larger file (or a link to a file elsewhere in the workspace), opened
 *   with `openFile` and read in chunks, whole lines at a time, up to `SEARCH_FILE_MAX_BYTES`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { openFile, type OpenDirectory, type OpenFile } from "../../shared/safeFs.js"
import { type BinaryFile, SafeFsError } from "../../shared/safeFsError.js"
import { FIRST_BLOCK_BYTES } from "../../shared/safeFsRead.js"
import { closeSync, fileSizeSync, openChildFileSync, readSync } from "../../shared/safeFsSync.js"
import { looksBinary } from "../../shared/text.js"
import { countNewlines, NEWLINE, readChunksWith } from "./chunks.js"
import { type Hit, type Matcher, searchRegion } from "./searchMatch.js"
import type { RegexWorker, RegexWorkerFailed } from "./searchRegexWorker.js"

/** Largest file read with synchronous calls; the buffer `searchSmallSync` is given is this big. */
export const SYNC_MAX_BYTES = 256 * 1024
/** Most bytes of one file searched; the rest of a larger file is not, and the output says so. */
export const SEARCH_FILE_MAX_BYTES = 64 * 1024 * 1024
/** Longest piece of one line held while streaming; a longer line is searched in pieces of this size. */
const MAX_LINE_BYTES = 1024 * 1024

/** What searching one file gave. */
export type Outcome =
  | { readonly _tag: "Searched"; readonly hits: ReadonlyArray<Hit>; readonly partial: boolean }
  | { readonly _tag: "Binary" }
  /** Too large for `searchSmallSync`: search it with `searchStreamed`. */
  | { readonly _tag: "Large" }
  | { readonly _tag: "Unreadable"; readonly error: SafeFsError }

const binary: Outcome = { _tag: "Binary" }
const large: Outcome = { _tag: "Large" }

/**
 * The hits of a whole file held in `bytes`: binary content judged as the matcher needs, unless
 * `judged` (the caller already judged it).
 */
export const searchWhole = (bytes: Buffer, judged: boolean, matcher: Matcher, limit: number): Outcome => {
  if (!judged && matcher.needle === undefined && looksBinary(bytes)) return binary
  const hits: Array<Hit> = []
  searchRegion(bytes, 1, matcher, limit, hits)
  // a literal found in bytes: only now does it matter whether they are text
  if (!judged && hits.length > 0 && looksBinary(bytes)) return binary
  return { _tag: "Searched", hits, partial: false }
}

const unreadable = (path: string, error: unknown): Outcome => ({
  _tag: "Unreadable",
  error: error instanceof SafeFsError
    ? error
    : new SafeFsError({ reason: "Io", path, message: `cannot read "${path}": ${String(error)}`, cause: error })
})

/** Searches an open descriptor of a regular file's entry (see `searchSmallSync`). */
const searchOpen = (fd: number, path: string, matcher: Matcher, limit: number, buffer: Buffer): Outcome => {
  try {
    const n = readSync(fd, path, buffer, 0, FIRST_BLOCK_BYTES, 0)
    if (n < FIRST_BLOCK_BYTES) return searchWhole(buffer.subarray(0, n), false, matcher, limit)
    if (looksBinary(buffer.subarray(0, n), false)) return binary
    // more than one block: read on only from a regular file that fits
    const size = fileSizeSync(fd, path)
    if (size === undefined) {
      return unreadable(path, new SafeFsError({ reason: "NotRegularFile", path, message: `"${path}" is not a regular file` }))
    }
    if (size >= buffer.length) return large
    let total = n
    for (let m = -1; m !== 0 && total < buffer.length;) {
      m = readSync(fd, path, buffer, total, buffer.length - total, total)
      total += m
    }
    // grown past the buffer since fstat: stream it
    return total >= buffer.length ? large : searchWhole(buffer.subarray(0, total), true, matcher, limit)
  } catch (error) {
    return unreadable(path, error)
  }
}

/**
 * Searches the regular file `name` of an open directory with synchronous reads, for up to
 * `limit` hits. `buffer` (at least `SYNC_MAX_BYTES`) is scratch space, reused across files.
 */
export const searchSmallSync = (dir: OpenDirectory, name: string, matcher: Matcher, limit: number, buffer: Buffer): Outcome => {
  // joined by hand: `NodePath.join` normalizes, which costs more than the read of a small file
  const path = dir.path.endsWith("/") ? `${dir.path}${name}` : `${dir.path}/${name}`
  let fd: number
  try {
    fd = openChildFileSync(dir, name)
  } catch (error) {
    return unreadable(path, error)
  }
  const outcome = searchOpen(fd, path, matcher, limit, buffer)
  try {
    closeSync(fd, path)
  } catch (error) {
    return unreadable(path, error)
  }
  return outcome
}

/** The matching lines of a piece of whole lines: found in the worker for an expression, here for a literal (linear). */
const regionSearch = (matcher: Matcher, regex: RegexWorker | undefined) =>
(region: Buffer, firstLine: number, limit: number): Effect.Effect<ReadonlyArray<Hit>, RegexWorkerFailed> =>
  regex !== undefined
    ? regex.search(region, firstLine, limit)
    : Effect.sync(() => {
      const found: Array<Hit> = []
      searchRegion(region, firstLine, matcher, limit, found)
      return found
    })

/**
 * Searches the file at `path` (a resolved, real path) as a stream of whole lines, for up to
 * `limit` hits, reading at most `SEARCH_FILE_MAX_BYTES`. A line longer than `MAX_LINE_BYTES` is
 * searched in pieces and put out once, with its first match. With `regex` (the search's
 * expression), the lines are matched in its worker thread.
 */
export const searchStreamed = (
  path: string,
  matcher: Matcher,
  limit: number,
  regex?: RegexWorker
): Effect.Effect<Outcome> =>
  Effect.scoped(Effect.gen(function*() {
    const file = yield* openFile(path)
    const find = regionSearch(matcher, regex)
    const hits: Array<Hit> = []
    let line = 1
    let carry: Buffer = Buffer.alloc(0)
    const search = (region: Buffer) =>
      Effect.map(find(region, line, limit - hits.length + 1), (found) => {
        // a hit on the line the last piece already put out is that line again
        const last = hits[hits.length - 1]
        for (const hit of found) {
          if (hits.length < limit && hit.line !== last?.line) hits.push(hit)
        }
        line += countNewlines(region)
      })
    const read = yield* readChunksWith(file, SEARCH_FILE_MAX_BYTES, (chunk) =>
      Effect.gen(function*() {
        const last = chunk.lastIndexOf(NEWLINE)
        if (last === -1) {
          carry = Buffer.concat([carry, chunk])
          if (carry.length >= MAX_LINE_BYTES) {
            const piece = carry
            carry = Buffer.alloc(0)
            // a long line with a hit already put out is not searched again
            if (hits[hits.length - 1]?.line !== line) yield* search(piece)
          }
        } else {
          yield* search(carry.length === 0 ? chunk.subarray(0, last + 1) : Buffer.concat([carry, chunk.subarray(0, last + 1)]))
          carry = Buffer.from(chunk.subarray(last + 1))
        }
        return hits.length < limit
      }))
    if (carry.length > 0 && hits.length < limit) yield* search(carry)
    return { _tag: "Searched", hits, partial: !read.complete && hits.length < limit } satisfies Outcome
  })).pipe(
    Effect.catch((error): Effect.Effect<Outcome> =>
      Effect.succeed(
        error._tag === "BinaryFile"
          ? binary
          : error._tag === "RegexWorkerFailed"
          ? { _tag: "Unreadable", error: new SafeFsError({ reason: "Io", path, message: error.message, cause: error }) }
          : { _tag: "Unreadable", error }
      )
    )
  )
