/**
 * `diff_text` on texts whose lines end in `\r\n`, `\r` or `\n`: which differ only in their line
 * endings, which really differ, and that telling them apart stays one pass over each text.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { diffOf } from "./diffTextHarness.js"

/** 100000 lines of 100 characters each: 10 M characters a text. */
const LINES = 100_000
const l = "l".repeat(99)

describe("unifiedDiff and line endings", () => {
  it.effect("a text mixing LF and CR read against the same lines ending the other way differs only in line endings", () =>
    Effect.gen(function*() {
      expect(yield* diffOf("x\ny\r", "x\ry\n", 0)).toEqual(
        Result.succeed("The texts differ only in their line endings (a: CR, b: CR).")
      )
    }))

  it.effect("lines of the same length but other text are a diff, not a line-ending difference", () =>
    Effect.gen(function*() {
      expect(yield* diffOf("x\r\ny", "x\nz", 0)).toEqual(Result.succeed(
        "--- a\n+++ b\n@@ -1,2 +1,2 @@\n-x\r\n-y\n\\ No newline at end of file\n+x\n+z\n\\ No newline at end of file"
      ))
    }))

  it.effect("long texts differing only in line endings are recognised in one pass over each", () =>
    Effect.gen(function*() {
      expect(yield* diffOf(`${l}\n`.repeat(LINES), `${l}\r`.repeat(LINES), 0)).toEqual(
        Result.succeed("The texts differ only in their line endings (a: LF, b: CR).")
      )
      expect(yield* diffOf(`\r${`${l}\n`.repeat(LINES)}\r`, `\n${`${l}\n`.repeat(LINES)}\n`, 0)).toEqual(
        Result.succeed("The texts differ only in their line endings (a: CR, b: LF).")
      )
      expect(yield* diffOf(`\n${`${l}\r`.repeat(LINES)}${l}\n`, `\r${`${l}\r`.repeat(LINES)}${l}\r`, 0)).toEqual(
        Result.succeed("The texts differ only in their line endings (a: CR, b: CR).")
      )
    }))
})
