/**
 * The in-memory rate limiter (`RateLimiter.layerMemory`) asked directly: a tool without a
 * limit always passes and spends nothing; each rate-limit key has its own bucket, and the
 * default bucket (no key) is none of them, not even the key "undefined"; a bucket refills at
 * `rateLimitRpm` a minute on the Effect `Clock` (`TestClock` here).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { TestClock } from "effect/testing"
import { RateLimiter, Tool } from "../../src/index.js"

const unlimited = Tool.make("unlimited", {
  description: "No rate limit",
  parameters: Schema.Struct({}),
  readOnly: true,
  handler: () => Effect.void
})

const oncePerMinute = Tool.make("once", {
  description: "One call a minute",
  parameters: Schema.Struct({}),
  readOnly: true,
  rateLimitRpm: 1,
  handler: () => Effect.void
})

const twicePerMinute = Tool.make("twice", {
  description: "Two calls a minute",
  parameters: Schema.Struct({}),
  readOnly: true,
  rateLimitRpm: 2,
  handler: () => Effect.void
})

describe("RateLimiter.layerMemory", () => {
  it.effect("a tool without a limit always passes, with or without a key", () =>
    Effect.gen(function*() {
      const limiter = yield* RateLimiter
      for (let i = 0; i < 100; i++) {
        yield* limiter.acquire(unlimited)
        yield* limiter.acquire(unlimited, "user-1")
        yield* limiter.check(unlimited)
      }
    }).pipe(Effect.provide(RateLimiter.layerMemory)))

  it.effect("each key has its own bucket; the default bucket is not the key \"undefined\"", () =>
    Effect.gen(function*() {
      const limiter = yield* RateLimiter
      yield* limiter.acquire(oncePerMinute)
      const refused = yield* Effect.flip(limiter.acquire(oncePerMinute))
      expect(refused).toMatchObject({ _tag: "RateLimited", tool: "once", limitRpm: 1 })
      yield* limiter.acquire(oncePerMinute, "undefined")
      yield* limiter.acquire(oncePerMinute, "user-1")
      expect((yield* Effect.flip(limiter.acquire(oncePerMinute, "undefined")))._tag).toBe("RateLimited")
      expect((yield* Effect.flip(limiter.check(oncePerMinute)))._tag).toBe("RateLimited")
    }).pipe(Effect.provide(RateLimiter.layerMemory)))

  it.effect("a bucket refills at rateLimitRpm a minute on the Clock; check takes no token", () =>
    Effect.gen(function*() {
      const limiter = yield* RateLimiter
      yield* limiter.acquire(twicePerMinute)
      yield* limiter.check(twicePerMinute)
      yield* limiter.acquire(twicePerMinute)
      const refused = yield* Effect.flip(limiter.acquire(twicePerMinute))
      expect(refused).toMatchObject({ _tag: "RateLimited", tool: "twice", limitRpm: 2, retryAfterMs: 30_000 })
      yield* TestClock.adjust("29999 millis")
      expect((yield* Effect.flip(limiter.check(twicePerMinute))).retryAfterMs).toBe(1)
      yield* TestClock.adjust("1 millis")
      yield* limiter.acquire(twicePerMinute)
      expect((yield* Effect.flip(limiter.acquire(twicePerMinute))).retryAfterMs).toBe(30_000)
      // a full minute refills the bucket, never past rateLimitRpm tokens
      yield* TestClock.adjust("10 minutes")
      yield* limiter.acquire(twicePerMinute)
      yield* limiter.acquire(twicePerMinute)
      expect((yield* Effect.flip(limiter.acquire(twicePerMinute)))._tag).toBe("RateLimited")
    }).pipe(Effect.provide(RateLimiter.layerMemory)))
})
