/**
 * `compileMatcher` and `searchRegion` (`reading/searchMatch.ts`) as pure functions, for the
 * three kinds of matcher (a case-sensitive literal in raw bytes, a case-insensitive literal,
 * an RE2 expression): one hit per matching line with its number counted from `firstLine`, the
 * `\r` of a CRLF line dropped, a long line shown around its match, the limit, and the empty
 * match after a last line ending that is on no line.
 *
 * On Effect 4 a refusal is a `Result` failure (tag "Failure", Effect 3's `Either` "Left").
 */
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { compileMatcher, type Hit, MATCH_LINE_CHARS, searchRegion } from "../../../../src/tools/ported/reading/searchMatch.js"

const KINDS = [
  { label: "literal, case-sensitive", regex: false, caseSensitive: true },
  { label: "literal, any case", regex: false, caseSensitive: false },
  { label: "RE2", regex: true, caseSensitive: true }
] as const

const hitsOf = (
  pattern: string,
  text: string,
  options: { readonly regex: boolean; readonly caseSensitive: boolean },
  { firstLine = 1, limit = 100 }: { readonly firstLine?: number; readonly limit?: number } = {}
): ReadonlyArray<Hit> => {
  const matcher = Result.getOrThrow(compileMatcher(pattern, options))
  const hits: Array<Hit> = []
  searchRegion(Buffer.from(text, "utf8"), firstLine, matcher, limit, hits)
  return hits
}

describe("searchRegion", () => {
  for (const kind of KINDS) {
    it(`${kind.label}: one hit per matching line, numbered from firstLine, CR dropped, up to the limit`, () => {
      const text = "alpha\r\nbeta needle needle\nneedle\n\ngamma\nlast needle"
      expect(hitsOf("needle", text, kind, { firstLine: 10 })).toEqual([
        { line: 11, text: "beta needle needle" },
        { line: 12, text: "needle" },
        { line: 15, text: "last needle" }
      ])
      expect(hitsOf("needle", text, kind, { limit: 2 })).toEqual([
        { line: 2, text: "beta needle needle" },
        { line: 3, text: "needle" }
      ])
      expect(hitsOf("needle", "needle at the start\r\n", kind)).toEqual([{ line: 1, text: "needle at the start" }])
      expect(hitsOf("absent", text, kind)).toEqual([])
      // a one-character match right before a line ending: its line starts after the previous ending
      expect(hitsOf("x", "ab\nx\nc", kind)).toEqual([{ line: 2, text: "x" }])
      // a non-ASCII line: the hit is whole characters
      expect(hitsOf("needle", "été\n😀 needle ü\n", kind)).toEqual([{ line: 2, text: "😀 needle ü" }])
    })

    it(`${kind.label}: a long line is shown around its match, at most ${MATCH_LINE_CHARS} characters`, () => {
      const line = `${"x".repeat(1000)}needle${"y".repeat(1000)}`
      const [hit] = hitsOf("needle", `${line}\n`, kind)
      expect(hit?.line).toBe(1)
      expect(hit?.text.startsWith("…")).toBe(true)
      expect(hit?.text.endsWith("…")).toBe(true)
      expect(hit?.text).toContain("needle")
      expect(hit?.text.length).toBe(MATCH_LINE_CHARS + 2)
      const exactly = "n".repeat(MATCH_LINE_CHARS - 6) + "needle"
      expect(hitsOf("needle", exactly, kind)).toEqual([{ line: 1, text: exactly }])
    })
  }

  it("a literal with a line break is refused: a match is within one line", () => {
    for (const caseSensitive of [true, false]) {
      for (const pattern of ["abc\ndef", "abc\r\ndef", "\n", "x\r"]) {
        const compiled = compileMatcher(pattern, { regex: false, caseSensitive })
        expect(Result.isFailure(compiled) ? compiled.failure : "compiled").toBe(
          "the pattern holds a line break, and search_files matches within one line: search for one line of it"
        )
      }
    }
  })

  it("RE2: a match that runs past its line's end counts only when the line alone has a match", () => {
    const options = { regex: true, caseSensitive: true }
    // \s, a negated class and an explicit \n can match the line break: such a match is on no line
    expect(hitsOf("abc\\sdef", "abc\ndef\nabc def\n", options)).toEqual([{ line: 3, text: "abc def" }])
    expect(hitsOf("c[^x]d", "abc\ndef\n", options)).toEqual([])
    expect(hitsOf("c\\nd", "abc\ndef\n", options)).toEqual([])
    // also when the line is one character long (its break at index 1)
    expect(hitsOf("c\\nd", "c\ndef\n", options)).toEqual([])
    expect(hitsOf("(?i)C\\s+D", "abC\n\nDef\nc d\n", options)).toEqual([{ line: 4, text: "c d" }])
    // the line of a match that runs on is still a hit when a shorter match fits in it
    expect(hitsOf("a\\s*", "xa\n\nb\n", options)).toEqual([{ line: 1, text: "xa" }])
    expect(hitsOf("[a-z]+\\s?", "one\ntwo\n", options)).toEqual([
      { line: 1, text: "one" },
      { line: 2, text: "two" }
    ])
    // a match that starts at a line break is tried on its line and, from the next line on, again
    expect(hitsOf("\\sdef", "abc\ndef\nx def\n", options)).toEqual([{ line: 3, text: "x def" }])
    // blank lines: the first match runs over the first blank line's break, and that empty line alone matches
    expect(hitsOf("^\\s*$", "a\n\n\nb\n", options)).toEqual([{ line: 2, text: "" }, { line: 3, text: "" }])
  })

  it("any case: the literal's special characters are literal, and case is ignored in both directions", () => {
    const options = { regex: false, caseSensitive: false }
    expect(hitsOf("a.b*(c)", "a.b*(c)\naxbbbc\nA.B*(C)\n", options)).toEqual([
      { line: 1, text: "a.b*(c)" },
      { line: 3, text: "A.B*(C)" }
    ])
    expect(hitsOf("ÉTÉ", "un été\n", options)).toEqual([{ line: 1, text: "un été" }])
    expect(hitsOf("Needle", "needle\n", { regex: false, caseSensitive: true })).toEqual([])
  })

  it("RE2: ^ and $ at line boundaries, case-insensitive on request; an empty match after the last newline is on no line", () => {
    expect(hitsOf("^b", "ab\nbc\n", { regex: true, caseSensitive: true })).toEqual([{ line: 2, text: "bc" }])
    expect(hitsOf("b$", "ab\nbc\n", { regex: true, caseSensitive: true })).toEqual([{ line: 1, text: "ab" }])
    expect(hitsOf("^", "one\ntwo\n", { regex: true, caseSensitive: true })).toEqual([
      { line: 1, text: "one" },
      { line: 2, text: "two" }
    ])
    expect(hitsOf("^", "one\ntwo", { regex: true, caseSensitive: true })).toHaveLength(2)
    // an empty match at the end of a last line without a line ending is on that line
    expect(hitsOf("$", "one\ntwo", { regex: true, caseSensitive: true })).toEqual([
      { line: 1, text: "one" },
      { line: 2, text: "two" }
    ])
    expect(hitsOf("^", "", { regex: true, caseSensitive: true })).toEqual([])
    expect(hitsOf("NE+DLE", "neeedle\n", { regex: true, caseSensitive: false })).toEqual([{ line: 1, text: "neeedle" }])
    expect(hitsOf("NE+DLE", "neeedle\n", { regex: true, caseSensitive: true })).toEqual([])
  })
})

describe("compileMatcher", () => {
  it("refuses an expression RE2 cannot run, saying what RE2 lacks; carries each kind's prefilter", () => {
    expect(compileMatcher("(?=x)", { regex: true, caseSensitive: true })).toEqual(
      Result.fail(expect.stringMatching(/^invalid regular expression "\(\?=x\)": .+ \(RE2 syntax: no look-around or back-references\)$/))
    )
    expect(compileMatcher("(a", { regex: true, caseSensitive: true })._tag).toBe("Failure")
    const bytes = Result.getOrThrow(compileMatcher("é", { regex: false, caseSensitive: true }))
    expect(bytes.prefilter).toEqual({ kind: "bytes", needle: Buffer.from("é") })
    expect(bytes.needle).toEqual(Buffer.from("é"))
    const literal = Result.getOrThrow(compileMatcher("a+b", { regex: false, caseSensitive: false }))
    expect(literal.prefilter).toEqual({ kind: "literal", source: "a\\+b", flags: "giu" })
    expect(literal.needle).toBeUndefined()
    const re2 = Result.getOrThrow(compileMatcher("a+b", { regex: true, caseSensitive: false }))
    expect(re2.prefilter).toMatchObject({ kind: "re2", pattern: "a+b" })
    // next: from an offset, and -1 past the end
    expect(re2.next("xxab", 0)).toBe(2)
    expect(re2.next("xxab", 3)).toBe(-1)
    expect(re2.next("ab", 5)).toBe(-1)
    expect(literal.next("A+B a+b", 1)).toBe(4)
  })
})
