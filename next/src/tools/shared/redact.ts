/**
 * Redaction of the secrets a tool sends (API keys, tokens) from what it returns or logs: a
 * web service may echo a request's `Authorization` header in its answer or its error page.
 *
 * A secret is replaced wherever it appears as is (so `Bearer <key>` becomes
 * `Bearer [REDACTED]`), URL-encoded, JSON-escaped, HTML-escaped, in base64 (standard or
 * URL-safe, with or without padding) or in hex, in any letter case (a service that upper-cases
 * or lower-cases what it echoes still gets caught; base64 matched without regard to case
 * redacts a little more than needed, never less). Any tool that holds a key uses one
 * `redactor` for everything it returns. Redact before cutting a
 * text short: a cut can split a secret and leave a part of it that no longer matches. When
 * the text itself was cut (a body read up to a cap), `cutAtEnd` also replaces a trailing
 * fragment of at least `REDACT_MIN_FRAGMENT` characters that starts a secret.
 *
 * @since 0.1.0
 */
import * as Redacted from "effect/Redacted"

/** What a redacted secret is replaced with. */
export const REDACTED = "[REDACTED]"

/** The shortest fragment of a secret at the end of a cut text that is still replaced. */
export const REDACT_MIN_FRAGMENT = 4

/** A secret as a tool holds it. */
export type Secret = string | Redacted.Redacted<string>

/** How a text is redacted. */
export interface RedactOptions {
  /** The text was cut at its end (a prefix of something longer): also replace a partial secret there. */
  readonly cutAtEnd?: boolean
}

/** Replaces the secrets it was made with; see the module doc. */
export type Redactor = (text: string, options?: RedactOptions) => string

const escapeHtml = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(
    /'/g,
    "&#39;"
  )

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&")

/** `secret`'s base64, standard and URL-safe, without padding (a padded one holds it). */
const base64Forms = (secret: string): ReadonlyArray<string> => {
  const standard = Buffer.from(secret, "utf8").toString("base64").replace(/=+$/, "")
  return [standard, standard.replace(/\+/g, "-").replace(/\//g, "_")]
}

/** The forms in which `secret` can appear in an echoing answer, without duplicates (case is ignored when matching). */
const formsOf = (secret: string): ReadonlyArray<string> =>
  Array.from(
    new Set([
      secret,
      encodeURIComponent(secret),
      JSON.stringify(secret).slice(1, -1),
      escapeHtml(secret),
      ...base64Forms(secret),
      Buffer.from(secret, "utf8").toString("hex")
    ])
  )

/** A trailing fragment of `text` that starts one of `forms` (at least `REDACT_MIN_FRAGMENT` long), if any. */
const trailingFragment = (text: string, forms: ReadonlyArray<string>): number => {
  // only the end can match: a fragment is at most a form's length
  const end = text.slice(-Math.max(...forms.map((form) => form.length))).toLowerCase()
  let longest = 0
  for (const form of forms) {
    for (let n = Math.min(form.length - 1, text.length); n >= REDACT_MIN_FRAGMENT && n > longest; n--) {
      if (end.endsWith(form.slice(0, n).toLowerCase())) {
        longest = n
        break
      }
    }
  }
  return longest
}

/**
 * A redactor for `secrets` (blank ones are ignored). Every non-blank secret is redacted,
 * however short: a tool cannot tell a real key from a test key.
 */
export const redactor = (secrets: Iterable<Secret>): Redactor => {
  const values = Array.from(secrets, (s) => (typeof s === "string" ? s : Redacted.value(s))).filter((s) =>
    s.trim() !== ""
  )
  if (values.length === 0) return (text) => text
  const forms = Array.from(new Set(values.flatMap(formsOf))).sort((a, b) => b.length - a.length)
  const pattern = new RegExp(forms.map(escapeRegExp).join("|"), "gi")
  return (text, options) => {
    const whole = text.replace(pattern, REDACTED)
    if (options?.cutAtEnd !== true) return whole
    const fragment = trailingFragment(whole, forms)
    return fragment === 0 ? whole : whole.slice(0, whole.length - fragment) + REDACTED
  }
}

/** `text` with `secrets` redacted (see `redactor`, which builds the matcher once for many texts). */
export const redact = (text: string, secrets: Iterable<Secret>, options?: RedactOptions): string =>
  redactor(secrets)(text, options)
