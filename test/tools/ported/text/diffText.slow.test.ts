/**
 * The tests of `diffText.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet machine:
 * real processes, worker starts, large inputs), kept in the slow lane so that the fast lane's
 * tests stay well under its 1 s CPU bound even on a loaded machine.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import * as Fs from "node:fs"
import { DIFF_MAX_CHARS } from "../../../../src/tools/ported/text/diffText.js"
import { textTools } from "../../../../src/tools/ported/text/index.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"
import { runner } from "../data/harness.js"
import { diffOf } from "./diffTextHarness.js"

const ws = makeTempDirSync("ported-diff-")
const run = runner(textTools, () => ws)

afterAll(() => {
  Fs.rmSync(ws, { recursive: true, force: true })
})

describe("unifiedDiff", () => {

  it.effect("a differing part of exactly 4 Mi characters is diffed (one more is refused: diffText.test.ts)", () =>
    Effect.gen(function*() {
      const long = `a${"x".repeat(DIFF_MAX_CHARS - 1)}`
      expect(yield* diffOf(long, "b", 0)).toEqual(Result.succeed(
        `--- a\n+++ b\n@@ -1,1 +1,1 @@\n-${long}\n\\ No newline at end of file\n+b\n\\ No newline at end of file`
      ))
    }))
})

describe("diff_text", () => {
  it.effect("a long diff is cut at a line break, saying how to get less", () =>
    Effect.gen(function*() {
      const r = yield* run("diff_text", { a: "", b: "line\n".repeat(60_000) })
      const full = `--- a\n+++ b\n@@ -0,0 +1,60000 @@\n${"+line\n".repeat(59_999)}+line`
      expect(full.length).toBe(360_031)
      // the first 262144 characters end inside a line; the cut is at the line break before
      expect(r.output).toBe(
        `${full.slice(0, 262_141)}\n... (cut after 262141 of 360031 characters; ` +
          "lower context_lines or diff smaller parts of the texts)"
      )
      expect(full.slice(262_135, 262_141)).toBe("\n+line")
    }))
})
