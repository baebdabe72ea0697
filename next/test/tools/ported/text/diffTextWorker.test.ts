/**
 * A differing part too large to diff on the calling thread goes to the worker through shared
 * memory as UTF-16 code units (`shared/sharedText.ts`): every character comes back as it was,
 * a lone surrogate and a pair cut between two copy steps too, and the hunks sit at their lines.
 */
import { describe, expect, it } from "@effect/vitest"
import { applyPatch } from "diff"
import { Effect } from "effect"
import { INLINE_MAX_LINES, unifiedDiff } from "../../../../src/tools/ported/text/diffText.js"

describe("unifiedDiff in the worker", () => {
  it.effect("its patch applies: lone surrogates, pairs, CR and non-Latin text cross exactly", () =>
    Effect.gen(function*() {
      const pieces = ["plain", "é ü ß", "😀 pair", "lone \uD800 high", "lone \uDC00 low", "cr\r", "日本語", ""]
      // 256 Ki code units is one copy step: a pair straddles the cut at the first step's end
      const filler = `${"x".repeat(256 * 1024 - 1)}😀${"y".repeat(10)}`
      const lines = Array.from({ length: 4 * INLINE_MAX_LINES }, (_, i) => `${i} ${pieces[i % pieces.length]}`)
      const a = `${filler}\n${lines.join("\n")}\n`
      // the first line differs too: the filler is part of what the worker is given
      const b = `${filler}!\n${lines.map((line, i) => (i % 50 === 7 ? `${line} changed \uD83D` : line)).join("\n")}\n`
      const diff = yield* unifiedDiff(a, b, 2)
      expect(diff.split("\n").filter((line) => line.startsWith("@@")).length).toBe(1 + Math.ceil((4 * INLINE_MAX_LINES) / 50))
      expect(diff).toContain(`@@ -1,3 +1,3 @@\n-${filler}\n+${filler}!\n 0 plain`)
      expect(diff).toContain("@@ -7,5 +7,5 @@")
      expect(applyPatch(a, `${diff}\n`, { autoConvertLineEndings: false })).toBe(b)
    }), 30_000)
})
