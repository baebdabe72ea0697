import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import * as Fs from "node:fs"
import { DIFF_MAX_CHARS, middleOf, unifiedDiff } from "../../../../src/tools/ported/text/diffText.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"

const ws = makeTempDirSync("ported-diff-")

afterAll(() => {
  Fs.rmSync(ws, { recursive: true, force: true })
})

/** `unifiedDiff`'s text, or its error's message. */
const diffOf = (a: string, b: string, context: number) =>
  Effect.result(Effect.mapError(unifiedDiff(a, b, context), (error) => error.message))

const TOO_BIG = "more than 100000 lines or 4194304 characters to compare at once; diff smaller parts"

describe("middleOf", () => {
  it("keeps the differing line and context_lines shared lines on each side, starting at line starts", () => {
    const a = "l1\nl2\nl3\nX\nl5\nl6\nl7\n"
    const b = "l1\nl2\nl3\nY\nl5\nl6\nl7\n"
    // "l3\nX\nl5\n": from offset 6 (line 3) to offset 14 in both
    expect(middleOf(a, b, 1)).toEqual({ start: 6, endA: 14, endB: 14 })
    expect(middleOf(a, b, 0)).toEqual({ start: 9, endA: 11, endB: 11 })
    expect(middleOf(a, b, 2)).toEqual({ start: 3, endA: 17, endB: 17 })
    // more context than there are lines stops at the texts' ends
    expect(middleOf(a, b, 10)).toEqual({ start: 0, endA: 20, endB: 20 })
  })

  it("a shared end that begins inside a line is moved to the end of that line", () => {
    // the texts agree from "tail" on, but the middle must end at the line break after it
    expect(middleOf("k\nXtail\nm\n", "k\nYtail\nm\n", 0)).toEqual({ start: 2, endA: 8, endB: 8 })
    expect(middleOf("k\nXtail\nm\n", "k\nYYtail\nm\n", 1)).toEqual({ start: 0, endA: 10, endB: 11 })
    // no line break after it: the middle runs to the end
    expect(middleOf("k\nXtail", "k\nYtail", 0)).toEqual({ start: 2, endA: 7, endB: 7 })
  })

  it("a shared end that begins at a line start in both is kept whole", () => {
    // line "A" deleted: the shared "z\n" starts a line in both texts
    expect(middleOf("A\nz\n", "z\n", 0)).toEqual({ start: 0, endA: 2, endB: 0 })
    expect(middleOf("q\nA\nz\n", "q\nz\n", 0)).toEqual({ start: 2, endA: 4, endB: 2 })
  })

  it("the shared end never reaches back into the shared start", () => {
    // a blank line added after a blank line: "one\n\n" is both the shared start and end of b
    expect(middleOf("one\n\n", "one\n\n\n", 0)).toEqual({ start: 5, endA: 5, endB: 6 })
    expect(middleOf("x\n", "x\nx\n", 0)).toEqual({ start: 2, endA: 2, endB: 4 })
  })
})

describe("unifiedDiff", () => {
  it.effect("hunks at the right lines when the change is next to the shared start or end", () =>
    Effect.gen(function*() {
      expect(yield* diffOf("one\n\n", "one\n\n\n", 0)).toEqual(Result.succeed("--- a\n+++ b\n@@ -2,0 +3,1 @@\n+"))
      expect(yield* diffOf("\n", "\n\n", 0)).toEqual(Result.succeed("--- a\n+++ b\n@@ -1,0 +2,1 @@\n+"))
      expect(yield* diffOf("q\nA\nz\n", "q\nz\n", 0)).toEqual(Result.succeed("--- a\n+++ b\n@@ -2,1 +1,0 @@\n-A"))
      expect(yield* diffOf("k\nXtail\nm\n", "k\nYtail\nm\n", 0)).toEqual(
        Result.succeed("--- a\n+++ b\n@@ -2,1 +2,1 @@\n-Xtail\n+Ytail")
      )
      expect(yield* diffOf("k\nXtail", "k\nYtail", 0)).toEqual(
        Result.succeed(
          "--- a\n+++ b\n@@ -2,1 +2,1 @@\n-Xtail\n\\ No newline at end of file\n+Ytail\n\\ No newline at end of file"
        )
      )
      expect(yield* diffOf("aa", "aaa", 0)).toEqual(
        Result.succeed("--- a\n+++ b\n@@ -1,1 +1,1 @@\n-aa\n\\ No newline at end of file\n+aaa\n\\ No newline at end of file")
      )
      expect(yield* diffOf("a\n\n", "\n\n", 0)).toEqual(Result.succeed("--- a\n+++ b\n@@ -1,1 +1,1 @@\n-a\n+"))
    }))

  it.effect("two changes more than twice context_lines apart are two hunks", () =>
    Effect.gen(function*() {
      const a = "1\nX\n3\n4\n5\n6\n7\n8\n9\nY\n"
      const b = "1\nA\n3\n4\n5\n6\n7\n8\n9\nB\n"
      expect(yield* diffOf(a, b, 1)).toEqual(
        Result.succeed("--- a\n+++ b\n@@ -1,3 +1,3 @@\n 1\n-X\n+A\n 3\n@@ -9,2 +9,2 @@\n 9\n-Y\n+B")
      )
    }))

  it.effect("lone CR line endings are line endings too", () =>
    Effect.gen(function*() {
      expect(yield* diffOf("x\ry\r", "x\ny\n", 3)).toEqual(
        Result.succeed("The texts differ only in their line endings (a: CR, b: LF).")
      )
      expect(yield* diffOf("x\ny", "x\ry", 3)).toEqual(
        Result.succeed("The texts differ only in their line endings (a: LF, b: CR).")
      )
    }))

  it.effect("a differing part of more than 100000 lines is refused, saying which lines differ", () =>
    Effect.gen(function*() {
      // differ at both ends, so the whole text after the shared first line is the differing part
      const lines = (first: string, breaks: number) => `same\n${first}${"\n".repeat(breaks)}${first}`
      expect(yield* diffOf(lines("a", 100_002), lines("b", 99_989), 0)).toEqual(
        Result.fail(`the texts differ between line 2 and line 100004: ${TOO_BIG}`)
      )
      expect(yield* diffOf(lines("a", 99_989), lines("b", 100_002), 0)).toEqual(
        Result.fail(`the texts differ between line 2 and line 100004: ${TOO_BIG}`)
      )
      expect(yield* diffOf(lines("a", 100_002), lines("b", 100_002), 0)).toEqual(
        Result.fail(`the texts differ between line 2 and line 100004: ${TOO_BIG}`)
      )
      // exactly 100000 lines are still diffed
      expect(yield* diffOf(lines("a", 99_999), lines("b", 99_999), 0)).toEqual(Result.succeed([
        "--- a",
        "+++ b",
        "@@ -2,1 +2,1 @@",
        "-a",
        "+b",
        "@@ -100001,1 +100001,1 @@",
        "-a",
        "\\ No newline at end of file",
        "+b",
        "\\ No newline at end of file"
      ].join("\n")))
    }))

  it.effect("a differing part of more than 4 Mi characters is refused, whichever text is the long one", () =>
    Effect.gen(function*() {
      const long = `a${"x".repeat(DIFF_MAX_CHARS)}`
      expect(yield* diffOf(long, "b", 0)).toEqual(Result.fail(`the texts differ between line 1 and line 1: ${TOO_BIG}`))
      expect(yield* diffOf("b", long, 0)).toEqual(Result.fail(`the texts differ between line 1 and line 1: ${TOO_BIG}`))
    }))

  it.effect("a differing part that ends with a line break has no extra empty line: exactly 100000 are diffed, 100001 named right", () =>
    Effect.gen(function*() {
      const ends = (c: string, middle: number) => `${c}\n${"s\n".repeat(middle)}${c}\n`
      expect(yield* diffOf(ends("x", 99_998), ends("y", 99_998), 0)).toEqual(Result.succeed([
        "--- a",
        "+++ b",
        "@@ -1,1 +1,1 @@",
        "-x",
        "+y",
        "@@ -100000,1 +100000,1 @@",
        "-x",
        "+y"
      ].join("\n")))
      expect(yield* diffOf(ends("x", 99_999), ends("y", 99_999), 0)).toEqual(
        Result.fail(`the texts differ between line 1 and line 100001: ${TOO_BIG}`)
      )
    }))
})
