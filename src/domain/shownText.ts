/**
 * Text a model or a client sent, made safe to show a person: cut to a length that says so
 * (`(cut: showing N of M characters)`), and with the characters that can hide or reorder what
 * is shown (bidi overrides and isolates, C0 and C1 controls) written as visible escapes, so
 * that what a person reads (and approves) is what runs.
 *
 * @since 0.3.0
 */

/** The longest tool name echoed back (registered names have at most 64 characters). */
export const MAX_SHOWN_NAME = 100

/**
 * The characters written as escapes: C0 controls (tab and newline included: a newline can push
 * the rest of a question out of a one-line view), DEL and C1 controls, the bidi marks
 * (U+061C, U+200E, U+200F), embeddings and overrides (U+202A–U+202E) and isolates
 * (U+2066–U+2069).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const HIDING = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

const NAMED: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" }

/** `text` with every hiding character written as an escape (`\n`, `\t`, `\u202E`, ...). */
export const escapeHiding = (text: string): string =>
  text.replace(HIDING, (char) => NAMED[char] ?? `\\u${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`)

/**
 * The first `max` characters of `text` (never half of a surrogate pair), for a `text` longer than
 * `max`. The work is bounded by `max`, whatever the length of `text`.
 */
const head = (text: string, max: number): string => {
  const end = Math.max(0, Math.floor(max))
  const last = text.charCodeAt(end - 1)
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? end - 1 : end)
}

/** `text` cut to `max` characters with a plain note of the cut, or `text` as it is. */
export const capText = (text: string, max: number): string => {
  if (text.length <= max) return text
  const shown = head(text, max)
  return `${shown}… (cut: showing ${shown.length} of ${text.length} characters)`
}

/** `text` cut to `max` characters (saying so), then with its hiding characters escaped. */
export const showText = (text: string, max: number): string => {
  if (text.length <= max) return escapeHiding(text)
  const shown = head(text, max)
  return `${escapeHiding(shown)}… (cut: showing ${shown.length} of ${text.length} characters)`
}

/** A tool name as it is echoed back: at most `MAX_SHOWN_NAME` characters, hiding characters escaped. */
export const showName = (name: string): string => showText(name, MAX_SHOWN_NAME)
