/**
 * The image formats `generate_image` accepts, told by their signatures (magic numbers).
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"

/** A recognised image format. */
export interface ImageType {
  readonly name: "PNG" | "JPEG" | "WebP" | "GIF"
  /** File name endings usual for it, lower case. */
  readonly extensions: ReadonlyArray<string>
}

// no length check needed: past the end, `bytes[at + i]` is undefined, which no signature byte equals
const startsWith = (bytes: Uint8Array, signature: ReadonlyArray<number>, at = 0): boolean =>
  signature.every((byte, i) => bytes[at + i] === byte)

const ascii = (text: string): ReadonlyArray<number> => Array.from(text, (c) => c.charCodeAt(0))

/** The format of `bytes`, if it is a PNG, JPEG, WebP or GIF image. */
export const imageTypeOf = (bytes: Uint8Array): Option.Option<ImageType> => {
  const type: ImageType | undefined = startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
    ? { name: "PNG", extensions: [".png"] }
    : startsWith(bytes, [0xff, 0xd8, 0xff])
    ? { name: "JPEG", extensions: [".jpg", ".jpeg"] }
    : startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WEBP"), 8)
    ? { name: "WebP", extensions: [".webp"] }
    : startsWith(bytes, ascii("GIF87a")) || startsWith(bytes, ascii("GIF89a"))
    ? { name: "GIF", extensions: [".gif"] }
    : undefined
  return Option.fromUndefinedOr(type)
}
