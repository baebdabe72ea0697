/**
 * `RateLimiter`: admits or refuses a call of a tool with `rateLimitRpm`. A refused call fails
 * at once with `RateLimited` and `retryAfterMs` (it never waits).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { RateLimited } from "../domain/errors.js"
import type { ToolInfo } from "../domain/Tool.js"
import { makeTokenBuckets } from "../layers/RateLimiter.js"

/**
 * The `RateLimiter` service interface.
 *
 * @since 0.1.0
 * @category services
 */
export interface RateLimiterService {
  /**
   * Takes one token of the bucket of the tool (and of `key`, when given: one bucket per
   * tool and key), or fails with `RateLimited`.
   */
  readonly acquire: (tool: ToolInfo, key?: string) => Effect.Effect<void, RateLimited>
  /**
   * Would `acquire` admit a call now? Takes no token (for `ToolSystem.explain`).
   */
  readonly check: (tool: ToolInfo, key?: string) => Effect.Effect<void, RateLimited>
}

/**
 * Per-tool rate limits.
 *
 * @since 0.1.0
 * @category services
 */
export class RateLimiter extends Context.Service<RateLimiter, RateLimiterService>()("effect-tool-system/RateLimiter") {
  /**
   * A token bucket per tool name in memory: up to `rateLimitRpm` calls at once, refilled at
   * `rateLimitRpm` per minute (on the Effect `Clock`, so `TestClock` drives it in tests).
   */
  static readonly layerMemory: Layer.Layer<RateLimiter> = Layer.sync(RateLimiter, makeTokenBuckets)
  /** Admits everything. */
  static readonly layerUnlimited: Layer.Layer<RateLimiter> = Layer.succeed(RateLimiter, {
    acquire: () => Effect.void,
    check: () => Effect.void
  })
  // `layerRedis` (the limits shared through Redis, with its options `RedisConnection`,
  // `RedisUnavailablePolicy` and `RedisRateLimiterOptions`) goes here once
  // `layers/RateLimiterRedis*.ts` are ported: not yet on Effect 4.
}
