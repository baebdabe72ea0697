/**
 * replace_in_file and apply_diff at their limits, with inputs small enough for every run
 * (the mutation run included): more occurrences than one search step takes, a result past
 * the size cap reached by many small replacements, a diff past its length cap, a hunk outside
 * the file, and a worker that outlasts its deadline. `freeze.test.ts` shows the same limits on
 * huge inputs, measuring the event loop.
 */
import { afterAll, describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { APPLY_DIFF_MAX_CHARS } from "../../../../src/tools/ported/editing/applyDiff.js"
import { REPLACE_MAX_RESULT_CHARS } from "../../../../src/tools/ported/editing/replaceInFile.js"
import { countingSleeps, joinUnmoved, sleepersUntil } from "../../../helpers/testClock.js"
import { call, fingerprint, makeWorkspace, systemFor, text } from "./harness.js"

const { remove, ws } = makeWorkspace("replace-diff-limits-")
afterAll(remove)

const at = (rel: string) => Path.join(ws, rel)
const put = (rel: string, content: string) => Fs.writeFileSync(at(rel), content)

describe("replace_in_file: many occurrences", () => {
  layer(systemFor(ws))((it) => {
    it.effect("5,000 occurrences (more than one search step) are all counted, and all replaced with count", () =>
      Effect.gen(function*() {
        put("src/many.txt", "a\n".repeat(5_000))
        const ambiguous = yield* call("replace_in_file", { filepath: "src/many.txt", old_text: "a", new_text: "b" })
        expect(ambiguous.error).toBe(
          "old_text occurs 5000 times in src/many.txt (at lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ... (4990 more)); " +
            "nothing was changed: pass count to replace the first ones, or include surrounding lines in old_text " +
            "to make it unique"
        )
        const some = yield* call("replace_in_file", { filepath: "src/many.txt", old_text: "a", new_text: "b", count: 4_500 })
        expect(some.output).toBe("Replaced 4500 occurrences in src/many.txt (500 more occurrences left unchanged)")
        expect(text(at("src/many.txt"))).toBe("b\n".repeat(4_500) + "a\n".repeat(500))
        const all = yield* call("replace_in_file", { filepath: "src/many.txt", old_text: "\n", new_text: "", count: 5_000 })
        expect(all.output).toBe("Replaced 5000 occurrences in src/many.txt")
        expect(text(at("src/many.txt"))).toBe("b".repeat(4_500) + "a".repeat(500))
      }))

    it.effect("a result past the size cap, reached by a thousand small replacements, is refused before it is built", () =>
      Effect.gen(function*() {
        put("src/grow.txt", "a".repeat(1_000))
        const before = fingerprint(at("src/grow.txt"))
        // each "a" becomes 10,486 characters: 1,000 × 10,486 = 10,486,000 > 10,485,760
        const r = yield* call("replace_in_file", {
          filepath: "src/grow.txt",
          old_text: "a",
          new_text: "b".repeat(10_486),
          count: 1_000
        })
        expect(r.errorCode).toBe("TOOL_ERROR")
        expect(r.error).toBe(
          `replacing 1000 occurrences would make src/grow.txt 10486000 characters long, past the limit of ` +
            `${REPLACE_MAX_RESULT_CHARS} characters for an edited file; nothing was changed ` +
            "(replace fewer occurrences, or write the file with write_file)"
        )
        expect(fingerprint(at("src/grow.txt"))).toEqual(before)
        // one occurrence fewer stays under the cap
        const ok = yield* call("replace_in_file", { filepath: "src/grow.txt", old_text: "a", new_text: "b".repeat(10_486), count: 999 })
        expect(ok.output).toBe("Replaced 999 occurrences in src/grow.txt (1 more occurrence left unchanged)")
        expect(Fs.statSync(at("src/grow.txt")).size).toBe(999 * 10_486 + 1)
      }))
  })
})

describe("apply_diff: limits", () => {
  layer(systemFor(ws))((it) => {
    it.effect("a diff one character past its cap is refused unread; one at the cap is read", () =>
      Effect.gen(function*() {
        put("src/cap.txt", "a\n")
        const before = fingerprint(at("src/cap.txt"))
        const over = yield* call("apply_diff", { filepath: "src/cap.txt", diff: "x".repeat(APPLY_DIFF_MAX_CHARS + 1) })
        expect(over.error).toBe(
          `the diff is ${APPLY_DIFF_MAX_CHARS + 1} characters; apply_diff takes at most ${APPLY_DIFF_MAX_CHARS} ` +
            "(split it into several calls, or replace the file with write_file); nothing was changed"
        )
        const atCap = yield* call("apply_diff", { filepath: "src/cap.txt", diff: "x".repeat(APPLY_DIFF_MAX_CHARS) })
        expect(atCap.error).toBe("the diff has no hunks (lines starting with @@ -a,b +c,d @@)")
        expect(fingerprint(at("src/cap.txt"))).toEqual(before)
      }))

    it.effect("a hunk outside the file is refused, naming it and the file's line counts", () =>
      Effect.gen(function*() {
        put("src/short.txt", "one\ntwo\nthree\n")
        const before = fingerprint(at("src/short.txt"))
        const r = yield* call("apply_diff", {
          filepath: "src/short.txt",
          diff: "@@ -1,1 +1,2 @@\n one\n+one and a half\n@@ -40,1 +41,1 @@\n-forty\n+FORTY\n"
        })
        expect(r.error).toBe(
          "hunk 2 of 2 (@@ -40,1 +41,1 @@) lies outside src/short.txt, which has 3 lines (4 after the diff); " +
            "nothing was changed (read the file again and make the diff against its current text)"
        )
        put("src/one.txt", "one\n")
        const one = yield* call("apply_diff", { filepath: "src/one.txt", diff: "@@ -5,1 +5,1 @@\n-five\n+FIVE\n" })
        expect(one.error).toBe(
          "hunk 1 of 1 (@@ -5,1 +5,1 @@) lies outside src/one.txt, which has 1 line (1 after the diff); " +
            "nothing was changed (read the file again and make the diff against its current text)"
        )
        expect(fingerprint(at("src/short.txt"))).toEqual(before)
      }))
  })

  // the worker's deadline is on the call's clock: the TestClock reaches it while the worker starts
  it.effect("a diff still being applied at the 20 s deadline: the error says so, and nothing was changed", () =>
    Effect.gen(function*() {
      put("src/slow.txt", "a\nb\n")
      const before = fingerprint(at("src/slow.txt"))
      const run = yield* Effect.forkChild(call("apply_diff", { filepath: "src/slow.txt", diff: "@@ -1,2 +1,2 @@\n-a\n+A\n b\n" }))
      yield* sleepersUntil(20_000)
      yield* TestClock.adjust(20_000)
      const r = yield* joinUnmoved(run, 5_000)
      expect(r.error).toBe(
        "applying the diff did not finish within 20s; nothing was changed (split the diff into smaller ones)"
      )
      expect(fingerprint(at("src/slow.txt"))).toEqual(before)
    }).pipe(Effect.provide(systemFor(ws)), countingSleeps))
})
