/**
 * `RateLimiter`: admits or refuses a call of a tool with `rateLimitRpm`. A refused call fails
 * at once with `RateLimited` and `retryAfterMs` (it never waits).
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import type { RateLimited } from "../domain/errors.js"
import type { ToolInfo } from "../domain/Tool.js"
import { makeTokenBuckets } from "../layers/RateLimiter.js"

/** The `RateLimiter` service interface. */
export interface RateLimiterService {
  /** Takes one token of the tool's bucket, or fails with `RateLimited`. */
  readonly acquire: (tool: ToolInfo) => Effect.Effect<void, RateLimited>
}

/** Per-tool rate limits. */
export class RateLimiter extends Context.Tag("effect-tool-system/RateLimiter")<RateLimiter, RateLimiterService>() {
  /**
   * A token bucket per tool name in memory: up to `rateLimitRpm` calls at once, refilled at
   * `rateLimitRpm` per minute (on the Effect `Clock`, so `TestClock` drives it in tests).
   */
  static readonly layerMemory: Layer.Layer<RateLimiter> = Layer.sync(RateLimiter, makeTokenBuckets)
  /** Admits everything. */
  static readonly layerUnlimited: Layer.Layer<RateLimiter> = Layer.succeed(RateLimiter, { acquire: () => Effect.void })
}
