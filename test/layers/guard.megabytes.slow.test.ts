/**
 * The tests of `guard.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet machine:
 * real processes, worker starts, large inputs), kept in the slow lane so that the fast lane's
 * tests stay well under its 1 s CPU bound even on a loaded machine.
 *
 * How a handler's run is bounded, through the executor: a handler without a deadline is never
 * cut short (live clock or `TestClock`); a memory cap lets modest growth through; when both
 * limits are set the first one hit names the result; a handler that interrupts itself
 * interrupts the call; a finished call leaves no timer, heap sampler or fiber behind. The
 * proofs that allocate past the heap in use (hundreds of MB where test files share a process),
 * and those where a memory cap and a deadline race, are in `guard.slow.test.ts`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Tool } from "../../src/index.js"
import { allocate } from "./guardHeap.js"
import { exec, layersIn } from "./guardHarness.js"

const layerOf = layersIn("guard-")

describe("a memory cap", () => {
  // live clock: the heap is sampled by a real setInterval; the handler holds its memory for real time
  it.live("is counted in megabytes: a handler keeping 48 MB under a 128 MB cap runs to its end", () =>
    Effect.gen(function*() {
      // far from the cap either way: the heap's own ups and downs (a collection of other
      // garbage) are much smaller than the 48 MB kept, and the 80 MB left
      const keeper = Tool.make("keeper", {
        description: "Keeps 48 MB for 300 ms under a 128 MB cap",
        parameters: Schema.Struct({}),
        readOnly: true,
        memoryLimitMb: 128,
        handler: () =>
          Effect.gen(function*() {
            const kept = allocate(48)
            yield* Effect.sleep("300 millis")
            return kept.length
          })
      })
      const r = yield* exec("keeper").pipe(Effect.provide(layerOf(keeper)))
      expect(r).toMatchObject({ success: true, output: 48 * 131_072 })
    }))
})
