/**
 * The token buckets of `RateLimiter.layerRedis`, as a `RateLimiterStore` of `effect/persistence`'s
 * `RateLimiter` (its public store interface; that module's `RateLimiter` still does the counting
 * around it). The module's own Redis store (`makeStoreRedis`) cannot be used as it is: it cannot
 * give a command a deadline, and a command that Redis runs after the caller gave up must not
 * take a token; and it escapes `%` in keys, which would change the keys this library writes. So
 * this store runs that store's token-bucket script (word for word) with one check in front: the
 * caller's deadline, on Redis's clock, against `TIME` when the script runs. A script that ran in
 * time but whose answer came after the caller gave up gives its token back when the answer
 * arrives.
 *
 * Keys are the module store's: `{prefix}{key}` and `{prefix}{key}:refill` (with the expiry the
 * script gives them: once a bucket is full again it is gone, as good as a new one).
 *
 * @since 0.2.0
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { RateLimiterError, RateLimiterStore, RateLimitStoreError } from "effect/persistence/RateLimiter"
import * as Redis from "effect/persistence/Redis"
import type * as Scope from "effect/Scope"
import { performance } from "node:perf_hooks"
import { NOT_CONNECTED, type RedisLink, RedisUnavailable } from "./RateLimiterRedisLink.js"

/**
 * `effect/persistence`'s token bucket (`makeStoreRedis`), word for word after the first lines,
 * which refuse to run past ARGV[6], the caller's deadline in ms on Redis's clock (an error reply
 * starting `LATE`; nothing is read or written).
 */
export const TOKEN_BUCKET_LUA = `
local time = redis.call("TIME")
local late = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000 - tonumber(ARGV[6])
if late > 0 then
  return redis.error_reply("LATE the caller gave up " .. math.ceil(late) .. " ms ago")
end

local key = KEYS[1]
local last_refill_key = KEYS[2]
local tokens = tonumber(ARGV[1])
local refill_ms = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local now = tonumber(ARGV[4])
local overflow = ARGV[5] == "1"
local current = tonumber(redis.call("GET", key))
local last_refill = tonumber(redis.call("GET", last_refill_key))

if not current then current = limit end
if not last_refill then last_refill = now end

local elapsed = now - last_refill
local refill_amount = math.floor(elapsed / refill_ms)
if refill_amount > 0 then
  current = math.min(current + refill_amount, limit)
  last_refill = last_refill + (refill_amount * refill_ms)
end
if current >= limit then
  last_refill = now
end

local next = current - tokens
local stored = current
if next >= 0 or overflow then
  stored = next
end

elapsed = math.max(0, now - last_refill)
local ttl = math.ceil(math.ceil(limit - stored) * refill_ms - elapsed)
if ttl < 1 then ttl = 1 end
redis.call("SET", key, stored, "PX", ttl)
redis.call("SET", last_refill_key, last_refill, "PX", ttl)
-- Use 17 significant digits to round-trip both numbers.
return { string.format("%.17g", next), string.format("%.17g", elapsed) }
`

/**
 * Gives ARGV[1] tokens back to the bucket KEYS[1], up to its limit ARGV[2], keeping its expiry
 * (the count a later refill starts from is then the one it would have been without the take).
 */
export const GIVE_BACK_LUA = `
local current = tonumber(redis.call("GET", KEYS[1]))
if not current then return 0 end
local next = math.min(current + tonumber(ARGV[1]), tonumber(ARGV[2]))
local ttl = redis.call("PTTL", KEYS[1])
if ttl > 0 then redis.call("SET", KEYS[1], next, "PX", ttl) else redis.call("SET", KEYS[1], next) end
return 1
`

const tokenBucketScript = Redis.script(
  (
    key: string,
    refillKey: string,
    tokens: number,
    refillMs: number,
    limit: number,
    now: number,
    overflow: 0 | 1,
    deadline: string
  ) => [key, refillKey, tokens, refillMs, limit, now, overflow, deadline],
  { numberOfKeys: 2, lua: TOKEN_BUCKET_LUA }
).withReturnType<unknown>()

const giveBackScript = Redis.script(
  (key: string, tokens: number, limit: number) => [key, tokens, limit],
  { numberOfKeys: 1, lua: GIVE_BACK_LUA }
).withReturnType<unknown>()

/** The error a failed command gave, as an `Error`. */
const causeOf = (error: Redis.RedisError): Error =>
  error.cause instanceof Error ? error.cause : new Error(String(error.cause))

/** What a failed command says, for a `reason`. */
const describe = (error: Error, timeoutMs: number): string => {
  // node-redis's words for a command sent while (or in flight as) the connection is lost
  const lost = ["The client is offline", "The client is closed", "Socket closed unexpectedly", "Disconnects client"]
  if (lost.includes(error.message)) return NOT_CONNECTED
  if (error.message.startsWith("LATE ")) return `no answer within ${timeoutMs} ms`
  return error.message
}

/** `[remaining, elapsedMillis]` from the script's reply. */
const parseReply = (reply: unknown): Effect.Effect<readonly [number, number], Redis.RedisError> => {
  const [remaining, elapsed] = Array.isArray(reply) ? reply.map(Number) : []
  return remaining !== undefined && elapsed !== undefined && Number.isFinite(remaining) && Number.isFinite(elapsed)
    ? Effect.succeed([remaining, elapsed])
    : Effect.fail(
      new Redis.RedisError({ cause: new Error(`Redis answered the token bucket with ${JSON.stringify(reply)}`) })
    )
}

const storeError = (message: string, cause?: unknown) =>
  new RateLimiterError({ reason: new RateLimitStoreError({ message, cause }) })

/**
 * The store on `link`: each command may take `timeoutMs` from the moment it is sent, and waits
 * for the connection before that (see `RedisLink.connected`). Commands run in the scope, so an
 * answer that comes after its caller gave up is still read.
 */
export const makeBudgetedStore = (
  link: RedisLink,
  options: { readonly prefix: string; readonly timeoutMs: number }
): Effect.Effect<RateLimiterStore["Service"], never, Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const { prefix, timeoutMs } = options
    const tokenBucket = link.redis.eval(tokenBucketScript)
    const giveBack = link.redis.eval(giveBackScript)

    /** After the caller gave up: when the answer comes and says tokens were taken, give them back. */
    const settleLate = (
      answer: Fiber.Fiber<readonly [number, number], Redis.RedisError>,
      key: string,
      bucket: { readonly tokens: number; readonly limit: number; readonly allowOverflow: boolean }
    ) =>
      Effect.forkIn(
        Fiber.join(answer).pipe(
          Effect.matchEffect({
            onFailure: (error) =>
              causeOf(error).message.startsWith("LATE ")
                ? Effect.logDebug(`RateLimiter.layerRedis: a command Redis ran too late took no token (${causeOf(error).message})`)
                // lost with the connection: if the script ran in time its token stays taken
                // (fewer calls, never more); if it ran later, its deadline refused it
                : Effect.logDebug(`RateLimiter.layerRedis: the answer of a late command was lost (${causeOf(error).message})`),
            onSuccess: ([remaining]) =>
              bucket.tokens > 0 && (bucket.allowOverflow || remaining >= 0)
                ? giveBack(key, bucket.tokens, bucket.limit).pipe(
                  Effect.andThen(Effect.logDebug("RateLimiter.layerRedis: gave back the token of a call Redis answered late")),
                  Effect.catch((error) =>
                    Effect.logWarning("RateLimiter.layerRedis: could not give back the token of a call Redis answered late", error.cause)
                  )
                )
                : Effect.void
          })
        ),
        scope
      )

    const bucket: RateLimiterStore["Service"]["tokenBucket"] = (request) =>
      Effect.gen(function*() {
        const offsetMs = yield* link.connected
        const now = yield* Clock.currentTimeMillis
        const key = `${prefix}${request.key}`
        // the moment this caller gives up, on Redis's clock
        const deadline = performance.now() + offsetMs + timeoutMs
        const answer = yield* Effect.forkIn(
          Effect.flatMap(
            tokenBucket(
              key,
              `${key}:refill`,
              request.tokens,
              Duration.toMillis(request.refillRate),
              request.limit,
              now,
              request.allowOverflow ? 1 : 0,
              deadline.toFixed(3)
            ),
            parseReply
          ),
          scope
        )
        const late = settleLate(answer, key, request)
        return yield* Fiber.join(answer).pipe(
          Effect.timeout(timeoutMs),
          Effect.onInterrupt(() => late),
          Effect.catchTag("TimeoutError", () =>
            Effect.andThen(late, Effect.fail(new RedisUnavailable({ reason: `no answer within ${timeoutMs} ms` })))),
          Effect.catchTag("RedisError", (error) =>
            Effect.fail(new RedisUnavailable({ reason: describe(causeOf(error), timeoutMs) })))
        )
      }).pipe(
        Effect.mapError((cause) => storeError("Failed to execute tokenBucket rate limiting command", cause))
      )

    const only = storeError("RateLimiter.layerRedis keeps token buckets only")
    return RateLimiterStore.of({
      fixedWindow: () => Effect.fail(only),
      tokenBucket: bucket,
      adaptiveConsume: () => Effect.fail(only),
      adaptiveFeedback: () => Effect.fail(only)
    })
  })
