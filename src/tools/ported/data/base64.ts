/**
 * `base64`: UTF-8 text to Base64 and back. Decoding is strict: only the Base64 alphabet
 * (standard or URL-safe, not mixed), white space ignored, `=` padding only at the end, and
 * the first offending character is named. Decoded bytes that are not UTF-8 text are described
 * (size and a hex preview), not returned as garbage.
 *
 * A call never holds the event loop for long (issue 47 item 6): the check of a text of up to
 * 32 Mi characters and its decoding go in slices, and only as many bytes are decoded as an
 * answer can use; the UTF-8 length of a text to encode is counted in slices too.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { ToolError } from "../../../domain/errors.js"
import { make } from "../../defineBuiltin.js"
import { OUTPUT_MAX_CHARS } from "../../shared/outputCap.js"
import { FIRST_BLOCK_BYTES } from "../../shared/safeFsRead.js"
import { inSlices } from "../../shared/slices.js"
import { looksBinary } from "../../shared/text.js"
import { utf8Length } from "../../shared/utf8Length.js"

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

/** The character at `i`, quoted, and where it is (a character outside the BMP whole). */
const shown = (text: string, i: number): string =>
  `${JSON.stringify(String.fromCodePoint(text.codePointAt(i) ?? text.charCodeAt(i)))} at position ${i}`

/** Characters checked per step of `scan` (a fraction of a millisecond). */
const STEP_CHARS = 64 * 1024

/** The most decoded bytes that can still be an answer: a UTF-16 code unit holds at most 3 bytes of UTF-8. */
const MOST_ANSWER_BYTES = OUTPUT_MAX_CHARS * 3

/** White space and padding, dropped from a slice before it is decoded. */
const NOT_DATA = /[\t\n\r =]+/g

/** What `scan` found: the first problem, or the number of Base64 characters and the start of the decoded bytes. */
type Scanned =
  | { readonly problem: string }
  | { readonly data: number; readonly head: Buffer }

/**
 * The number of Base64 characters in `text`, or where it is not Base64, checked in slices with
 * a turn of the event loop between them (a text may be 32 Mi characters). The slices checked
 * are decoded on the way (natively, white space and padding dropped, whole groups of 4
 * characters at a time), until more bytes than any answer can hold are decoded: `head` is all
 * the decoded bytes when they fit an answer, else at least their first `MOST_ANSWER_BYTES`.
 */
const scan = (text: string): Effect.Effect<Scanned> =>
  Effect.suspend(() => {
    let at = 0
    let data = 0
    let padding = 0
    let alphabet: "standard" | "url-safe" | undefined
    let problem: string | undefined
    const decoded: Array<Buffer> = []
    let decodedBytes = 0
    let carry = "" // the Base64 characters of a group that a slice's end cut
    /** The problem at `i` (a character in `text`), or `undefined`; counts the character when it is Base64. */
    const check = (i: number): string | undefined => {
      const c = text.charCodeAt(i)
      if (isSpace(c)) return undefined
      if (c === 0x3d) return ++padding > 2 ? `too much "=" padding (at position ${i})` : undefined
      if (padding > 0) return `${shown(text, i)} follows the "=" padding, which may only end the text`
      const kind = alphabetOf(c)
      if (kind === undefined) return `${shown(text, i)} is not a Base64 character (A-Z a-z 0-9 + / or - _, and = at the end)`
      if (kind !== "both") {
        if (alphabet !== undefined && alphabet !== kind) return `${shown(text, i)} mixes the standard (+ /) and URL-safe (- _) alphabets`
        alphabet = kind
      }
      data++
      return undefined
    }
    /** Decodes `chars` (Base64 characters only) after the carried ones, keeping a cut group for later. */
    const decode = (chars: string, last: boolean) => {
      if (decodedBytes > MOST_ANSWER_BYTES) return
      const group = carry + chars
      const whole = last ? group.length : group.length - (group.length % 4)
      const bytes = Buffer.from(group.slice(0, whole), "base64") // both alphabets, checked above
      decoded.push(bytes)
      decodedBytes += bytes.length
      carry = group.slice(whole)
    }
    return inSlices(() => {
      const end = Math.min(text.length, at + STEP_CHARS)
      // (no closure is made per character: one was, and the check cost 270 ns a character, 4-6 s a call)
      for (let i = at; i < end && problem === undefined; i++) problem = check(i)
      if (problem !== undefined) return true
      decode(text.slice(at, end).replace(NOT_DATA, ""), end === text.length)
      at = end
      return at >= text.length
    }).pipe(Effect.map((): Scanned => {
      if (problem !== undefined) return { problem }
      if (data % 4 === 1) return { problem: `${data} Base64 characters cannot encode whole bytes (one is missing or extra)` }
      if (padding > 0 && (data + padding) % 4 !== 0) return { problem: "the \"=\" padding does not complete a group of 4 characters" }
      return { data, head: Buffer.concat(decoded) }
    }))
  })

const encode = (text: string): Effect.Effect<string, ToolError> =>
  Effect.flatMap(utf8Length(text), (bytes) => {
    const chars = Math.ceil(bytes / 3) * 4
    if (chars > OUTPUT_MAX_CHARS) {
      return Effect.fail(fail(
        `the Base64 text would be ${chars} characters, over the ${OUTPUT_MAX_CHARS}-character limit of one answer; ` +
          `encode parts of at most ${(OUTPUT_MAX_CHARS / 4) * 3} bytes of UTF-8 each`
      ))
    }
    return Effect.succeed(Buffer.from(text, "utf8").toString("base64"))
  })

const decode = (text: string): Effect.Effect<string, ToolError> =>
  Effect.flatMap(scan(text), (scanned) => {
    if ("problem" in scanned) return Effect.fail(fail(`not valid Base64: ${scanned.problem}`))
    // as many bytes as Buffer.from(text, "base64") gives: 3 per whole group of 4 characters, 1 or 2 for the rest
    const length = Math.floor((scanned.data * 3) / 4)
    // more bytes than 3 per allowed character cannot fit an answer
    const fits = length <= MOST_ANSWER_BYTES
    const bytes = scanned.head
    const binary = fits ? looksBinary(bytes) : looksBinary(bytes.subarray(0, FIRST_BLOCK_BYTES), false)
    if (binary) {
      const preview = bytes.subarray(0, HEX_PREVIEW_BYTES).toString("hex").replace(/(..)(?!$)/g, "$1 ")
      return Effect.succeed(
        `The decoded data is ${length} bytes of binary (not UTF-8 text). ` +
          `${length > HEX_PREVIEW_BYTES ? `First ${HEX_PREVIEW_BYTES} bytes` : "Bytes"} in hex: ${preview}`
      )
    }
    const decoded = fits ? bytes.toString("utf8") : undefined
    if (decoded !== undefined && decoded.length <= OUTPUT_MAX_CHARS) return Effect.succeed(decoded)
    return Effect.fail(fail(
      `the decoded text is ${decoded?.length ?? `more than ${OUTPUT_MAX_CHARS}`} characters, over the ` +
        `${OUTPUT_MAX_CHARS}-character limit of one answer; decode the Base64 in parts (each a multiple of 4 characters)`
    ))
  })

export const base64 = make(TOOL, {
  description: "Encode UTF-8 text to Base64 (mode \"encode\", the default) or decode Base64 to text (mode \"decode\"). " +
    "Decoding accepts the standard and the URL-safe alphabet, ignores white space, and names the first invalid " +
    "character; binary data is described with a hex preview instead of being returned. " +
    `Answers are limited to ${OUTPUT_MAX_CHARS} characters.`,
  parameters: Schema.Struct({
    text: Schema.String.annotate({ description: "The text to encode, or the Base64 to decode" }),
    mode: Schema.Literals(["encode", "decode"]).annotate({ description: "\"encode\" text to Base64 or \"decode\" Base64 to text" })
      .pipe(Schema.withDecodingDefaultType(Effect.succeed("encode" as const)))
  }),
  readOnly: true,
  tags: ["data", "ported"],
  timeout: "30 seconds",
  handler: ({ mode, text }) => (mode === "encode" ? encode(text) : decode(text))
})
