/**
 * In-memory token buckets, one per tool name (and rate-limit key). JavaScript runs one fiber
 * step at a time, so the check-and-take is atomic: under any concurrency exactly the allowed
 * number pass.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { RateLimited } from "../domain/errors.js"
import type { ToolInfo } from "../domain/Tool.js"
import type { RateLimiterService } from "../services/RateLimiter.js"

interface Bucket {
  tokens: number
  updatedAt: number
}

export const makeTokenBuckets = (): RateLimiterService => {
  const buckets = new Map<string, Bucket>()
  /** Refills the bucket to `now` and takes a token when `take` (and one is there). */
  const use = (tool: ToolInfo, key: string | undefined, take: boolean) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const rpm = tool.rateLimitRpm
      if (rpm === undefined) return Effect.void
      const perMs = rpm / 60_000
      const id = key === undefined ? tool.name : `${tool.name}\u0000${key}`
      const bucket = buckets.get(id) ?? { tokens: rpm, updatedAt: now }
      bucket.tokens = Math.min(rpm, bucket.tokens + (now - bucket.updatedAt) * perMs)
      bucket.updatedAt = now
      buckets.set(id, bucket)
      if (bucket.tokens >= 1) {
        if (take) bucket.tokens -= 1
        return Effect.void
      }
      return Effect.fail(
        new RateLimited({ tool: tool.name, limitRpm: rpm, retryAfterMs: Math.ceil((1 - bucket.tokens) / perMs) })
      )
    })
  return {
    acquire: (tool, key) => use(tool, key, true),
    check: (tool, key) => use(tool, key, false)
  }
}
