/**
 * Texts handed to a worker thread through shared memory. `workerData` is serialised on the
 * calling thread when the worker is made: about 3 ns a character for a string and more for
 * bytes (a 3 MiB file's bytes: 60 ms), all in one synchronous call, so eight diffs started at
 * once held the host for a second. A `SharedArrayBuffer` crosses by reference; filling it is
 * a native copy, done for a string in slices with a turn of the event loop between them.
 *
 * A string goes as its UTF-16 code units (exactly, a lone surrogate too); a file's bytes as
 * they are (UTF-8, decoded in the worker).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { inSlices } from "./slices.js"

/** A text in shared memory: a string's UTF-16LE code units, or a file's UTF-8 bytes. */
export interface SharedText {
  readonly encoding: "utf16le" | "utf8"
  /** A view over a `SharedArrayBuffer`. */
  readonly bytes: Uint8Array
}

/** Characters copied per step (a few milliseconds at most). */
const STEP_CHARS = 256 * 1024

/** `text` as UTF-16LE code units in shared memory, copied in slices. */
export const shareString = (text: string): Effect.Effect<SharedText> =>
  Effect.suspend(() => {
    const memory = Buffer.from(new SharedArrayBuffer(text.length * 2))
    let at = 0
    // utf16le writes code units as they are: a pair cut between two steps is whole again in memory
    return inSlices(() => {
      const end = Math.min(text.length, at + STEP_CHARS)
      memory.write(text.slice(at, end), at * 2, "utf16le")
      at = end
      return at >= text.length
    }).pipe(Effect.as<SharedText>({ encoding: "utf16le", bytes: memory }))
  })

/** A copy of `bytes` (UTF-8) in shared memory: one native copy. */
export const shareBytes = (bytes: Uint8Array): SharedText => {
  const memory = new Uint8Array(new SharedArrayBuffer(bytes.length))
  memory.set(bytes)
  return { encoding: "utf8", bytes: memory }
}

/**
 * The worker's side, as CommonJS source: `textOf(shared)` gives the string back (UTF-8 as
 * `decodeUtf8` in `text.ts` reads it: a BOM dropped, invalid bytes as U+FFFD).
 */
export const TEXT_OF_SOURCE = `
const textOf = (t) =>
  t.encoding === "utf8"
    ? new TextDecoder("utf-8").decode(t.bytes)
    : Buffer.from(t.bytes.buffer, t.bytes.byteOffset, t.bytes.byteLength).toString("utf16le")
`
