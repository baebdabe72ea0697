/**
 * The lines of a server's stdout: the framing of the SDK's `ReadBuffer` (newline-delimited,
 * a trailing CR dropped, at most `maxBytes` buffered), giving each line as text so that the
 * bridge can take the answers to its own calls before any schema runs over them.
 *
 * The SDK's `readMessage` parses every line against `JSONRPCMessageSchema`, a union whose
 * request and notification branches each fail on an answer before its branch succeeds: on a
 * bridged `echo` that was about a quarter of the bytes a call allocated (sampled with the
 * inspector's heap profiler over 20,000 calls). The bridge checks its own answers against the
 * union's answer branches alone (`directCalls.ts`), and every other line still goes through the
 * whole schema.
 *
 * @since 0.4.0
 */

/** A line buffer over a byte stream, holding at most `maxBytes` unread bytes. */
export interface LineBuffer {
  /**
   * Adds a chunk. Returns `false`, and drops everything buffered, when the unread bytes would
   * pass the cap (the SDK's `ReadBuffer` throws there).
   */
  readonly append: (chunk: Buffer) => boolean
  /** The next whole line (UTF-8, without its `\n` or `\r\n`), or `undefined` until one has come. */
  readonly next: () => string | undefined
  /** The next whole line as bytes (a view, without its line break), or `undefined` until one has come. */
  readonly nextBytes: () => Buffer | undefined
  /** How many bytes the next whole line takes (its line break included), without reading it; `undefined` until one has come. */
  readonly nextLength: () => number | undefined
}

/**
 * A line buffer holding at most `maxBytes` unread bytes.
 *
 * Chunks without a line break are kept aside, not joined: joining each chunk to what came
 * before copies a long line over and over (a server dribbling a 10 MB line in small chunks
 * made the host copy gigabytes). They are joined once, when the chunk that ends the line
 * comes, and each byte is scanned for a line break once.
 */
export const makeLineBuffer = (maxBytes: number): LineBuffer => {
  // the unread bytes: `held` (lines to read, then the start of the next one), then `rest`
  // (chunks without a line break, in order)
  let held: Buffer | undefined
  let rest: Array<Buffer> = []
  let size = 0
  const append = (chunk: Buffer): boolean => {
    size += chunk.length
    if (size > maxBytes) {
      held = undefined
      rest = []
      size = 0
      return false
    }
    if (chunk.indexOf(10) === -1) {
      rest.push(chunk)
      return true
    }
    const parts = held === undefined ? [...rest, chunk] : [held, ...rest, chunk]
    held = parts.length === 1 ? chunk : Buffer.concat(parts, size)
    rest = []
    return true
  }
  /** The next whole line's bytes (a view, without its line break), or `undefined`. */
  const nextBytes = (): Buffer | undefined => {
    if (held === undefined) return undefined
    const end = held.indexOf(10)
    if (end === -1) {
      // the start of a line: it waits, before the chunks that came after it, for its end
      rest = [held, ...rest]
      held = undefined
      return undefined
    }
    // at 0, `held[-1]` is undefined: no CR
    const stop = held[end - 1] === 13 ? end - 1 : end
    const line = held.subarray(0, stop)
    size -= end + 1
    held = end + 1 === held.length ? undefined : held.subarray(end + 1)
    return line
  }
  const next = (): string | undefined => nextBytes()?.toString("utf8")
  const nextLength = (): number | undefined => {
    const end = held?.indexOf(10) ?? -1
    return end === -1 ? undefined : end + 1
  }
  return { append, next, nextBytes, nextLength }
}
