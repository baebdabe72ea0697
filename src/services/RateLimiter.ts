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
 * Where `RateLimiter.layerRedis` finds Redis: a URL (`redis://[user:password@]host[:port][/db]`,
 * `rediss://` for TLS), a host and port, or an existing node-redis client (`redis`'s
 * `createClient`), whose connection options (`url`, `socket`, `database`, credentials and its
 * `socket.reconnectStrategy`) are reused for a connection of the limiter's own (the limiter opens
 * and closes its connection itself).
 *
 * @since 0.1.0
 * @category models
 */
export type RedisConnection =
  | string
  | {
    readonly host?: string | undefined
    readonly port?: number | undefined
    readonly db?: number | undefined
    readonly username?: string | undefined
    readonly password?: string | undefined
    readonly tls?: boolean | undefined
  }
  | { readonly client: { readonly options: object } }

/**
 * What `RateLimiter.layerRedis` does with a call it cannot check on Redis.
 *
 * @since 0.1.0
 * @category models
 */
export type RedisUnavailablePolicy = "fail-closed" | "fallback-memory"

/**
 * The options of `RateLimiter.layerRedis`.
 *
 * @since 0.1.0
 * @category models
 */
export interface RedisRateLimiterOptions {
  /** Default `redis://127.0.0.1:6379`. */
  readonly redis?: RedisConnection | undefined
  /** Prefix of every key the limiter writes. Default `"effect-tool-system:ratelimit:"`. */
  readonly prefix?: string | undefined
  /**
   * The longest a call waits for Redis's answer to its command, in milliseconds. Default 200.
   * Connecting is not part of it: a call that comes while the connection is being made (the
   * first one, or one after a drop) waits for it, up to 5 s from when it started.
   */
  readonly timeoutMs?: number | undefined
  /**
   * When Redis does not answer in time (down, restarting, slow): `"fail-closed"` (default)
   * refuses the call with `RateLimited` and a `reason`; `"fallback-memory"` applies the limits
   * per process (`layerMemory`'s buckets) until Redis answers again. Each change is logged.
   */
  readonly onUnavailable?: RedisUnavailablePolicy | undefined
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
  /**
   * The limits shared by every process that uses the same Redis (and `prefix`): a token bucket
   * per tool (and rate-limit key) of `rateLimitRpm` per minute in Redis, counted by
   * `effect/persistence`'s `RateLimiter` on a store that runs that module's token-bucket script
   * behind a deadline check. A refused call fails with `RateLimited` and `retryAfterMs`, as with
   * `layerMemory`. A call's command waits on Redis `timeoutMs` at most; past that, or while Redis
   * is unreachable, `onUnavailable` decides (logged with `Effect.logWarning` when it starts,
   * `Effect.logInfo` when Redis answers again). A command that Redis runs after its caller gave
   * up takes no token (the script is given the caller's deadline on Redis's clock, learnt with
   * `TIME` at each connection, and refuses to run past it); one that ran in time but whose answer
   * came too late gives its token back when the answer arrives (until then the bucket has one
   * token fewer: it errs towards fewer calls).
   *
   * What `effect/persistence` does not give and this layer adds: the deadline (its Redis store
   * has none, and escapes `%` in keys), `check` without taking a token (its `consume` of 0
   * tokens admits), `onUnavailable`, and a connection that is made in the background and
   * re-made after a drop (`@effect/platform-node`'s `NodeRedis.layer` fails to build while Redis
   * is down): see `layers/RateLimiterRedis*.ts`.
   *
   * Connecting is outside that budget: the connection is made when the layer is built and
   * re-made after a drop, and a call that comes meanwhile waits for it, up to 5 s from when it
   * started ("Redis unavailable: could not connect to host:port within 5 s" after that); a
   * connection attempt that fails (refused, reset) ends the wait at once. The connection is
   * closed with the layer's scope.
   *
   * Needs the package `redis` (node-redis, 5.1 to 6); it is loaded when the layer is built, so
   * importing the library does not load it. The clocks of the processes should agree (the
   * bucket is refilled on the caller's time); Redis's clock need not agree with theirs
   * (deadlines are set on Redis's own clock).
   *
   * @example
   * ```ts
   * import { RateLimiter, ToolSystem } from "effect-tool-system"
   *
   * const tools = ToolSystem.layerNode({
   *   rateLimiter: RateLimiter.layerRedis({
   *     redis: "redis://127.0.0.1:6379",
   *     onUnavailable: "fallback-memory"
   *   })
   * })
   * // per user: tools.execute("fetch_url", args, { rateLimitKey: userId })
   * ```
   */
  static readonly layerRedis = (options: RedisRateLimiterOptions = {}): Layer.Layer<RateLimiter> =>
    Layer.effect(
      RateLimiter,
      Effect.tryPromise({
        try: () => import("../layers/RateLimiterRedis.js"),
        catch: (cause) => new Error("RateLimiter.layerRedis needs the package redis (node-redis 5.1 to 6)", { cause })
      }).pipe(
        Effect.orDie,
        Effect.flatMap(({ makeRedisRateLimiter }) => makeRedisRateLimiter(options))
      )
    )
}
