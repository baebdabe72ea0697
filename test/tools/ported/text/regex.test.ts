import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import * as Fs from "node:fs"
import { makeRegexExtract, unsupportedFeature } from "../../../../src/tools/ported/text/regexExtract.js"
import { searchInWorker } from "../../../../src/tools/ported/text/regexWorker.js"
import { textTools } from "../../../../src/tools/ported/text/index.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"
import { OUTPUT_MAX_CHARS } from "../../../../src/tools/shared/outputCap.js"
import { runner, underMutationTesting } from "../../../helpers/portedRunner.js"
import { countingSleeps, joinUnmoved, sleepersUntil } from "../../../helpers/testClock.js"

const ws = makeTempDirSync("ported-regex-")
const run = runner(textTools, () => ws)

afterAll(() => {
  Fs.rmSync(ws, { recursive: true, force: true })
})

const extract = (args: Record<string, unknown>) => run("regex_extract", args)

describe("regex_extract", () => {
  it.effect("matches with line, column, numbered and named groups", () =>
    Effect.gen(function*() {
      const r = yield* extract({ text: "mail bob@example.com\nand eve@test.org", pattern: "(?<user>\\w+)@(\\w+)\\.(com|org)" })
      expect(r.output).toBe([
        "2 matches:",
        "1. line 1, column 6 (index 5): \"bob@example.com\"",
        "   groups: 1 (user)=\"bob\", 2=\"example\", 3=\"com\"",
        "2. line 2, column 5 (index 25): \"eve@test.org\"",
        "   groups: 1 (user)=\"eve\", 2=\"test\", 3=\"org\""
      ].join("\n"))
      expect((yield* extract({ text: "abc", pattern: "x" })).output).toBe("no matches")
      expect((yield* extract({ text: "", pattern: "x" })).output).toBe("no matches")
      expect((yield* extract({ text: "ab", pattern: "(x)?b" })).output).toBe(
        "1 match:\n1. line 1, column 2 (index 1): \"b\"\n   groups: 1=(no match)"
      )
    }))

  it.effect("flags i, m, s; g and u accepted; y, d and unknown flags refused", () =>
    Effect.gen(function*() {
      expect((yield* extract({ text: "A a", pattern: "a", flags: "gi" })).output).toContain("2 matches")
      expect((yield* extract({ text: "x1\nx2", pattern: "^x\\d$", flags: "m" })).output).toContain("2 matches")
      expect((yield* extract({ text: "x1\nx2", pattern: "^x\\d$" })).output).toBe("no matches")
      expect((yield* extract({ text: "a\nb", pattern: "a.b", flags: "su" })).output).toContain("1 match")
      for (const flag of ["y", "d", "v"]) {
        expect((yield* extract({ text: "a", pattern: "a", flags: `i${flag}` })).error).toBe(
          `the flag "${flag}" is not supported (use i, m, s; g and u are accepted and change nothing: ` +
            "every match is returned, always in Unicode)"
        )
      }
      expect((yield* extract({ text: "a", pattern: "a", flags: "q" })).error).toBe("unknown flag \"q\" (use i, m, s, g, u)")
    }))

  it.effect("unicode: indices and columns in UTF-16 units, \\u{...} and \\p{...} work", () =>
    Effect.gen(function*() {
      expect((yield* extract({ text: "😀 東京", pattern: "\\p{Han}+" })).output).toBe("1 match:\n1. line 1, column 4 (index 3): \"東京\"")
      expect((yield* extract({ text: "x😀", pattern: "\\u{1F600}" })).output).toContain("(index 1): \"😀\"")
      expect((yield* extract({ text: "a\r\nb", pattern: "b" })).output).toContain("line 2, column 1 (index 3)")
    }))

  it.effect("lookahead and backreferences are refused with a clear reason; lookbehind works", () =>
    Effect.gen(function*() {
      const reason = (what: string) =>
        `the pattern uses ${what}, which the linear-time engine (RE2) does not support; ` +
        "rewrite it without lookahead or backreferences (e.g. match more and keep a capturing group)"
      expect((yield* extract({ text: "aa", pattern: "(a)\\1" })).error).toBe(reason("a backreference (\\1)"))
      expect((yield* extract({ text: "aa", pattern: "(?<x>a)\\k<x>" })).error).toBe(reason("a named backreference (\\k<name>)"))
      expect((yield* extract({ text: "ab", pattern: "a(?=b)" })).error).toBe(reason("a lookahead ((?=)"))
      expect((yield* extract({ text: "ab", pattern: "a(?!c)" })).error).toBe(reason("a lookahead ((?!)"))
      expect((yield* extract({ text: "price: $5, €7", pattern: "(?<=\\$)\\d" })).output).toBe(
        "1 match:\n1. line 1, column 9 (index 8): \"5\""
      )
      expect((yield* extract({ text: "ab", pattern: "(?<=(a))b" })).error).toContain("invalid pattern")
    }))

  it.effect("invalid patterns are clear errors", () =>
    Effect.gen(function*() {
      expect((yield* extract({ text: "a", pattern: "[a" })).error).toBe("invalid pattern: error parsing regexp: missing closing ]: `[a`")
      expect((yield* extract({ text: "a", pattern: "a**" })).error).toContain("invalid nested repetition operator")
      expect((yield* extract({ text: "a", pattern: "(a{1000}){1000}" })).error).toContain("invalid repeat count")
      expect((yield* extract({ text: "a", pattern: "" })).errorCode).toBe("INVALID_ARGUMENTS")
      expect((yield* extract({ text: "a", pattern: "a".repeat(10_001) })).errorCode).toBe("INVALID_ARGUMENTS")
    }))

  it.effect("max_matches caps the answer and says where the next match is; long matches are cut", () =>
    Effect.gen(function*() {
      const r = String((yield* extract({ text: "a1 a2 a3 a4", pattern: "a\\d", max_matches: 2 })).output)
      expect(r.split("\n")[0]).toBe(
        "the first 2 matches (more follow, the next at index 6: raise max_matches, at most 1000, or search the text from index 6 on):"
      )
      expect(r.split("\n")).toHaveLength(3)
      const long = String((yield* extract({ text: "x".repeat(5000), pattern: "x+" })).output)
      expect(long).toBe(`1 match:\n1. line 1, column 1 (index 0): "${"x".repeat(200)}"… (5000 characters)`)
      expect((yield* extract({ text: "a", pattern: "a", max_matches: 1001 })).errorCode).toBe("INVALID_ARGUMENTS")
    }))

  it.effect.skipIf(underMutationTesting)("empty matches on a huge text stop at max_matches", () =>
    Effect.gen(function*() {
      const started = performance.now()
      const r = String((yield* extract({ text: "b".repeat(16 * 1024 * 1024), pattern: "a*", max_matches: 1000 })).output)
      expect(r.split("\n")[0]).toContain("the first 1000 matches")
      expect(performance.now() - started).toBeLessThan(5000)
    }))

  it("finds unsupported constructs outside classes and escapes only", () => {
    expect(unsupportedFeature("[(?=]")).toBeUndefined()
    expect(unsupportedFeature("\\(?=")).toBeUndefined()
    expect(unsupportedFeature("[\\1]")).toBeUndefined()
    expect(unsupportedFeature("[]](?!x)")).toBe("a lookahead ((?!)")
    expect(unsupportedFeature("(?<=a)b")).toBeUndefined()
    expect(unsupportedFeature("\\\\1")).toBeUndefined()
  })

  it("a named backreference is \\k followed by <, outside classes only", () => {
    expect(unsupportedFeature("a\\k<x>")).toBe("a named backreference (\\k<name>)")
    expect(unsupportedFeature("\\d<")).toBeUndefined()
    expect(unsupportedFeature("[\\k<]")).toBeUndefined()
    expect(unsupportedFeature("\\kx")).toBeUndefined()
  })

  it("a class ends at its first unescaped ], and only ( starts a lookahead", () => {
    expect(unsupportedFeature("[a(?=]")).toBeUndefined()
    expect(unsupportedFeature("[a](?=x)")).toBe("a lookahead ((?=)")
    // an escaped ] right after [ or [^ does not end the class
    expect(unsupportedFeature("[\\](?=x)]")).toBeUndefined()
    expect(unsupportedFeature("[\\]](?=x)")).toBe("a lookahead ((?=)")
    expect(unsupportedFeature("[^\\](?=x)]")).toBeUndefined()
    expect(unsupportedFeature("[^\\]](?!x)")).toBe("a lookahead ((?!)")
    // what comes before the [ does not matter
    expect(unsupportedFeature("[a][\\](?=x)]")).toBeUndefined()
    expect(unsupportedFeature("^[\\](?=x)]")).toBeUndefined()
    expect(unsupportedFeature("[a]b[^\\](?=x)]")).toBeUndefined()
    expect(unsupportedFeature("a?=b|c?!d")).toBeUndefined()
    expect(unsupportedFeature("(a=)(b!)")).toBeUndefined()
  })

  it("[] and [^] are whole classes, as JavaScript (and RE2JS.translateRegExp) read them", () => {
    // what follows them is outside any class: a backreference or lookahead there is found
    expect(unsupportedFeature("(?<x>a)[^]\\k<x>]")).toBe("a named backreference (\\k<name>)")
    expect(unsupportedFeature("(a)[]\\1]")).toBe("a backreference (\\1)")
    expect(unsupportedFeature("[](?=a)")).toBe("a lookahead ((?=)")
    expect(unsupportedFeature("[^](?!a)")).toBe("a lookahead ((?!)")
    // and a class after them is a class again
    expect(unsupportedFeature("[^][(?=]")).toBeUndefined()
  })

  it.effect("patterns with (?= inside a class, or ?= after an atom, run", () =>
    Effect.gen(function*() {
      expect((yield* extract({ text: "x(=)", pattern: "[\\](?=x)]+" })).output).toBe(
        "1 match:\n1. line 1, column 1 (index 0): \"x(=)\""
      )
      expect((yield* extract({ text: "ab=c", pattern: "b?=" })).output).toBe(
        "1 match:\n1. line 1, column 2 (index 1): \"b=\""
      )
    }))

  it.effect("a match that starts at a line break is on the line the break ends", () =>
    Effect.gen(function*() {
      expect((yield* extract({ text: "ab\ncd\n", pattern: "\\n" })).output).toBe([
        "2 matches:",
        "1. line 1, column 3 (index 2): \"\\n\"",
        "2. line 2, column 3 (index 5): \"\\n\""
      ].join("\n"))
    }))

  it.effect("a match or group of exactly 200 characters is shown whole, of 201 cut", () =>
    Effect.gen(function*() {
      const x200 = "x".repeat(200)
      expect((yield* extract({ text: x200, pattern: "(x+)" })).output).toBe(
        `1 match:\n1. line 1, column 1 (index 0): "${x200}"\n   groups: 1="${x200}"`
      )
      expect((yield* extract({ text: `${x200}x`, pattern: "(x+)" })).output).toBe(
        `1 match:\n1. line 1, column 1 (index 0): "${x200}"… (201 characters)\n   groups: 1="${x200}"… (201 characters)`
      )
    }))

  it.effect("up to 20 groups are listed, the rest counted", () =>
    Effect.gen(function*() {
      const listed = (n: number) => Array.from({ length: n }, (_, i) => `${i + 1}="a"`).join(", ")
      expect((yield* extract({ text: "a".repeat(20), pattern: "(a)".repeat(20) })).output).toBe(
        `1 match:\n1. line 1, column 1 (index 0): "${"a".repeat(20)}"\n   groups: ${listed(20)}`
      )
      expect((yield* extract({ text: "a".repeat(22), pattern: "(a)".repeat(22) })).output).toBe(
        `1 match:\n1. line 1, column 1 (index 0): "${"a".repeat(22)}"\n   groups: ${listed(20)}, and 2 more groups`
      )
    }))

  it.effect("an answer past the output cap is cut after a whole line, with how to get less", () =>
    Effect.gen(function*() {
      const x300 = "x".repeat(300)
      const cut = `"${"x".repeat(200)}"… (300 characters)`
      const full = [
        "1000 matches:",
        ...Array.from({ length: 1000 }, (_, k) => [
          `${k + 1}. line ${k + 1}, column 1 (index ${k * 301}): ${cut}`,
          `   groups: 1=${cut}`
        ]).flat()
      ].join("\n")
      expect(full.length).toBeGreaterThan(OUTPUT_MAX_CHARS)
      const kept = full.slice(0, OUTPUT_MAX_CHARS)
      const head = kept.slice(0, kept.lastIndexOf("\n"))
      const r = yield* extract({ text: `${x300}\n`.repeat(1000), pattern: "(x+)", max_matches: 1000 })
      expect(r.output).toBe(
        `${head}\n... (cut after ${head.length} of ${full.length} characters; lower max_matches or narrow the pattern)`
      )
    }))
})

describe("regex_extract past its deadline", () => {
  // the worker's deadline is an Effect.timeoutOrElse on the fiber's Clock: moved on the TestClock
  it.effect("is a TOOL_ERROR naming the deadline and the text's length, with what to do", () =>
    Effect.gen(function*() {
      const quick = runner([makeRegexExtract({ deadline: "300 millis" })], () => ws)
      // linear in RE2, but slow: 20 nested repetitions over a million characters
      const call = yield* Effect.forkChild(quick("regex_extract", { text: "a".repeat(1_000_000), pattern: "(.*a){20}" }))
      // searching at 299 ms of the clock, stopped at 300
      yield* sleepersUntil(300)
      yield* TestClock.adjust(299)
      expect(call.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust(1)
      const r = yield* joinUnmoved(call)
      expect(r.errorCode).toBe("TOOL_ERROR")
      expect(r.error).toBe(
        "the search did not finish within 300ms on 1000000 characters of text; search a shorter text or simplify the pattern"
      )
    }).pipe(countingSleeps))

  it("its description gives the deadline", () => {
    expect(makeRegexExtract({ deadline: "3 seconds" }).spec.description).toMatch(/a search still running after 3 s is stopped\.$/)
  })
})

describe("the regex worker", () => {
  // live clock: real time is the point, the host's 10 ms timer must keep firing while the worker searches
  it.live("a search past its deadline is stopped, and the host kept running meanwhile", () =>
    Effect.gen(function*() {
      const job = { pattern: "(.*a){20}", flags: 0, text: "a".repeat(1_000_000), max: 10, groups: 21, chars: 200 }
      let ticks = 0
      const timer = setInterval(() => ticks++, 10)
      const started = performance.now()
      const failed = yield* Effect.flip(searchInWorker(job, "300 millis"))
      clearInterval(timer)
      expect(failed.reason).toBe("deadline")
      expect(failed.message).toBe("the search did not finish within 300ms")
      expect(performance.now() - started).toBeLessThan(3000)
      // the event loop was free: the 10 ms timer kept firing while the worker searched
      expect(ticks).toBeGreaterThan(10)
    }))

  // as the tool's searches above: its deadline (20 s, on the TestClock) is never due
  it.effect("returns matches, cut groups with their lengths, and where the next match starts", () =>
    Effect.gen(function*() {
      const found = yield* searchInWorker({ pattern: "(a+)(x)?", flags: 0, text: "aaa b aa", max: 1, groups: 3, chars: 2 })
      expect(found).toEqual({ matches: [[0, [["aaa", 3], ["aaa", 3], null]]], next: 6 })
    }))
})
