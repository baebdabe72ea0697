/**
 * `regex_extract`: the matches of a regular expression in a text, with their groups, run by
 * `re2js` (RE2's engine: time linear in the text, whatever the pattern), so a catastrophic
 * pattern like `(a+)+$` cannot hang the process.
 *
 * The pattern is JavaScript syntax, translated by `RE2JS.translateRegExp` (named groups
 * `(?<n>...)`, `\u{...}`, `[^]`). RE2 has no lookahead (`(?=`, `(?!`) and no backreferences
 * (`\1`, `\k<name>`): those are refused with a message that says so, before translation
 * (which would otherwise read `\k<n>` as the letter `k`). Lookbehind without capturing groups
 * (`(?<=`, `(?<!`) is supported (`RE2JS.LOOKBEHINDS`). Also unlike JavaScript: `\s` is ASCII
 * white space only, and `.` matches `\r`.
 *
 * The pattern is checked and compiled here (a clear error at once); the search itself runs in
 * a worker thread with a deadline (`regexWorker.ts`): linear time still has a large constant for
 * some patterns, and 32 Mi characters of text would otherwise block the process for minutes.
 * The text goes to the worker through shared memory, copied in slices, and the lines of the
 * matches are counted here in slices, so that the call never holds the event loop.
 *
 * @since 0.1.0
 */
import * as Arr from "effect/Array"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { RE2JS } from "re2js"
import { ToolError } from "../../../domain/errors.js"
import { make } from "../../defineBuiltin.js"
import { capOutput, headOf } from "../../shared/outputCap.js"
import { inSlices } from "../../shared/slices.js"
import { type RawGroup, REGEX_DEADLINE, searchInWorker } from "./regexWorker.js"

const TOOL = "regex_extract"

/** Longest pattern accepted. */
export const REGEX_MAX_PATTERN_CHARS = 10_000
/** Most matches one call returns. */
export const REGEX_MAX_MATCHES = 1000
/** A match or group longer than this many characters is cut. */
export const REGEX_MATCH_MAX_CHARS = 200
/** Groups shown per match (the rest are counted). */
export const REGEX_GROUPS_SHOWN = 20

const fail = (message: string, cause?: unknown) => new ToolError({ tool: TOOL, message, cause })

/** The RE2 flags of JavaScript flags (`g` and `u` change nothing here), or the flag refused. */
const flagsOf = (flags: string): number | string => {
  let out = RE2JS.LOOKBEHINDS
  for (const f of flags) {
    if (f === "i") out |= RE2JS.CASE_INSENSITIVE
    else if (f === "m") out |= RE2JS.MULTILINE
    else if (f === "s") out |= RE2JS.DOTALL
    else if (f !== "g" && f !== "u") {
      return f === "y" || f === "d" || f === "v"
        ? `the flag "${f}" is not supported (use i, m, s; g and u are accepted and change nothing: ` +
          "every match is returned, always in Unicode)"
        : `unknown flag ${JSON.stringify(f)} (use i, m, s, g, u)`
    }
  }
  return out
}

/**
 * The RE2-unsupported construct in `pattern`, if any: lookahead or a backreference, outside
 * character classes and escapes. Linear.
 */
export const unsupportedFeature = (pattern: string): string | undefined => {
  let inClass = false
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]
    if (c === "\\") {
      const next = pattern[i + 1] ?? ""
      if (!inClass && /[1-9]/.test(next)) return `a backreference (\\${next})`
      if (!inClass && next === "k" && pattern[i + 2] === "<") return "a named backreference (\\k<name>)"
      i++
    } else if (inClass) {
      if (c === "]") inClass = false
    } else if (c === "[") {
      // `[]` (matches nothing) and `[^]` (any character) are whole classes in JavaScript, as
      // RE2JS.translateRegExp reads them: their `]` ends the class here too, so what follows is
      // outside any class
      inClass = true
    } else if (c === "(" && pattern[i + 1] === "?" && (pattern[i + 2] === "=" || pattern[i + 2] === "!")) {
      return `a lookahead ((?${pattern[i + 2]})`
    }
  }
  return undefined
}

/** The compiled pattern, its RE2 form and flags, or why it is refused. */
const compile = (pattern: string, flags: string): Effect.Effect<{ re: RE2JS; source: string; flags: number }, ToolError> =>
  Effect.suspend(() => {
    const re2Flags = flagsOf(flags)
    if (typeof re2Flags === "string") return Effect.fail(fail(re2Flags))
    const unsupported = unsupportedFeature(pattern)
    if (unsupported !== undefined) {
      return Effect.fail(fail(
        `the pattern uses ${unsupported}, which the linear-time engine (RE2) does not support; ` +
          "rewrite it without lookahead or backreferences (e.g. match more and keep a capturing group)"
      ))
    }
    return Effect.try({
      try: () => {
        const source = RE2JS.translateRegExp(pattern)
        return { re: RE2JS.compile(source, re2Flags), source, flags: re2Flags }
      },
      catch: (cause) =>
        fail(`invalid pattern: ${headOf(cause instanceof Error ? cause.message : String(cause), 300)}`, cause)
    })
  })

/** A group as shown: quoted on one line, cut at `REGEX_MATCH_MAX_CHARS` with its length. */
const shown = (g: RawGroup | undefined): string =>
  g === undefined || g === null
    ? "(no match)"
    : g[1] > REGEX_MATCH_MAX_CHARS
    ? `${JSON.stringify(headOf(g[0], REGEX_MATCH_MAX_CHARS))}… (${g[1]} characters)`
    : JSON.stringify(g[0])

/** Code units looked at per step of `linesOf` (well under a millisecond). */
const LINE_STEP_CHARS = 64 * 1024

/**
 * The line (from 1) of each index (in order) and where that line starts, counting the LFs
 * before it in slices: a match near the end of 30 Mi characters is 30 Mi characters to look at.
 */
const linesOf = (
  text: string,
  indexes: ReadonlyArray<number>
): Effect.Effect<ReadonlyArray<readonly [line: number, lineStart: number]>> =>
  Effect.suspend(() => {
    const places: Array<readonly [number, number]> = []
    const pending = indexes[Symbol.iterator]()
    let index = pending.next()
    let line = 1
    let lineStart = 0
    let scanned = 0
    return inSlices(() => {
      for (; !index.done && index.value <= scanned; index = pending.next()) places.push([line, lineStart])
      if (index.done) return true
      const end = Math.min(index.value, scanned + LINE_STEP_CHARS)
      for (; scanned < end; scanned++) {
        if (text.charCodeAt(scanned) === 0x0a) {
          line++
          lineStart = scanned + 1
        }
      }
      return false
    }).pipe(Effect.as(places))
  })

/** What `makeRegexExtract` takes. */
export interface RegexExtractOptions {
  /** How long a search may run in its worker before it is stopped. Default `REGEX_DEADLINE` (20 s). */
  readonly deadline?: Duration.Input
}

/** Builds the `regex_extract` tool (tests use a short deadline). */
export const makeRegexExtract = (options: RegexExtractOptions = {}) => {
  const deadline = options.deadline ?? REGEX_DEADLINE
  return make(TOOL, {
    description: "Find the matches of a regular expression (JavaScript syntax) in a text, with line, column and " +
      "capturing groups. Runs on a linear-time engine (RE2), so no pattern can hang; it has no lookahead ((?= (?!) " +
      "and no backreferences (\\1, \\k<name>), lookbehind only without capturing groups, and \\s is ASCII white space. " +
      `Flags: i (ignore case), m (^ and $ at line breaks), s (. matches line breaks). At most ${REGEX_MAX_MATCHES} matches; ` +
      `matches are shown cut at ${REGEX_MATCH_MAX_CHARS} characters; a search still running after ` +
      `${Duration.toSeconds(Duration.fromInputUnsafe(deadline))} s is stopped.`,
    parameters: Schema.Struct({
      text: Schema.String.annotate({ description: "The text to search" }),
      pattern: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(REGEX_MAX_PATTERN_CHARS)).annotate({
        description: "The regular expression, without slashes or quotes, e.g. (?<user>\\w+)@(\\w+)\\.com"
      }),
      flags: Schema.optional(
        Schema.String.check(Schema.isMaxLength(10)).annotate({ description: "Flags, any of \"i\", \"m\", \"s\" (e.g. \"im\")" })
      ),
      max_matches: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: REGEX_MAX_MATCHES })).annotate({
        description: "Most matches to return"
      }).pipe(Schema.withDecodingDefaultType(Effect.succeed(100)))
    }),
    readOnly: true,
    tags: ["text", "ported"],
    timeout: "30 seconds",
    handler: ({ flags, max_matches, pattern, text }) =>
      Effect.gen(function*() {
        const compiled = yield* compile(pattern, flags ?? "")
        const { matches, next } = yield* searchInWorker({
          pattern: compiled.source,
          flags: compiled.flags,
          text,
          max: max_matches,
          groups: REGEX_GROUPS_SHOWN + 1,
          chars: REGEX_MATCH_MAX_CHARS
        }, deadline).pipe(
          Effect.mapError((error) =>
            fail(
              error.reason === "error"
                ? error.message
                : `${error.message} on ${text.length} characters of text; search a shorter text or simplify the pattern`,
              error
            )
          )
        )
        const groupCount = compiled.re.groupCount()
        const names = new Map(Object.entries(compiled.re.namedGroups()).map(([name, index]) => [index, name]))
        const lines: Array<string> = []
        const places = yield* linesOf(text, matches.map(([index]) => index))
        Arr.zip(matches, places).forEach(([[index, groups], [line, lineStart]], k) => {
          lines.push(`${k + 1}. line ${line}, column ${index - lineStart + 1} (index ${index}): ${shown(groups[0])}`)
          if (groupCount > 0) {
            const listed = groups.slice(1).map((g, i) => `${i + 1}${names.has(i + 1) ? ` (${names.get(i + 1)})` : ""}=${shown(g)}`)
            const more = groupCount > REGEX_GROUPS_SHOWN ? `, and ${groupCount - REGEX_GROUPS_SHOWN} more groups` : ""
            lines.push(`   groups: ${listed.join(", ")}${more}`)
          }
        })
        const count = matches.length
        const head = count === 0
          ? "no matches"
          : next === null
          ? `${count} match${count === 1 ? "" : "es"}:`
          : `the first ${count} matches (more follow, the next at index ${next}: raise max_matches, at most ` +
            `${REGEX_MAX_MATCHES}, or search the text from index ${next} on):`
        return capOutput([head, ...lines].join("\n"), { atLine: true, rest: "lower max_matches or narrow the pattern" })
      })
  })
}

/** The `regex_extract` tool: searches stopped after `REGEX_DEADLINE`. */
export const regexExtract = makeRegexExtract()
