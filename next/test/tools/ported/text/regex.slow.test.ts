/**
 * The tests of `regex.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet machine:
 * real processes, worker starts, large inputs), kept in the slow lane so that the fast lane's
 * tests stay well under its 1 s CPU bound even on a loaded machine.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { regexWorkspace } from "./regexHarness.js"

const { extract } = regexWorkspace()

describe("regex_extract", () => {

  it.effect("catastrophic patterns return at once (linear time)", () =>
    Effect.gen(function*() {
      // 2,000 characters: more than a backtracking engine could try in any time (2^2000 ways to
      // split them for "(a+)+$"), and a tenth of the matching work 20,000 cost (0.2 s of CPU)
      const started = performance.now()
      for (const pattern of ["(a+)+$", "(a|aa)+$", "(a*)*b", "(.*a){20}", "(\\w+\\s?)+$"]) {
        const r = yield* extract({ text: `${"a".repeat(2_000)}!`, pattern })
        expect(r.success, pattern).toBe(true)
      }
      expect(performance.now() - started).toBeLessThan(5000)
    }))
})
