/**
 * Cleaning text that comes from outside (a web answer, a file) before it reaches the model
 * or a terminal, so that it cannot forge structure: no ANSI escape sequences, no control
 * characters, no Unicode bidi overrides, and one-line fields on one line.
 *
 * Every function here first takes a bounded prefix of its input (`SANITIZE_WINDOW` code
 * units) and works on that only: no synchronous pass over an unbounded text.
 *
 * @since 0.1.0
 */
import { headOf } from "./outputCap.js"
import type { Redactor } from "./redact.js"
import stripAnsi from "strip-ansi"

/** How many UTF-16 code units of a text `oneLine` looks at, at most. */
export const SANITIZE_WINDOW = 8192

/** What ends a text that was cut. */
export const ELLIPSIS = "…"

/**
 * Control characters that are not white space (C0 but tab and line breaks, DEL, C1 but NEL)
 * and the bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069).
 */
const INVISIBLE = /[\u0000-\u0008\u000e-\u001f\u007f-\u0084\u0086-\u009f\u202a-\u202e\u2066-\u2069]/g

/** White space, line and paragraph breaks (NEL included). */
const SPACES = /[\s\u0085]+/g

/** How `stripControls` and `oneLine` treat their input. */
export interface SanitizeOptions {
  /** How many code units are looked at. Default `SANITIZE_WINDOW` (for `oneLine`, at least `maxChars`). */
  readonly window?: number
  /** The text is itself the start of a longer one (a body read up to a cap). */
  readonly truncated?: boolean
  /**
   * Secrets to remove, applied after control characters are removed (so a secret split by
   * an escape sequence is still found) and before anything is cut.
   */
  readonly redact?: Redactor
}

/**
 * `text` without ANSI escape sequences (CSI, OSC, 8-bit forms), control characters and bidi
 * controls; tabs and line breaks are kept. Only the first `window` code units are kept.
 */
export const stripControls = (text: string, options: SanitizeOptions = {}): string => {
  const window = options.window ?? SANITIZE_WINDOW
  const clean = stripAnsi(headOf(text, window)).replace(INVISIBLE, "")
  return options.redact === undefined
    ? clean
    : options.redact(clean, { cutAtEnd: options.truncated === true || text.length > window })
}

/** `stripControls`, then every run of white space one space, trimmed. */
const flatten = (text: string, options: SanitizeOptions): string =>
  stripControls(text, options).replace(SPACES, " ").trim()

/**
 * `text` as one line: escape sequences and control characters removed, every run of white
 * space (line breaks included) one space, trimmed, and cut at `maxChars` code points with
 * "…". Only the first `window` code units are looked at; a text longer than that (or
 * `truncated`) also ends with "…".
 */
export const oneLine = (text: string, maxChars: number, options: SanitizeOptions = {}): string => {
  const window = Math.max(options.window ?? SANITIZE_WINDOW, maxChars)
  const flat = flatten(text, { ...options, window })
  const chars = Array.from(flat)
  if (chars.length > maxChars) return `${chars.slice(0, maxChars).join("")}${ELLIPSIS}`
  return (text.length > window || options.truncated === true) && flat !== "" ? `${flat}${ELLIPSIS}` : flat
}

/**
 * The end of `text` as one line, as `oneLine` makes it: the last `maxChars` code points,
 * after "…" when anything came before them. For what matters most at its end, such as a
 * process's stderr before it died. Only the last `window` code units are looked at; a text
 * longer than that (or `truncated`: itself the end of a longer one) also starts with "…".
 */
export const oneLineTail = (text: string, maxChars: number, options: SanitizeOptions = {}): string => {
  const window = Math.max(options.window ?? SANITIZE_WINDOW, maxChars)
  const cut = text.length > window || options.truncated === true
  // a text cut before it may start on the second half of a surrogate pair: it starts after it
  const end = text.slice(-window).replace(/^[\udc00-\udfff]/, "")
  const flat = flatten(end, { ...options, window, truncated: false })
  const chars = Array.from(flat)
  if (chars.length > maxChars) return `${ELLIPSIS}${chars.slice(-maxChars).join("")}`
  return cut && flat !== "" ? `${ELLIPSIS}${flat}` : flat
}

/** Line breaks other than LF: CRLF, a lone CR, vertical tab, form feed, NEL. */
const OTHER_BREAKS = /\r\n|[\r\u000b\u000c\u0085]/g

/**
 * Text from outside that a model reads as it is (a tool's result, a server's error):
 * `stripControls`, and every line break made `\n` (a CR can make a terminal write over a line
 * already shown), so that only `\n` and `\t` stay of the control characters. Only the first
 * `window` code units are kept.
 */
export const modelText = (text: string, options: SanitizeOptions = {}): string =>
  stripControls(text, options).replace(OTHER_BREAKS, "\n")
