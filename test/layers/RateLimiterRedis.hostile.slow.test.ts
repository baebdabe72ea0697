/**
 * `RateLimiter.layerRedis` with hostile rate-limit keys (issue 47, item 12): any string (a lone
 * surrogate, NULs, a huge key) gives a result, never a defect, and distinct keys keep distinct
 * buckets. Against a `redis-server` of the test's own.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Context, Effect, Exit, Layer, Result } from "effect"
import { createClient } from "redis"
import { RateLimiter } from "../../src/index.js"
import { freshPrefix, limitedTool, redisServer, redisServerInstalled } from "../helpers/redisServer.js"

describe.skipIf(!redisServerInstalled && process.env.CI === undefined)("RateLimiter.layerRedis: hostile keys", { timeout: 30_000 }, () => {
  it.live("lone surrogates, NULs and a 1 MB key each get their own bucket, without a defect", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer()
      const prefix = freshPrefix("hostile")
      const limiter = Context.get(yield* Layer.build(RateLimiter.layerRedis({ redis: redis.url, prefix })), RateLimiter)
      const tool = limitedTool("hostile", 1)
      const keys = ["\uD800", "\uDFFF", "a\uD800b", "\u0000D800", "\u0000", "k".repeat(1024 * 1024), "k".repeat(1024 * 1024 - 1)]
      for (const key of keys) {
        // one token per bucket: the first call passes, the second is refused (a result, not a defect)
        expect(Exit.isSuccess(yield* Effect.exit(limiter.acquire(tool, key)))).toBe(true)
        const second = yield* Effect.exit(limiter.acquire(tool, key))
        expect(Exit.isFailure(second) && Result.getOrUndefined(Cause.findError(second.cause))?._tag).toBe("RateLimited")
      }
      const client = yield* Effect.acquireRelease(
        Effect.promise(() => createClient({ socket: { host: "127.0.0.1", port: redis.port } }).on("error", () => undefined).connect()),
        (opened) => Effect.sync(() => opened.destroy())
      )
      const written = (yield* Effect.promise(() => client.keys(`${prefix}*`))).filter((key) => !key.endsWith(":refill"))
      expect(written).toHaveLength(keys.length)
      // a huge key is written as its hash, not whole
      expect(Math.max(...written.map((key) => key.length))).toBeLessThan(prefix.length + 400)
    }))
})
