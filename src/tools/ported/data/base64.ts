/**
 * `base64`: UTF-8 text to Base64 and back. Decoding is strict: only the Base64 alphabet
 * (standard or URL-safe, not mixed), white space ignored, `=` padding only at the end, and
 * the first offending character is named. Decoded bytes that are not UTF-8 text are described
 * (size and a hex preview), not returned as garbage.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { ToolError } from "../../../domain/errors.js"
import { make } from "../../define.js"
import { OUTPUT_MAX_CHARS } from "../../shared/outputCap.js"
import { FIRST_BLOCK_BYTES } from "../../shared/safeFsRead.js"
import { looksBinary } from "../../shared/text.js"

const TOOL = "base64"

/** Bytes shown in hex when the decoded data is not text. */
const HEX_PREVIEW_BYTES = 64

const fail = (message: string) => new ToolError({ tool: TOOL, message })

/** Which alphabet a character belongs to: both, the standard one (+ /), the URL-safe one (- _), or none. */
const alphabetOf = (c: number): "both" | "standard" | "url-safe" | undefined =>
  (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39)
    ? "both"
    : c === 0x2b || c === 0x2f
    ? "standard"
    : c === 0x2d || c === 0x5f
    ? "url-safe"
    : undefined

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09

/** The number of Base64 characters in `text`, or where it is not Base64. Linear. */
const scan = (text: string): { readonly data: number } | { readonly problem: string } => {
  let data = 0
  let padding = 0
  let alphabet: "standard" | "url-safe" | undefined
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (isSpace(c)) continue
    const shown = () => `${JSON.stringify(String.fromCodePoint(text.codePointAt(i) ?? c))} at position ${i}`
    if (c === 0x3d) {
      if (++padding > 2) return { problem: `too much "=" padding (at position ${i})` }
      continue
    }
    if (padding > 0) return { problem: `${shown()} follows the "=" padding, which may only end the text` }
    const kind = alphabetOf(c)
    if (kind === undefined) {
      return { problem: `${shown()} is not a Base64 character (A-Z a-z 0-9 + / or - _, and = at the end)` }
    }
    if (kind !== "both") {
      if (alphabet !== undefined && alphabet !== kind) {
        return { problem: `${shown()} mixes the standard (+ /) and URL-safe (- _) alphabets` }
      }
      alphabet = kind
    }
    data++
  }
  if (data % 4 === 1) return { problem: `${data} Base64 characters cannot encode whole bytes (one is missing or extra)` }
  if (padding > 0 && (data + padding) % 4 !== 0) return { problem: "the \"=\" padding does not complete a group of 4 characters" }
  return { data }
}

const encode = (text: string): Effect.Effect<string, ToolError> => {
  const bytes = Buffer.byteLength(text, "utf8")
  const chars = Math.ceil(bytes / 3) * 4
  if (chars > OUTPUT_MAX_CHARS) {
    return Effect.fail(fail(
      `the Base64 text would be ${chars} characters, over the ${OUTPUT_MAX_CHARS}-character limit of one answer; ` +
        `encode parts of at most ${(OUTPUT_MAX_CHARS / 4) * 3} bytes of UTF-8 each`
    ))
  }
  return Effect.succeed(Buffer.from(text, "utf8").toString("base64"))
}

const decode = (text: string): Effect.Effect<string, ToolError> => {
  const scanned = scan(text)
  if ("problem" in scanned) return Effect.fail(fail(`not valid Base64: ${scanned.problem}`))
  const bytes = Buffer.from(text, "base64") // both alphabets; white space and padding checked above
  // a UTF-16 code unit holds at most 3 bytes of UTF-8: more bytes than 3 per allowed character cannot fit
  const fits = bytes.length <= OUTPUT_MAX_CHARS * 3
  const binary = fits ? looksBinary(bytes) : looksBinary(bytes.subarray(0, FIRST_BLOCK_BYTES), false)
  if (binary) {
    const preview = bytes.subarray(0, HEX_PREVIEW_BYTES).toString("hex").replace(/(..)(?!$)/g, "$1 ")
    return Effect.succeed(
      `The decoded data is ${bytes.length} bytes of binary (not UTF-8 text). ` +
        `${bytes.length > HEX_PREVIEW_BYTES ? `First ${HEX_PREVIEW_BYTES} bytes` : "Bytes"} in hex: ${preview}`
    )
  }
  const decoded = fits ? bytes.toString("utf8") : undefined
  if (decoded !== undefined && decoded.length <= OUTPUT_MAX_CHARS) return Effect.succeed(decoded)
  return Effect.fail(fail(
    `the decoded text is ${decoded?.length ?? `more than ${OUTPUT_MAX_CHARS}`} characters, over the ` +
      `${OUTPUT_MAX_CHARS}-character limit of one answer; decode the Base64 in parts (each a multiple of 4 characters)`
  ))
}

export const base64 = make(TOOL, {
  description: "Encode UTF-8 text to Base64 (mode \"encode\", the default) or decode Base64 to text (mode \"decode\"). " +
    "Decoding accepts the standard and the URL-safe alphabet, ignores white space, and names the first invalid " +
    "character; binary data is described with a hex preview instead of being returned. " +
    `Answers are limited to ${OUTPUT_MAX_CHARS} characters.`,
  parameters: Schema.Struct({
    text: Schema.String.annotations({ description: "The text to encode, or the Base64 to decode" }),
    mode: Schema.optionalWith(
      Schema.Literal("encode", "decode").annotations({ description: "\"encode\" text to Base64 or \"decode\" Base64 to text" }),
      { default: () => "encode" as const }
    )
  }),
  readOnly: true,
  tags: ["data", "ported"],
  timeout: "30 seconds",
  handler: ({ mode, text }) => (mode === "encode" ? encode(text) : decode(text))
})
