/**
 * Text helpers shared by the file tools.
 *
 * @since 0.1.0
 */

/** How much of a file's start is searched for a NUL byte. */
export const NUL_WINDOW_BYTES = 8192

/**
 * Whether a file's first block looks binary: a NUL byte in its first 8 KiB, or invalid UTF-8.
 * Only the first block is looked at, so a file of any size is judged in constant time. When
 * the block is not the whole file (`complete: false`), a multi-byte character cut at its end
 * is not "invalid": the block is decoded as a stream.
 */
export const looksBinary = (block: Uint8Array, complete = true): boolean => {
  if (block.subarray(0, NUL_WINDOW_BYTES).includes(0)) return true
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(block, { stream: !complete })
    return false
  } catch {
    return true
  }
}

/** Decodes UTF-8 text (a BOM is dropped; invalid bytes become U+FFFD). */
export const decodeUtf8 = (bytes: Uint8Array): string => new TextDecoder("utf-8").decode(bytes)

/**
 * Decodes the first `length` bytes of UTF-8 text, dropping a character that the cut at
 * `length` splits (the text ends on a whole character).
 */
export const decodeUtf8Prefix = (bytes: Uint8Array, length: number): string =>
  new TextDecoder("utf-8").decode(bytes.subarray(0, length), { stream: true })

/** The first half of a UTF-16 surrogate pair: a cut right after it would split a character. */
export const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff

/** The second half of a UTF-16 surrogate pair. */
export const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff
