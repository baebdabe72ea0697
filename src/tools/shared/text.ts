/**
 * Text helpers shared by the file tools.
 *
 * @since 0.1.0
 */

/** Whether bytes look binary: a NUL byte in the first 8 KiB, or invalid UTF-8. */
export const looksBinary = (bytes: Uint8Array): boolean => {
  const head = bytes.subarray(0, 8192)
  if (head.includes(0)) return true
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes)
    return false
  } catch {
    return true
  }
}

/** Decodes UTF-8 text (a BOM is dropped). */
export const decodeUtf8 = (bytes: Uint8Array): string => new TextDecoder("utf-8").decode(bytes)
