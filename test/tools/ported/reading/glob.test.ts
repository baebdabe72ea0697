import { describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { compileGlob, type GlobMatcher, isLinearForV8 } from "../../../../src/tools/ported/reading/glob.js"

const compiled = (pattern: string): GlobMatcher => {
  const glob = compileGlob(pattern)
  if (Result.isFailure(glob)) throw new Error(`expected "${pattern}" to compile: ${glob.failure}`)
  return glob.success
}

/** Asserts that `pattern` does not match `name` and says so within `ms`. */
const fastMiss = (pattern: string, name: string, ms = 2000) => {
  const matches = compiled(pattern)
  const start = Date.now()
  expect(matches(name, ""), pattern).toBe(false)
  expect(Date.now() - start, pattern).toBeLessThan(ms)
}

describe("compileGlob", () => {
  it.effect("? and a class match one character, an emoji (two UTF-16 units) too, whatever the pattern's repetitions", () =>
    Effect.sync(() => {
      // none, one and two repetitions: V8's expression for the first two, re2js for the last
      for (const pattern of ["a?b.txt", "a?b*.txt", "*a?b*.txt", "a[🙂]b.txt", "a[^x]b*.txt"]) {
        expect(compiled(pattern)("a🙂b.txt", ""), pattern).toBe(true)
        expect(compiled(pattern)("a🙂🙂b.txt", ""), pattern).toBe(false)
      }
      expect(compiled("???")("é🙂x", "")).toBe(true)
      expect(compiled("????")("é🙂x", "")).toBe(false)
    }))

  it.effect("without a slash the name is matched, with one the path below the walked directory", () =>
    Effect.sync(() => {
      const byName = compiled("*.ts")
      expect(byName("a.ts", "")).toBe(true)
      expect(byName("a.ts", "src/deep")).toBe(true)
      expect(byName("a.md", "src")).toBe(false)
      const byPath = compiled("src/*.ts")
      expect(byPath("a.ts", "src")).toBe(true)
      expect(byPath("a.ts", "")).toBe(false)
      expect(byPath("a.ts", "lib")).toBe(false)
      expect(byPath("a.ts", "src/deep")).toBe(false)
      const top = compiled("*/a.ts")
      expect(top("a.ts", "")).toBe(false)
      expect(top("a.ts", "x")).toBe(true)
    }))

  it.effect("globs with several repetitions, classes and escapes match as they say", () =>
    Effect.sync(() => {
      const cases: ReadonlyArray<readonly [string, string, boolean]> = [
        ["*a*b*", "xaybz", true],
        ["*a*b*", "xbya", false],
        ["[x]*(*)b", "xaab", true],
        ["[x]*(*)b", "yaab", false],
        ["\\[*(*)b", "[aab", true],
        ["\\[*(*)b", "aab", false],
        ["+(*)b", "aab", true],
        ["+(*)b", "aac", false],
        ["+(*(a)a)b", "aaab", true],
        ["+(*(a)a)b", "aaxb", false],
        ["[ab]?*.txt", "bq.txt", true],
        ["[ab]?*.txt", "cq.txt", false]
      ]
      for (const [pattern, name, expected] of cases) expect(compiled(pattern)(name, ""), `${pattern} ${name}`).toBe(expected)
    }))

  it.effect("globs that backtrack catastrophically in a JavaScript regex are matched in linear time", () =>
    Effect.sync(() => {
      const as = "a".repeat(60)
      // a repetition of a repetition, as a "*" or a "+" extglob
      fastMiss("*(*)b", as)
      fastMiss("+(*)b", as)
      fastMiss("+(*(a)a)b", as)
      // the same after an escaped bracket and after a character class
      fastMiss("\\[*(*)b", `[${as}`)
      fastMiss("[x]*(*)b", `x${as}`)
    }))

  it.effect("a pattern picomatch refuses, and one that needs a look-around, are explained", () =>
    Effect.sync(() => {
      const long = "a".repeat(70_000)
      const refused = compileGlob(long)
      expect(Result.isFailure(refused)).toBe(true)
      if (Result.isFailure(refused)) {
        expect(refused.failure).toBe(`the glob "${long}" is not valid: Input length: 70000, exceeds maximum allowed length: 65536`)
      }
      expect(compileGlob("!(x)")).toEqual(Result.fail(
        "the glob \"!(x)\" uses a feature that is not supported here (a negated extglob such as \"!(x)\"); " +
          "use a simpler pattern"
      ))
    }))
})

describe("isLinearForV8", () => {
  it("takes V8's engine for one simple repetition and nothing else unbounded, re2js otherwise", () => {
    const cases: ReadonlyArray<readonly [string, boolean]> = [
      // what "*.ts" and "a?b" become
      [String.raw`^(?:[^/]*?\.ts\/?)$`, true],
      [String.raw`^(?:a.b)$`, true],
      // two simple repetitions ("*a*b", "**/*.ts")
      [String.raw`^(?:[^/]*?a[^/]*?b)$`, false],
      [String.raw`^(?:(?:.)*?\/[^/]*?\.ts)$`, false],
      // one simple repetition and another unbounded one
      [String.raw`^(?:[^/]*?a+)$`, false],
      [String.raw`^(?:[^/]*?a{2,})$`, false],
      // "*", "+" and "{n,}" inside a class or escaped repeat nothing
      [String.raw`^(?:[*+]x[^/]*?)$`, true],
      [String.raw`^(?:[a-z+]+)$`, false],
      [String.raw`^(?:\*x\+[^/]*?)$`, true],
      // bounded repetitions, and unbounded ones of each kind, even mixed
      [String.raw`^(?:a{2,3}b{4})$`, true],
      // a bounded repetition followed closely by "{n,}" in a class: neither is unbounded
      [String.raw`^(?:a{2}[{3,}])$`, true],
      [String.raw`^(?:a{12,})$`, false],
      [String.raw`^(?:a{,})$`, false],
      [String.raw`^(?:a+b{2,})$`, false],
      [String.raw`^(?:a*)$`, false]
    ]
    for (const [source, linear] of cases) expect(isLinearForV8(source), source).toBe(linear)
  })
})
