/**
 * What `search_files` looks for, and how it finds the matching lines of a piece of a file.
 *
 * - A case-sensitive literal is searched in the raw bytes (`Buffer.indexOf`, UTF-8 being
 *   self-synchronizing a byte match is a character match): a file without it is never decoded.
 * - A case-insensitive literal is a V8 expression of the escaped literal (no repetition, so
 *   linear).
 * - A regular expression is compiled by re2js (RE2 syntax, linear time: `(a+)+$` cannot hang
 *   the process), with `^` and `$` at line boundaries. A model's expression is never handed to
 *   V8's backtracking engine.
 *
 * A match is within one line, as grep's: a literal with a line break is refused, and a match of
 * an expression that runs past its line's end (`a\sb`, `[^x]+` across a line break) counts only
 * when the line alone has a match.
 *
 * Each matcher also carries its `Prefilter`: the same first test, as data a worker thread can
 * rebuild (`searchWorkerSource.ts`), so that files without a match are told apart off the main
 * thread.
 *
 * @since 0.1.0
 */
import * as Result from "effect/Result"
import { RE2JS } from "re2js"
import { decodeUtf8 } from "../../shared/text.js"
import { NEWLINE } from "./chunks.js"
import { around } from "./common.js"

/** Longest line text shown for a match; a longer line is shown around its match. */
export const MATCH_LINE_CHARS = 300

/**
 * The first step of a matcher, as data: whether a whole file (its bytes) has a first match at
 * all, decided exactly as `searchRegion` starts (so "no" from it means no matching line).
 * - `bytes`: the needle occurs in the bytes;
 * - `literal`: the escaped literal (no repetition: linear in V8), flags `giu`, matches the text;
 * - `re2`: the RE2 expression, with its re2js flags, finds a match from offset 0 of the text.
 */
export type Prefilter =
  | { readonly kind: "bytes"; readonly needle: Uint8Array }
  | { readonly kind: "literal"; readonly source: string; readonly flags: string }
  | { readonly kind: "re2"; readonly pattern: string; readonly flags: number }

/** How matches are found. */
export interface Matcher {
  /** The literal's UTF-8 bytes when a match is exactly these bytes (a case-sensitive literal). */
  readonly needle: Buffer | undefined
  /** The offset of the first match in `text` at or after `from`, or -1. */
  readonly next: (text: string, from: number) => number
  /**
   * An expression's: the offset just past the match the last `next` found. A literal has none:
   * it holds no line break, so its match never runs past its line.
   */
  readonly end: (() => number) | undefined
  /** The same first test, for a worker thread. */
  readonly prefilter: Prefilter
}

/** A matching line. */
export interface Hit {
  readonly line: number
  readonly text: string
}

/** The flags of a case-insensitive literal's expression. */
const LITERAL_FLAGS = "giu"

const escapeRegExp = (literal: string): string => literal.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")

/** The matcher of a search, or why its pattern is not valid. */
export const compileMatcher = (
  pattern: string,
  options: { readonly regex: boolean; readonly caseSensitive: boolean }
): Result.Result<Matcher, string> => {
  if (!options.regex && /[\r\n]/.test(pattern)) {
    return Result.fail("the pattern holds a line break, and search_files matches within one line: search for one line of it")
  }
  if (!options.regex && options.caseSensitive) {
    const needle = Buffer.from(pattern, "utf8")
    return Result.succeed({
      needle,
      next: (text, from) => text.indexOf(pattern, from),
      end: undefined,
      prefilter: { kind: "bytes", needle }
    })
  }
  if (!options.regex) {
    const source = escapeRegExp(pattern)
    const re = new RegExp(source, LITERAL_FLAGS)
    return Result.succeed({
      needle: undefined,
      prefilter: { kind: "literal", source, flags: LITERAL_FLAGS },
      next: (text, from) => {
        re.lastIndex = from
        return re.exec(text)?.index ?? -1
      },
      end: undefined
    })
  }
  const flags = RE2JS.MULTILINE | (options.caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE)
  let re: RE2JS
  try {
    re = RE2JS.compile(pattern, flags)
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error)
    return Result.fail(`invalid regular expression "${pattern}": ${why} (RE2 syntax: no look-around or back-references)`)
  }
  // one matcher per text, reused while the same text is searched
  let current: { readonly text: string; readonly matcher: ReturnType<RE2JS["matcher"]> } | undefined
  return Result.succeed({
    needle: undefined,
    prefilter: { kind: "re2", pattern, flags },
    next: (text, from) => {
      if (current?.text !== text) current = { text, matcher: re.matcher(text) }
      return from <= text.length && current.matcher.find(from) ? current.matcher.start() : -1
    },
    end: () => current?.matcher.end() ?? 0
  })
}

/** A matching line as shown: without its `\r`, and around the match when it is long. */
const lineText = (line: string, matcher: Matcher): string => {
  const text = line.endsWith("\r") ? line.slice(0, -1) : line
  return text.length <= MATCH_LINE_CHARS ? text : around(text, Math.max(0, matcher.next(text, 0)), MATCH_LINE_CHARS)
}

/** Bytes of UTF-8 a shown line is decoded from on each side of its match: enough for `MATCH_LINE_CHARS` characters. */
const SHOWN_BYTES = 4 * MATCH_LINE_CHARS

/** Whether `byte` continues a UTF-8 character (a cut there would split it). */
const continues = (byte: number | undefined): boolean => byte !== undefined && (byte & 0xc0) === 0x80

/**
 * The line `bytes[start, end)` with a match at `at`, as shown: a long line is decoded only
 * around its match (cut on whole characters), never whole.
 */
const bytesLineText = (bytes: Buffer, start: number, end: number, at: number, matcher: Matcher): string => {
  if (end - start <= SHOWN_BYTES) return lineText(decodeUtf8(bytes.subarray(start, end)), matcher)
  let from = Math.max(start, at - SHOWN_BYTES)
  while (from > start && continues(bytes[from])) from--
  let to = Math.min(end, at + SHOWN_BYTES)
  while (to < end && continues(bytes[to])) to++
  const before = decodeUtf8(bytes.subarray(from, at))
  const shown = around(decodeUtf8(bytes.subarray(from, to)).replace(/\r$/, ""), before.length, MATCH_LINE_CHARS)
  // the window's own ends are not the line's
  return `${from > start && !shown.startsWith("…") ? "…" : ""}${shown}${to < end && !shown.endsWith("…") ? "…" : ""}`
}

/** Matches in raw bytes (a case-sensitive literal). */
const searchBytes = (bytes: Buffer, needle: Buffer, firstLine: number, matcher: Matcher, limit: number, hits: Array<Hit>) => {
  let line = firstLine
  let counted = 0
  let at = bytes.indexOf(needle)
  while (at !== -1 && hits.length < limit) {
    // the line breaks before the match (`counted` is past the last hit's line, set below)
    for (let nl = bytes.indexOf(NEWLINE, counted); nl !== -1 && nl < at; nl = bytes.indexOf(NEWLINE, nl + 1)) line++
    const start = at === 0 ? 0 : bytes.lastIndexOf(NEWLINE, at - 1) + 1
    const nl = bytes.indexOf(NEWLINE, at)
    const end = nl === -1 ? bytes.length : nl
    hits.push({ line, text: bytesLineText(bytes, start, end, at, matcher) })
    if (nl === -1) return
    line++
    counted = nl + 1
    at = bytes.indexOf(needle, counted)
  }
}

/** Matches in decoded text. */
const searchText = (text: string, firstLine: number, matcher: Matcher, limit: number, hits: Array<Hit>) => {
  let line = firstLine
  let counted = 0
  let from = 0
  while (hits.length < limit) {
    const at = matcher.next(text, from)
    // an empty match after the last line ending is not on a line
    if (at === -1 || (at === text.length && (text.length === 0 || text.endsWith("\n")))) return
    for (let nl = text.indexOf("\n", counted); nl !== -1 && nl < at; nl = text.indexOf("\n", nl + 1)) line++
    const start = at === 0 ? 0 : text.lastIndexOf("\n", at - 1) + 1
    const nl = text.indexOf("\n", at)
    const shown = text.slice(start, nl === -1 ? text.length : nl)
    // a match past the line's end (an expression can match a line break) counts when the line alone matches
    if (
      matcher.end === undefined ||
      // shortcuts: a match in the last line, or one that ends by its line's break, is one the line alone has
      // (checked below, slower)
      nl === -1 || matcher.end() <= nl ||
      matcher.next(shown, 0) !== -1
    ) hits.push({ line, text: lineText(shown, matcher) })
    if (nl === -1) return
    line++
    counted = nl + 1
    from = nl + 1
  }
}

/**
 * Adds the matching lines of `bytes` (whole lines of a file, the first being line `firstLine`)
 * to `hits`, until it holds `limit`.
 */
export const searchRegion = (bytes: Buffer, firstLine: number, matcher: Matcher, limit: number, hits: Array<Hit>): void =>
  matcher.needle !== undefined
    ? searchBytes(bytes, matcher.needle, firstLine, matcher, limit, hits)
    : searchText(decodeUtf8(bytes), firstLine, matcher, limit, hits)
