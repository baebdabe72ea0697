/**
 * The token buckets of `RateLimiter.layerRedis`, as a `RateLimiterStore` of
 * `@effect/experimental`'s `RateLimiter` (its public store interface; the package's `RateLimiter`
 * still does the counting around it). The package's own Redis store cannot give a command a
 * deadline, and a command that Redis runs after the caller gave up must not take a token, so this
 * store runs the package's token-bucket script with one check in front: the caller's deadline,
 * on Redis's clock, against `TIME` when the script runs. A script that ran in time but whose
 * answer came after the caller gave up gives its token back when the answer arrives.
 *
 * Keys are the package store's: `{prefix}{key}` and `{prefix}{key}:refill`.
 *
 * @since 0.2.0
 */
import { RateLimiterStore, RateLimitStoreError } from "@effect/experimental/RateLimiter"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"
import { createHash } from "node:crypto"
import { performance } from "node:perf_hooks"
import { command, NOT_CONNECTED, type RedisLink, RedisUnavailable } from "./RateLimiterRedisLink.js"

/** A Lua script and its SHA-1 (for `EVALSHA`). */
interface Script {
  readonly lua: string
  readonly sha: string
}

const script = (lua: string): Script => ({ lua, sha: createHash("sha1").update(lua).digest("hex") })

/**
 * `@effect/experimental`'s token bucket (`RateLimiter/Redis`), word for word after the first
 * lines, which refuse to run past ARGV[6], the caller's deadline in ms on Redis's clock (an
 * error reply starting `LATE`; nothing is read or written).
 */
export const TOKEN_BUCKET: Script = script(`
if redis.replicate_commands then redis.replicate_commands() end
local time = redis.call("TIME")
local late = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000 - tonumber(ARGV[6])
if late > 0 then
  return redis.error_reply("LATE the caller gave up " .. math.ceil(late) .. " ms ago")
end

local key = KEYS[1]
local last_refill_key = key .. ":refill"
local tokens = tonumber(ARGV[1])
local refill_ms = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local now = tonumber(ARGV[4])
local overflow = ARGV[5] == "1"
local current = tonumber(redis.call("GET", key))
local last_refill = tonumber(redis.call("GET", last_refill_key))

if not current then
  current = limit
  last_refill = now
  redis.call("SET", key, current)
  redis.call("SET", last_refill_key, last_refill)
end

local elapsed = now - last_refill
local refill_amount = math.floor(elapsed / refill_ms)
if refill_amount > 0 then
  current = math.min(current + refill_amount, limit)
  last_refill = last_refill + (refill_amount * refill_ms)
  redis.call("SET", last_refill_key, last_refill)
end

local next = current - tokens
if next < 0 and not overflow then
  redis.call("SET", key, current)
  return next
end

redis.call("SET", key, next)
return next
`)

/**
 * Gives ARGV[1] tokens back to the bucket KEYS[1], up to its limit ARGV[2] (the count a later
 * refill starts from is then the one it would have been without the take).
 */
export const GIVE_BACK: Script = script(`
local current = tonumber(redis.call("GET", KEYS[1]))
if not current then return 0 end
redis.call("SET", KEYS[1], math.min(current + tonumber(ARGV[1]), tonumber(ARGV[2])))
return 1
`)

/** What a failed command says, for a `reason`. */
const describe = (error: Error, timeoutMs: number): string => {
  // ioredis's words for a command in flight when the connection was lost, and for one sent as it
  // is lost (before its close event reached the link)
  if (error.name === "MaxRetriesPerRequestError") return NOT_CONNECTED
  if (error.message.startsWith("Stream isn't writeable") || error.message === "Connection is closed.") return NOT_CONNECTED
  if (error.message.startsWith("LATE ")) return `no answer within ${timeoutMs} ms`
  return error.message
}

/**
 * The store on `link`: each command may take `timeoutMs` from the moment it is sent, and waits
 * for the connection before that (see `RedisLink.connected`). Commands run in the scope, so an
 * answer that comes after its caller gave up is still read.
 */
export const makeBudgetedStore = (
  link: RedisLink,
  options: { readonly prefix: string; readonly timeoutMs: number }
): Effect.Effect<Context.Tag.Service<RateLimiterStore>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const { prefix, timeoutMs } = options
    const { client } = link

    const evalScript = (run: Script, key: string, args: ReadonlyArray<string | number>) =>
      command(() => client.evalsha(run.sha, 1, key, ...args)).pipe(
        // Redis's script cache was flushed since the connection loaded it
        Effect.catchIf(
          (error) => error.message.startsWith("NOSCRIPT"),
          () => command(() => client.eval(run.lua, 1, key, ...args))
        )
      )

    const count = (reply: unknown): Effect.Effect<number, Error> =>
      typeof reply === "number"
        ? Effect.succeed(reply)
        : Effect.fail(new Error(`Redis answered the token bucket with ${JSON.stringify(reply)}`))

    /** After the caller gave up: when the answer comes and says tokens were taken, give them back. */
    const settleLate = (
      answer: Fiber.Fiber<number, Error>,
      key: string,
      bucket: { readonly tokens: number; readonly limit: number; readonly allowOverflow: boolean }
    ) =>
      Effect.forkIn(
        Fiber.join(answer).pipe(
          Effect.matchEffect({
            onFailure: (error) =>
              error.message.startsWith("LATE ")
                ? Effect.logDebug(`RateLimiter.layerRedis: a command Redis ran too late took no token (${error.message})`)
                // lost with the connection: if the script ran in time its token stays taken
                // (fewer calls, never more); if it ran later, its deadline refused it
                : Effect.logDebug(`RateLimiter.layerRedis: the answer of a late command was lost (${error.message})`),
            onSuccess: (remaining) =>
              bucket.tokens > 0 && (bucket.allowOverflow || remaining >= 0)
                ? evalScript(GIVE_BACK, key, [bucket.tokens, bucket.limit]).pipe(
                  Effect.zipRight(Effect.logDebug("RateLimiter.layerRedis: gave back the token of a call Redis answered late")),
                  Effect.catchAll((error) =>
                    Effect.logWarning("RateLimiter.layerRedis: could not give back the token of a call Redis answered late", error)
                  )
                )
                : Effect.void
          })
        ),
        scope
      )

    const tokenBucket: Context.Tag.Service<RateLimiterStore>["tokenBucket"] = (bucket) =>
      Effect.gen(function*() {
        const offsetMs = yield* link.connected
        const now = yield* Clock.currentTimeMillis
        const key = `${prefix}${bucket.key}`
        // the moment this caller gives up, on Redis's clock
        const deadline = performance.now() + offsetMs + timeoutMs
        const args = [
          bucket.tokens,
          Duration.toMillis(bucket.refillRate),
          bucket.limit,
          now,
          bucket.allowOverflow ? 1 : 0,
          deadline.toFixed(3)
        ]
        const answer = yield* Effect.forkIn(Effect.flatMap(evalScript(TOKEN_BUCKET, key, args), count), scope)
        const late = settleLate(answer, key, bucket)
        return yield* Fiber.join(answer).pipe(
          Effect.timeout(timeoutMs),
          Effect.onInterrupt(() => late),
          Effect.catchTag("TimeoutException", () =>
            Effect.zipRight(late, Effect.fail(new RedisUnavailable({ reason: `no answer within ${timeoutMs} ms` })))),
          Effect.mapError((error) =>
            error instanceof RedisUnavailable ? error : new RedisUnavailable({ reason: describe(error, timeoutMs) })
          )
        )
      }).pipe(
        Effect.mapError((cause) =>
          new RateLimitStoreError({ message: "Failed to execute tokenBucket rate limiting command", cause })
        )
      )

    return RateLimiterStore.of({
      fixedWindow: () =>
        Effect.fail(new RateLimitStoreError({ message: "RateLimiter.layerRedis keeps token buckets only" })),
      tokenBucket
    })
  })
