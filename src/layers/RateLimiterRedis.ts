/**
 * The rate limits of `RateLimiter.layerRedis`: token buckets in Redis, shared by every process
 * that uses it, counted by `effect/persistence`'s `RateLimiter` on a store of ours
 * (`RateLimiterRedisStore.ts`: that module's token-bucket script, run against a deadline) over a
 * connection made outside any call's budget (`RateLimiterRedisLink.ts`, node-redis).
 * `RateLimiter.layerRedis` imports this module when its layer is built: it loads `redis`.
 *
 * What is added on top of `effect/persistence`'s `RateLimiter`: `check` (it asks the store for 0
 * tokens and refuses when less than one is left: the module's `consume` admits a request of 0
 * tokens), the mapping of its errors to `RateLimited`, and `onUnavailable` (the module fails with
 * a `RateLimitStoreError` and has no fallback).
 *
 * Keys: `{prefix}{tool}` and, with a rate-limit key, `{prefix}{tool}/{encodeKey(key)}` (its
 * URI encoding; any string, lone surrogates and NULs included, and a long one hashed)
 * (tool names have no `/`, encoded keys have no `/` or `:`, so no two buckets share a key,
 * nor a key the store derives from one, `…:refill`).
 *
 * @since 0.2.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as PersistenceRateLimiter from "effect/persistence/RateLimiter"
import type * as Scope from "effect/Scope"
import { createHash } from "node:crypto"
import { RateLimited } from "../domain/errors.js"
import type { ToolInfo } from "../domain/Tool.js"
import type { RateLimiterService, RedisConnection, RedisRateLimiterOptions } from "../services/RateLimiter.js"
import { makeTokenBuckets } from "./RateLimiter.js"
import { makeRedisLink, RECONNECT_MAX_MS, type ReconnectStrategy, type RedisEndpoint, RedisUnavailable } from "./RateLimiterRedisLink.js"
import { GIVE_BACK_LUA, makeBudgetedStore, TOKEN_BUCKET_LUA } from "./RateLimiterRedisStore.js"

export { CONNECT_TIMEOUT_MS, RECONNECT_MAX_MS } from "./RateLimiterRedisLink.js"

/** The default key prefix. */
export const DEFAULT_PREFIX = "effect-tool-system:ratelimit:"
/**
 * The default longest wait on Redis for one call's command, in milliseconds (connecting is not
 * part of it: see `CONNECT_TIMEOUT_MS`).
 */
export const DEFAULT_TIMEOUT_MS = 200

const WINDOW = Duration.minutes(1)

/** What each `onUnavailable` does, for the log line. */
const DECISIONS = {
  "fail-closed": "refusing rate-limited calls",
  "fallback-memory": "applying the rate limits per process"
} as const

/** Longest rate-limit key written as it is (encoded); a longer one is written as its hash. */
export const MAX_KEY_CHARS = 256

/** A lone surrogate: a UTF-16 half that `encodeURIComponent` refuses (`URI malformed`). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/**
 * A rate-limit key as it is written: URI-encoded, with each lone surrogate as `%uXXXX` (a `%`
 * of the key itself is `%25`, so no two keys meet); a key longer than `MAX_KEY_CHARS` as `#`
 * and the SHA-256 of its encoding (`#` is `%23` in an encoded key). Never throws.
 */
const encodeKey = (key: string): string => {
  let encoded = ""
  let from = 0
  for (const half of key.matchAll(LONE_SURROGATE)) {
    encoded += `${encodeURIComponent(key.slice(from, half.index))}%u${half[0].charCodeAt(0).toString(16).toUpperCase()}`
    from = half.index + 1
  }
  encoded += encodeURIComponent(key.slice(from))
  return encoded.length <= MAX_KEY_CHARS ? encoded : `#${createHash("sha256").update(encoded).digest("hex")}`
}

/** The bucket's key in Redis, below the prefix. */
export const bucketKey = (tool: string, key: string | undefined): string =>
  key === undefined ? tool : `${tool}/${encodeKey(key)}`

/** A `redis://` or `rediss://` URL as an endpoint (throws on another URL). */
const fromUrl = (url: string): RedisEndpoint => {
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

/** A field of an options object, if it is there. */
const field = (options: object, name: string): unknown => name in options ? Reflect.get(options, name) : undefined
const text = (options: object, name: string): string | undefined => {
  const value = field(options, name)
  return typeof value === "string" ? value : undefined
}
const count = (options: object, name: string): number | undefined => {
  const value = field(options, name)
  return typeof value === "number" ? value : undefined
}

/** What the link sets on the socket itself, left out of a client's TLS options. */
const OWN_SOCKET_OPTIONS = new Set(["connectTimeout", "reconnectStrategy", "host", "port", "path", "tls"])

/** A client's `reconnectStrategy`, called (a number, `false` or an `Error`; anything else is `false`). */
const strategyOf = (strategy: unknown): ReconnectStrategy | undefined =>
  typeof strategy === "function"
    ? (retries, cause) => {
      const result: unknown = Reflect.apply(strategy, undefined, [retries, cause])
      return typeof result === "number" || result instanceof Error ? result : false
    }
    : undefined

/** The endpoint of a node-redis client's options (`url`, `socket`, `database`, credentials). */
const fromClientOptions = (options: object): RedisEndpoint => {
  const url = text(options, "url")
  const found = field(options, "socket")
  const socket: object = typeof found === "object" && found !== null ? found : {}
  const host = text(socket, "host")
  const port = count(socket, "port")
  const path = text(socket, "path")
  const db = count(options, "database")
  const username = text(options, "username")
  const password = text(options, "password")
  const reconnectStrategy = strategyOf(field(socket, "reconnectStrategy"))
  const tls = field(socket, "tls") === true
    ? Object.fromEntries(Object.entries(socket).filter(([name]) => !OWN_SOCKET_OPTIONS.has(name)))
    : undefined
  return {
    ...(url === undefined ? {} : fromUrl(url)),
    ...(host === undefined ? {} : { host }),
    ...(port === undefined ? {} : { port }),
    ...(path === undefined ? {} : { path }),
    ...(db === undefined ? {} : { db }),
    ...(username === undefined ? {} : { username }),
    ...(password === undefined ? {} : { password }),
    ...(tls === undefined ? {} : { tls }),
    ...(reconnectStrategy === undefined ? {} : { reconnectStrategy })
  }
}

/** The endpoint of a `RedisConnection` (default `127.0.0.1:6379`); throws on a bad URL. */
export const connectionOptions = (connection: RedisConnection | undefined): RedisEndpoint => {
  if (connection === undefined) return { host: "127.0.0.1", port: 6379 }
  if (typeof connection === "string") return fromUrl(connection)
  if ("client" in connection) return fromClientOptions(connection.client.options)
  const { db, host, password, port, tls, username } = connection
  return {
    ...(host === undefined ? {} : { host }),
    ...(port === undefined ? {} : { port }),
    ...(db === undefined ? {} : { db }),
    ...(username === undefined ? {} : { username }),
    ...(password === undefined ? {} : { password }),
    ...(tls === true ? { tls: {} } : {})
  }
}

/** What the store's error says, for a `reason`. */
const describe = (cause: unknown): string =>
  cause instanceof RedisUnavailable ? cause.reason : cause instanceof Error ? cause.message : String(cause)

/**
 * The service of `RateLimiter.layerRedis`; the Redis connection is closed with the scope.
 */
export const makeRedisRateLimiter = (
  options: RedisRateLimiterOptions
): Effect.Effect<RateLimiterService, never, Scope.Scope> =>
  Effect.gen(function*() {
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    const policy = options.onUnavailable ?? "fail-closed"
    const endpoint = yield* Effect.try({
      try: () => connectionOptions(options.redis),
      catch: (cause) => new Error(`RateLimiter.layerRedis: bad redis connection: ${describe(cause)}`, { cause })
    }).pipe(Effect.orDie)

    const link = yield* makeRedisLink(endpoint, [TOKEN_BUCKET_LUA, GIVE_BACK_LUA])
    const store = yield* makeBudgetedStore(link, { prefix: options.prefix ?? DEFAULT_PREFIX, timeoutMs })
    const limiter = yield* PersistenceRateLimiter.make.pipe(
      Effect.provideService(PersistenceRateLimiter.RateLimiterStore, store)
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
        return Effect.andThen(Effect.annotateLogs(log, { tool: tool.name, reason, onUnavailable: policy }), decision)
      })

    /** Takes a token (`take`) or looks whether one is there (asks the store for 0 tokens). */
    const use = (tool: ToolInfo, key: string | undefined, take: boolean): Effect.Effect<void, RateLimited> => {
      const rpm = tool.rateLimitRpm
      if (rpm === undefined) return Effect.void
      return limiter.consume({
        // the only algorithm the store keeps
        algorithm: "token-bucket",
        onExceeded: "fail",
        window: WINDOW,
        limit: rpm,
        key: bucketKey(tool.name, key),
        tokens: take ? 1 : 0
      }).pipe(
        // the store bounds the wait: the connection, then `timeoutMs` for the command
        Effect.matchEffect({
          onSuccess: (result) =>
            Effect.andThen(
              answered,
              take || result.remaining >= 1
                ? Effect.void
                : Effect.fail(
                  new RateLimited({ tool: tool.name, limitRpm: rpm, retryAfterMs: Math.ceil(60_000 / rpm) })
                )
            ),
          onFailure: ({ reason }) => {
            if (reason._tag === "RateLimitStoreError") {
              return unavailable(tool, rpm, key, take, `Redis unavailable: ${describe(reason.cause ?? reason.message)}`)
            }
            const retryAfterMs = Math.ceil(Duration.toMillis(reason.retryAfter))
            return Effect.andThen(
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
