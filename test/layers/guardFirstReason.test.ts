/**
 * `guard` under both a deadline and a memory cap: the first limit hit names the result, though
 * the other is hit too while the handler's finalizer runs. The memory cap here is below zero,
 * so that the heap is over it at every sample without allocating anything (the proofs with a
 * real heap, in a process of their own, are in `guard.slow.test.ts`); which limit comes first
 * is set by the deadline and the sampling interval.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { guard } from "../../src/layers/guard.js"

/** A handler that never ends by itself, whose finalizer takes 80 ms. */
const slowToStop = Effect.never.pipe(Effect.ensuring(Effect.sleep("80 millis")))

const run = (timeoutMs: number, sampleEveryMs: number) =>
  Effect.flip(guard(slowToStop, (caller) => caller, undefined, {
    timeoutMs,
    memoryLimitMb: -1024,
    onTimeout: () => "timeout" as const,
    onMemoryLimit: () => "memory" as const,
    sampleEveryMs
  }))

describe("a deadline and a memory cap", () => {
  // live clock: the deadline is a real setTimeout, the heap sampler a real setInterval
  it.live("the deadline hit first names the result, though the heap is sampled over the cap while the finalizer runs", () =>
    Effect.gen(function*() {
      expect(yield* run(5, 20)).toBe("timeout")
    }))

  // live clock: the deadline is a real setTimeout, the heap sampler a real setInterval
  it.live("the cap hit first names the result, though the deadline passes while the finalizer runs", () =>
    Effect.gen(function*() {
      expect(yield* run(20, 5)).toBe("memory")
    }))
})
