/**
 * `diff_text`'s line count over a long text runs in slices: other fibers get turns of the event
 * loop while it counts, and the count is exact.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { performance } from "node:perf_hooks"
import { newlines } from "../../../../src/tools/ported/text/diffTextScan.js"
import { SLICE_MS, yieldToLoop } from "../../../../src/tools/shared/slices.js"

/** Line feeds enough for several slices here (about 0.1 s); doubled on a machine that counts them faster. */
const FIRST_LINES = 8_000_000
const MAX_LINES = 64_000_000

/** Counts `lines` line feeds beside a fiber that counts its own turns of the event loop. */
const countBesideTicker = (lines: number) =>
  Effect.gen(function*() {
    const text = "\n".repeat(lines)
    let turns = 0
    const ticker = yield* Effect.forkChild(Effect.forever(Effect.andThen(yieldToLoop, Effect.sync(() => turns++))))
    const started = performance.now()
    const count = yield* newlines(text, 0, text.length)
    const tookMs = performance.now() - started
    yield* Fiber.interrupt(ticker)
    return { count, turns, tookMs }
  })

describe("newlines", () => {
  it.live("counting the line feeds of a long text gives the event loop turns", () =>
    Effect.gen(function*() {
      let lines = FIRST_LINES
      let run = yield* countBesideTicker(lines)
      // the slices are by time: a count shorter than a few slices proves nothing, so it is made longer
      while (run.tookMs < 3 * SLICE_MS && lines < MAX_LINES) {
        lines *= 2
        run = yield* countBesideTicker(lines)
      }
      expect(run.count).toBe(lines)
      expect(run.tookMs).toBeGreaterThanOrEqual(3 * SLICE_MS)
      expect(run.turns).toBeGreaterThan(0)
    }))
})
