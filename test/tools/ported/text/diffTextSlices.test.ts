/**
 * `diff_text`'s line count over a long text runs in slices: other fibers get turns of the event
 * loop while it counts, and the count is exact.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { newlines } from "../../../../src/tools/ported/text/diffTextScan.js"
import { yieldToLoop } from "../../../../src/tools/shared/slices.js"

/** Enough line feeds that counting them takes several slices (about 0.1 s). */
const LINES = 8_000_000

describe("newlines", () => {
  it.live("counting the line feeds of a long text gives the event loop turns", () =>
    Effect.gen(function*() {
      const text = "\n".repeat(LINES)
      let turns = 0
      const ticker = yield* Effect.forkChild(Effect.forever(Effect.andThen(yieldToLoop, Effect.sync(() => turns++))))
      const count = yield* newlines(text, 0, text.length)
      yield* Fiber.interrupt(ticker)
      expect(count).toBe(LINES)
      expect(turns).toBeGreaterThan(0)
    }))
})
