/**
 * The rate limits of `RateLimiter.layerRedis`: token buckets in Redis, shared by every process
 * that uses it, kept by `@effect/experimental`'s `RateLimiter` and its Redis store (ioredis).
 * `RateLimiter.layerRedis` imports this module when its layer is built: it loads ioredis.
 *
 * Keys: `{prefix}{tool}` and, with a rate-limit key, `{prefix}{tool}/{encodeURIComponent(key)}`
 * (tool names have no `/`, encoded keys have no `/` or `:`, so no two buckets share a key,
 * nor a key the store derives from one, `…:refill`).
 *
 * @since 0.2.0
 */
import * as ExperimentalRateLimiter from "@effect/experimental/RateLimiter"
import * as RedisStore from "@effect/experimental/RateLimiter/Redis"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import type { RedisOptions } from "ioredis"
import { RateLimited } from "../domain/errors.js"
import type { ToolInfo } from "../domain/Tool.js"
import type { RateLimiterService, RedisConnection, RedisRateLimiterOptions } from "../services/RateLimiter.js"
import { makeTokenBuckets } from "./RateLimiter.js"

/** The default key prefix. */
export const DEFAULT_PREFIX = "effect-tool-system:ratelimit:"
/** The default longest wait on Redis for one call, in milliseconds. */
export const DEFAULT_TIMEOUT_MS = 200
/**
 * The longest pause between two reconnection attempts, in milliseconds; also the
 * `retryAfterMs` of a call refused because Redis did not answer (by then it was tried again).
 */
export const RECONNECT_MAX_MS = 1000

const WINDOW = Duration.minutes(1)

type StoreOptions = Parameters<typeof RedisStore.make>[0]

/** What each `onUnavailable` does, for the log line. */
const DECISIONS = {
  "fail-closed": "refusing rate-limited calls",
  "fallback-memory": "applying the rate limits per process"
} as const

/** The bucket's key in Redis, below the prefix. */
export const bucketKey = (tool: string, key: string | undefined): string =>
  key === undefined ? tool : `${tool}/${encodeURIComponent(key)}`

/** A `redis://` or `rediss://` URL as ioredis options (throws on another URL). */
const fromUrl = (url: string): RedisOptions => {
  const parsed = new URL(url)
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") {
    throw new Error(`expected a redis:// or rediss:// URL, got ${parsed.protocol}`)
  }
  // no path, or "/": database 0 (Number("") is 0)
  const db = Number(parsed.pathname.slice(1))
  if (!Number.isInteger(db) || db < 0) throw new Error(`"${parsed.pathname.slice(1)}" is not a database number`)
  return {
    host: parsed.hostname === "" ? "127.0.0.1" : parsed.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: parsed.port === "" ? 6379 : Number(parsed.port),
    db,
    ...(parsed.username === "" ? {} : { username: decodeURIComponent(parsed.username) }),
    ...(parsed.password === "" ? {} : { password: decodeURIComponent(parsed.password) }),
    ...(parsed.protocol === "rediss:" ? { tls: {} } : {})
  }
}

/** The ioredis options of a `RedisConnection` (default `127.0.0.1:6379`); throws on a bad URL. */
export const connectionOptions = (connection: RedisConnection | undefined): RedisOptions => {
  if (connection === undefined) return { host: "127.0.0.1", port: 6379 }
  if (typeof connection === "string") return fromUrl(connection)
  if ("client" in connection) return { ...connection.client.options }
  const { tls, ...endpoint } = connection
  const options: RedisOptions = {}
  for (const [name, value] of Object.entries(endpoint)) {
    if (value !== undefined) Object.assign(options, { [name]: value })
  }
  return tls === true ? { ...options, tls: {} } : options
}

/** What the store's error says, for a `reason`. */
const describe = (cause: unknown): string => {
  if (!(cause instanceof Error)) return String(cause)
  // ioredis's words for a command refused while it reconnects
  if (cause.name === "MaxRetriesPerRequestError") return "not connected (reconnecting)"
  return cause.message
}

/**
 * The service of `RateLimiter.layerRedis`; the Redis connection is closed with the scope.
 */
export const makeRedisRateLimiter = (
  options: RedisRateLimiterOptions
): Effect.Effect<RateLimiterService, never, Scope.Scope> =>
  Effect.gen(function*() {
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    const policy = options.onUnavailable ?? "fail-closed"
    const base = yield* Effect.try({
      try: () => connectionOptions(options.redis),
      catch: (cause) => new Error(`RateLimiter.layerRedis: bad redis connection: ${describe(cause)}`, { cause })
    }).pipe(Effect.orDie)

    // Set when the layer closes: the client then stops reconnecting, so a connection to a Redis
    // that is down cannot keep the process alive after its scope.
    let closing = false
    // (the store's declared options type `disconnectTimeout` and `tls` without `| undefined`)
    const { disconnectTimeout, retryStrategy: retry, tls, ...rest } = base
    const redisOptions: StoreOptions = {
      connectTimeout: RECONNECT_MAX_MS,
      ...rest,
      ...(disconnectTimeout === undefined ? {} : { disconnectTimeout }),
      ...(tls === undefined ? {} : { tls }),
      prefix: options.prefix ?? DEFAULT_PREFIX,
      // A command gets no answer after `timeoutMs`: it fails (the call also stops waiting then).
      commandTimeout: timeoutMs,
      // While disconnected, a command waits in the offline queue only until the next failed
      // connection attempt (at most `RECONNECT_MAX_MS`), never longer; one that timed out
      // meanwhile may still be sent once the connection is back: it then takes a token for a
      // call that was refused (it errs towards fewer calls, never more).
      enableOfflineQueue: true,
      maxRetriesPerRequest: 0,
      // Stryker disable next-line BooleanLiteral: with maxRetriesPerRequest 0 a lost connection fails the commands in flight, leaving none to resend
      autoResendUnfulfilledCommands: false,
      retryStrategy: (attempt) =>
        closing ? null : retry === undefined ? Math.min(attempt * 50, RECONNECT_MAX_MS) : retry(attempt)
    }
    // The store's connection lives in a scope of its own: closing it (QUIT) fails when Redis is
    // down, which is logged rather than failing the release of the layer.
    const connection = yield* Effect.acquireRelease(Scope.make(), (scope, exit) =>
      Effect.sync(() => {
        closing = true
      }).pipe(
        Effect.zipRight(Scope.close(scope, exit)),
        Effect.catchAllCause((cause) =>
          Effect.logWarning("RateLimiter.layerRedis: closing the Redis connection failed", cause)
        )
      ))
    const store = yield* Scope.extend(RedisStore.make(redisOptions), connection)
    const limiter = yield* ExperimentalRateLimiter.make.pipe(
      Effect.provideService(ExperimentalRateLimiter.RateLimiterStore, store)
    )
    const memory = makeTokenBuckets()

    // Whether Redis answered the last call: each change is logged once.
    let available = true
    const answered = Effect.suspend(() => {
      if (available) return Effect.void
      available = true
      return Effect.logInfo("RateLimiter.layerRedis: Redis answers again; shared rate limits resumed")
    })
    const unavailable = (tool: ToolInfo, rpm: number, key: string | undefined, take: boolean, reason: string) =>
      Effect.suspend(() => {
        const log = available
          ? Effect.logWarning(`RateLimiter.layerRedis: Redis unavailable; ${DECISIONS[policy]} until it answers (${policy})`)
          : Effect.logDebug("RateLimiter.layerRedis: Redis still unavailable")
        available = false
        const decision = policy === "fail-closed"
          ? Effect.fail(new RateLimited({ tool: tool.name, limitRpm: rpm, retryAfterMs: RECONNECT_MAX_MS, reason }))
          : take
          ? memory.acquire(tool, key)
          : memory.check(tool, key)
        return Effect.zipRight(Effect.annotateLogs(log, { tool: tool.name, reason, onUnavailable: policy }), decision)
      })

    /** Takes a token (`take`) or looks whether one is there (asks the store for 0 tokens). */
    const use = (tool: ToolInfo, key: string | undefined, take: boolean): Effect.Effect<void, RateLimited> => {
      const rpm = tool.rateLimitRpm
      if (rpm === undefined) return Effect.void
      return limiter.consume({
        // Stryker disable next-line StringLiteral: the store takes every algorithm but "fixed-window" as the token bucket
        algorithm: "token-bucket",
        onExceeded: "fail",
        window: WINDOW,
        limit: rpm,
        key: bucketKey(tool.name, key),
        tokens: take ? 1 : 0
      }).pipe(
        Effect.timeout(timeoutMs),
        Effect.matchEffect({
          onSuccess: (result) =>
            Effect.zipRight(
              answered,
              take || result.remaining >= 1
                ? Effect.void
                : Effect.fail(
                  new RateLimited({ tool: tool.name, limitRpm: rpm, retryAfterMs: Math.ceil(60_000 / rpm) })
                )
            ),
          onFailure: (error) => {
            if (error._tag === "TimeoutException") {
              return unavailable(tool, rpm, key, take, `Redis unavailable: no answer within ${timeoutMs} ms`)
            }
            if (error.reason === "StoreError") {
              const why = error.cause instanceof Error && error.cause.message === "Command timed out"
                ? `no answer within ${timeoutMs} ms`
                : describe(error.cause ?? error.message)
              return unavailable(tool, rpm, key, take, `Redis unavailable: ${why}`)
            }
            const retryAfterMs = Math.ceil(Duration.toMillis(error.retryAfter))
            return Effect.zipRight(
              answered,
              Effect.fail(new RateLimited({ tool: tool.name, limitRpm: rpm, retryAfterMs }))
            )
          }
        })
      )
    }

    return {
      acquire: (tool, key) => use(tool, key, true),
      check: (tool, key) => use(tool, key, false)
    }
  })
