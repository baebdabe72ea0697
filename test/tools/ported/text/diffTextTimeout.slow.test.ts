import { describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { DIFF_TIMEOUT_MS, unifiedDiff } from "../../../../src/tools/ported/text/diffText.js"

describe("unifiedDiff past its deadline", () => {
  // 20000 lines against 20000 other lines: within the caps, but the diff (every line changed)
  // needs far longer than the deadline, so it is stopped and the answer says which lines differ
  it.live("a diff that cannot finish within 5 s is refused, saying which lines differ", () =>
    Effect.gen(function*() {
      const lines = (prefix: string) => Array.from({ length: 20_000 }, (_, i) => `${prefix}${i}`).join("\n")
      const started = performance.now()
      const r = yield* Effect.result(
        Effect.mapError(unifiedDiff(`same\n${lines("a")}\nend`, `same\n${lines("b")}\nend`, 1), (error) => error.message)
      )
      const took = performance.now() - started
      expect(r).toEqual(Result.fail(
        "the texts differ between line 1 and line 20002, too differently to compute a diff within 5 s; diff smaller parts"
      ))
      expect(took).toBeGreaterThanOrEqual(DIFF_TIMEOUT_MS - 100)
      expect(took).toBeLessThan(DIFF_TIMEOUT_MS + 10_000)
    }), 30_000)
})
