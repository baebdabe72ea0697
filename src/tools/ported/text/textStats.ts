/**
 * `text_stats`: counts of a text in one linear pass: characters (code points), words (runs of
 * non-white-space, as `wc -w` counts them), lines, sentences (an approximation: runs of
 * `.`, `!`, `?` or their CJK forms followed by white space or the end), paragraphs, bytes.
 * The tool makes the pass in slices, so that a long text never holds the event loop.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { make } from "../../defineBuiltin.js"
import { inSlices } from "../../shared/slices.js"
import { isHighSurrogate, isLowSurrogate } from "../../shared/text.js"
import { utf8Length } from "../../shared/utf8Length.js"

/** What `textStats` counts. */
export interface TextStats {
  readonly characters: number
  readonly nonWhitespace: number
  readonly codeUnits: number
  readonly utf8Bytes: number
  readonly words: number
  readonly lines: number
  readonly sentences: number
  readonly paragraphs: number
  readonly lineEndings: "none" | "LF" | "CRLF" | "CR" | "mixed"
}

const UNICODE_SPACE = /\s/

// the `c > 0x7f` test is a shortcut: /\s/ matches no other ASCII code
const isSpace = (c: number): boolean =>
  c === 0x20 || (c >= 0x09 && c <= 0x0d) || (c > 0x7f && UNICODE_SPACE.test(String.fromCharCode(c)))

/** `.` `!` `?` `。` `！` `？` `…` */
const isTerminator = (c: number): boolean =>
  c === 0x2e || c === 0x21 || c === 0x3f || c === 0x3002 || c === 0xff01 || c === 0xff1f || c === 0x2026

/** Closing quotes and brackets that may follow a terminator: `"` `'` `)` `]` `”` `’` `»` `」` */
const isCloser = (c: number): boolean =>
  c === 0x22 || c === 0x27 || c === 0x29 || c === 0x5d || c === 0x201d || c === 0x2019 || c === 0xbb || c === 0x300d


/** Code units counted per step of the tool's pass (about a millisecond). */
const STEP_CHARS = 128 * 1024

/**
 * A pass over `text` that can stop and go on: `countTo(end)` counts on up to the code unit
 * `end` (or just past it, the LF of a CRLF), `counts(utf8Bytes)` gives the result once `done()`.
 */
const counter = (text: string) => {
  const n = text.length
  let i = 0
  let characters = 0
  let nonWhitespace = 0
  let words = 0
  let inWord = false
  let breaks = 0
  let lf = 0
  let crlf = 0
  let cr = 0
  let sentences = 0
  let openSentence = false // text seen since the last sentence end
  let paragraphs = 0
  let lineBlank = true
  let inParagraph = false
  // where the last run of terminators and closers looked at ends: every terminator inside a run
  // sees the same end, so a run is read once (a run of 30 Mi dots after a word was read again
  // at each dot: quadratic)
  let runEnd = 0
  const countTo = (end: number): void => {
    for (; i < end; i++) {
      const c = text.charCodeAt(i)
      // the low half of a pair counts with its high half (before the text, charCodeAt is NaN)
      if (isLowSurrogate(c) && isHighSurrogate(text.charCodeAt(i - 1))) continue
      characters++
      if (c === 0x0a || c === 0x0d) {
        if (c === 0x0d && text.charCodeAt(i + 1) === 0x0a) {
          crlf++
          characters++ // the LF of the pair
          i++
        } else if (c === 0x0d) cr++
        else lf++
        breaks++
        if (lineBlank) inParagraph = false
        lineBlank = true
        inWord = false
        continue
      }
      if (isSpace(c)) {
        inWord = false
        continue
      }
      nonWhitespace++
      if (lineBlank) {
        lineBlank = false
        if (!inParagraph) {
          paragraphs++
          inParagraph = true
        }
      }
      if (!inWord) {
        words++
        inWord = true
      }
      if (!isTerminator(c)) {
        if (!isCloser(c)) openSentence = true
      } else if (openSentence) {
        let j = Math.max(i + 1, runEnd)
        // (its `j < n` is a shortcut: past the end charCodeAt is NaN, neither a terminator nor a closer)
        while (j < n && (isTerminator(text.charCodeAt(j)) || isCloser(text.charCodeAt(j)))) j++
        runEnd = j
        const next = text.charCodeAt(j)
        // CJK terminators end a sentence even without a following space
        if (j >= n || isSpace(next) || c >= 0x3000) {
          sentences++
          openSentence = false
        }
      }
    }
  }
  const counts = (utf8Bytes: number): TextStats => {
    const endsWithBreak = text.charCodeAt(n - 1) === 0x0a || text.charCodeAt(n - 1) === 0x0d // NaN when empty
    const kinds = [lf > 0, crlf > 0, cr > 0].filter(Boolean).length
    return {
      characters,
      nonWhitespace,
      codeUnits: n,
      utf8Bytes,
      words,
      lines: n === 0 ? 0 : breaks + (endsWithBreak ? 0 : 1),
      sentences: sentences + (openSentence ? 1 : 0),
      paragraphs,
      lineEndings: kinds === 0 ? "none" : kinds > 1 ? "mixed" : lf > 0 ? "LF" : crlf > 0 ? "CRLF" : "CR"
    }
  }
  return { countTo, done: () => i >= n, counts, at: () => i }
}

/** The counts of `text`, in one pass. */
export const textStats = (text: string): TextStats => {
  const pass = counter(text)
  pass.countTo(text.length)
  return pass.counts(Buffer.byteLength(text, "utf8"))
}

/**
 * `textStats` in slices, with a turn of the event loop between them: a text of 30 Mi
 * characters (a call may carry 32 Mi) held it for 0.5-0.7 s in one pass, and no timeout
 * could stop it (issue 47 item 6).
 */
export const textStatsInSlices = (text: string): Effect.Effect<TextStats> =>
  Effect.suspend(() => {
    const pass = counter(text)
    return inSlices(() => {
      pass.countTo(Math.min(text.length, pass.at() + STEP_CHARS))
      return pass.done()
    }).pipe(Effect.andThen(utf8Length(text)), Effect.map(pass.counts))
  })

/** The counts as the tool shows them. */
export const renderStats = (s: TextStats): string =>
  [
    `characters: ${s.characters} (${s.nonWhitespace} not white space; ${s.codeUnits} UTF-16 code units; ` +
    `${s.utf8Bytes} bytes as UTF-8)`,
    `words: ${s.words}`,
    `lines: ${s.lines}${s.lineEndings === "none" ? "" : ` (line endings: ${s.lineEndings})`}`,
    `sentences: ${s.sentences}`,
    `paragraphs: ${s.paragraphs}`
  ].join("\n")

export const textStatsTool = make("text_stats", {
  description: "Count the characters, words, lines, sentences and paragraphs of a text. Words are runs of " +
    "non-white-space (as wc -w counts them); sentences end with . ! ? (or their CJK forms) followed by white space " +
    "or the end, so abbreviations like \"e.g.\" can count as ends; lines count a last line without a line break.",
  parameters: Schema.Struct({
    text: Schema.String.annotate({ description: "The text to count" })
  }),
  readOnly: true,
  tags: ["text", "ported"],
  timeout: "30 seconds",
  handler: ({ text }) => Effect.map(textStatsInSlices(text), renderStats)
})
