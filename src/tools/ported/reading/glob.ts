/**
 * Glob patterns for the walking tools, parsed by picomatch and matched without backtracking
 * blow-ups. picomatch turns a glob into a JavaScript regular expression, and V8 matches those
 * by backtracking: `*a*a*a*a*a*b` takes seconds on one 100-character name, and a workspace
 * (a cloned repository) chooses its names. So the expression picomatch makes is compiled by
 * re2js (linear time) as well: when it has at most one unbounded repetition, V8's regular
 * expression (fast, and linear for such an expression) matches; otherwise re2js does.
 *
 * picomatch's look-aheads only keep `*` from matching the `.` and `..` segments, and `**` from
 * matching an empty path; the paths a walk matches never have such segments and are never
 * empty, so they are dropped (RE2 has no look-around). A glob that needs one to mean what it
 * says (a negated extglob, `!(x)`) is refused with a clear error.
 *
 * A pattern without a `/` is matched against an entry's name; with one, against its path
 * below the walked directory (picomatch's `basename` option). Hidden names match (`dot`).
 *
 * @since 0.1.0
 */
import * as Result from "effect/Result"
import picomatch from "picomatch"
import { RE2JS } from "re2js"

/** The look-aheads picomatch adds (with `dot: true`) that a walk's paths make redundant. */
const REDUNDANT_LOOKAHEADS = ["(?!(?:^|\\/)\\.{1,2}(?:\\/|$))", "(?!\\.{1,2}(?:\\/|$))", "(?=.)"]

/** What picomatch makes of `*` and of `**` (its look-aheads dropped): one character class, repeated. */
const SIMPLE_REPETITIONS = ["[^/]*?", "(?:.)*?"]

/** Unbounded repetitions (`*`, `+`, `{n,}`) outside character classes and escapes. */
const unboundedRepetitions = (source: string): number => {
  let count = 0
  let inClass = false
  for (let i = 0; i < source.length; i++) {
    const c = source[i]
    if (c === "\\") i++
    else if (inClass) inClass = c !== "]"
    else if (c === "[") inClass = true
    else if (c === "*" || c === "+") count++
    else if (c === "{" && /^\{\d*,\}/.test(source.slice(i, i + 12))) count++
  }
  return count
}

/**
 * Whether V8 matches picomatch's expression `source` in linear time: it has at most one simple
 * repetition (what `*` or `**` becomes) and no other unbounded one, so no backtracking blow-up
 * is possible. Otherwise re2js matches it.
 */
export const isLinearForV8 = (source: string): boolean => {
  let simple = 0
  let rest = source
  for (const repetition of SIMPLE_REPETITIONS) {
    const parts = rest.split(repetition)
    simple += parts.length - 1
    rest = parts.join("")
  }
  return simple <= 1 && unboundedRepetitions(rest) === 0
}

/** `source` as a V8 expression with the `u` flag, or undefined when it is not valid with it (re2js then matches). */
const unicodeRegExp = (source: string): RegExp | undefined => {
  try {
    return new RegExp(source, "u")
  } catch {
    return undefined
  }
}

/**
 * A compiled glob: whether a walked entry matches, given its name and the path below the walked
 * directory of the directory that holds it (`""` for the walked directory itself); the entry's
 * own path is built only for a glob that needs it.
 */
export type GlobMatcher = (name: string, dirRel: string) => boolean

/** Compiles a glob, or says why it cannot be used. */
export const compileGlob = (pattern: string): Result.Result<GlobMatcher, string> => {
  let source: string
  try {
    source = picomatch.makeRe(pattern, { dot: true }).source
  } catch (error) {
    return Result.fail(`the glob "${pattern}" is not valid: ${error instanceof Error ? error.message : String(error)}`)
  }
  for (const lookahead of REDUNDANT_LOOKAHEADS) source = source.split(lookahead).join("")
  let re2: RE2JS
  try {
    re2 = RE2JS.compile(source)
  } catch {
    return Result.fail(`the glob "${pattern}" uses a feature that is not supported here (a negated extglob such as "!(x)"); ` +
      "use a simpler pattern")
  }
  // with the `u` flag, as re2js: `?` and a class match one character, an emoji's two UTF-16 units too
  // (which of the two runs is not behaviour: re2js matches as V8 does, tested with both, only slower)
  const v8 = isLinearForV8(source) ? unicodeRegExp(source) : undefined
  const test: (s: string) => boolean = v8 !== undefined ? (s) => v8.test(s) : (s) => re2.test(s)
  return Result.succeed(
    pattern.includes("/") ? (name, dirRel) => test(dirRel === "" ? name : `${dirRel}/${name}`) : (name) => test(name)
  )
}
