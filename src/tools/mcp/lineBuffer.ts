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
}

/** A line buffer holding at most `maxBytes` unread bytes. */
export const makeLineBuffer = (maxBytes: number): LineBuffer => {
  let buffer: Buffer | undefined
  const append = (chunk: Buffer): boolean => {
    const size = (buffer?.length ?? 0) + chunk.length
    if (size > maxBytes) {
      buffer = undefined
      return false
    }
    buffer = buffer === undefined ? chunk : Buffer.concat([buffer, chunk], size)
    return true
  }
  const next = (): string | undefined => {
    if (buffer === undefined) return undefined
    const end = buffer.indexOf(10)
    if (end === -1) return undefined
    // at 0, `buffer[-1]` is undefined: no CR
    const stop = buffer[end - 1] === 13 ? end - 1 : end
    const line = buffer.toString("utf8", 0, stop)
    buffer = end + 1 === buffer.length ? undefined : buffer.subarray(end + 1)
    return line
  }
  return { append, next }
}
