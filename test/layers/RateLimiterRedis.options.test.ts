/**
 * How `RateLimiter.layerRedis` reads its connection (a URL, host and port, a node-redis client's
 * options, its reconnection strategy), the keys of its buckets, and the scripts its connection
 * loads (against a scripted Redis on 127.0.0.1, test/helpers/fakeRedis.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schedule } from "effect"
import { RateLimiter } from "../../src/index.js"
import { bucketKey, connectionOptions, MAX_KEY_CHARS } from "../../src/layers/RateLimiterRedis.js"
import { GIVE_BACK_LUA, TOKEN_BUCKET_LUA } from "../../src/layers/RateLimiterRedisStore.js"
import { fakeRedis } from "../helpers/fakeRedis.js"

describe("RateLimiter.layerRedis: the connection options", () => {
  it("reads every piece of a redis:// or rediss:// URL", () => {
    expect(connectionOptions(undefined)).toStrictEqual({ host: "127.0.0.1", port: 6379 })
    expect(connectionOptions("redis://cache.internal")).toStrictEqual({ host: "cache.internal", port: 6379, db: 0 })
    expect(connectionOptions("redis://cache.internal:7000/")).toStrictEqual({ host: "cache.internal", port: 7000, db: 0 })
    expect(connectionOptions("redis:///3")).toStrictEqual({ host: "127.0.0.1", port: 6379, db: 3 })
    expect(connectionOptions("redis://[::1]:7001/12")).toStrictEqual({ host: "::1", port: 7001, db: 12 })
    expect(connectionOptions("redis://[fd00::a:1]")).toStrictEqual({ host: "fd00::a:1", port: 6379, db: 0 })
    expect(connectionOptions("redis://us%40er:p%40ss%2Fw@cache:1/0")).toStrictEqual({
      host: "cache",
      port: 1,
      db: 0,
      username: "us@er",
      password: "p@ss/w"
    })
    expect(connectionOptions("redis://:secret@cache")).toStrictEqual({ host: "cache", port: 6379, db: 0, password: "secret" })
    expect(connectionOptions("rediss://cache:6380/1")).toStrictEqual({ host: "cache", port: 6380, db: 1, tls: {} })
  })

  it("refuses another scheme and a database that is not a number", () => {
    expect(() => connectionOptions("http://cache:6379")).toThrow("expected a redis:// or rediss:// URL, got http:")
    for (const db of ["x", "-1", "1.5"]) {
      expect(() => connectionOptions(`redis://cache/${db}`), db).toThrow(`"${db}" is not a database number`)
    }
  })

  it("a host and port keep only what is set; tls: true is TLS", () => {
    expect(connectionOptions({ host: "cache", port: undefined, db: undefined })).toStrictEqual({ host: "cache" })
    expect(connectionOptions({ port: 7000, password: "pw", tls: true })).toStrictEqual({ port: 7000, password: "pw", tls: {} })
    expect(connectionOptions({ host: "cache", tls: false })).toStrictEqual({ host: "cache" })
    expect(connectionOptions({ client: { options: { socket: { host: "cache", port: 7002 }, database: 4 } } })).toStrictEqual({
      host: "cache",
      port: 7002,
      db: 4
    })
  })

  it("a client's url is read, and its socket, database and credentials override it", () => {
    expect(connectionOptions({ client: { options: { url: "redis://us:pw@cache:7000/2" } } })).toStrictEqual({
      host: "cache",
      port: 7000,
      db: 2,
      username: "us",
      password: "pw"
    })
    const options = {
      url: "redis://cache:7000/2",
      socket: { host: "other", port: 7001 },
      database: 5,
      username: "u2",
      password: "p2"
    }
    expect(connectionOptions({ client: { options } })).toStrictEqual({ host: "other", port: 7001, db: 5, username: "u2", password: "p2" })
  })

  it("a client's socket path is kept; fields of the wrong type are ignored", () => {
    expect(connectionOptions({ client: { options: { socket: { path: "/run/redis.sock" } } } })).toStrictEqual({ path: "/run/redis.sock" })
    const wrong = { socket: { host: 5, port: "7000", path: 1, tls: "yes" }, database: "3", username: 1, password: null, url: 2 }
    expect(connectionOptions({ client: { options: wrong } })).toStrictEqual({})
    expect(connectionOptions({ client: { options: { socket: null } } })).toStrictEqual({})
  })

  it("a client's TLS socket keeps its TLS options, not the ones the limiter sets itself", () => {
    const socket = {
      tls: true,
      host: "cache",
      port: 6380,
      path: "/ignored",
      connectTimeout: 100,
      reconnectStrategy: 7,
      servername: "cache.example",
      rejectUnauthorized: false
    }
    expect(connectionOptions({ client: { options: { socket } } })).toStrictEqual({
      host: "cache",
      port: 6380,
      path: "/ignored",
      tls: { servername: "cache.example", rejectUnauthorized: false }
    })
  })

  it("a client's reconnection strategy is called with its arguments; an answer other than a pause or an Error stops", () => {
    const strategyOf = (reconnectStrategy: unknown) =>
      connectionOptions({ client: { options: { socket: { reconnectStrategy } } } }).reconnectStrategy
    const cause = new Error("refused")
    expect(strategyOf((retries: number, error: Error) => retries * 10 + error.message.length)?.(3, cause)).toBe(37)
    const stop = new Error("stop")
    expect(strategyOf(() => stop)?.(1, cause)).toBe(stop)
    expect(strategyOf(() => false)?.(1, cause)).toBe(false)
    expect(strategyOf(() => "soon")?.(1, cause)).toBe(false)
    expect(strategyOf(() => undefined)?.(1, cause)).toBe(false)
  })

  it("a host and port with a database and credentials keep them all", () => {
    expect(connectionOptions({ host: "cache", port: 7000, db: 2, username: "u", password: "p" })).toStrictEqual({
      host: "cache",
      port: 7000,
      db: 2,
      username: "u",
      password: "p"
    })
  })
})

describe("RateLimiter.layerRedis: bucket keys", () => {
  it("a lone surrogate is written as %u and its code in capitals", () => {
    expect(bucketKey("t", "a\uDABCb")).toBe("t/a%uDABCb")
    expect(bucketKey("t", "\uDC0F")).toBe("t/%uDC0F")
  })

  it(`a key of up to ${MAX_KEY_CHARS} encoded characters is written as it is; a longer one as its hash`, () => {
    expect(bucketKey("t", "k".repeat(MAX_KEY_CHARS))).toBe(`t/${"k".repeat(MAX_KEY_CHARS)}`)
    expect(bucketKey("t", "k".repeat(MAX_KEY_CHARS + 1))).toMatch(/^t\/#[0-9a-f]{64}$/)
  })
})

describe("RateLimiter.layerRedis: its connection", () => {
  it.live("loads the token-bucket and give-back scripts as it connects", () =>
    Effect.gen(function*() {
      const redis = yield* fakeRedis()
      yield* Layer.build(RateLimiter.layerRedis({ redis: redis.url }))
      const loaded = () => redis.connections.flatMap((connection) => connection.commands.filter(([name]) => name === "SCRIPT"))
      yield* Effect.suspend(() => loaded().length >= 2 ? Effect.void : Effect.fail(new Error("scripts not loaded yet"))).pipe(
        Effect.retry(Schedule.spaced("10 millis").pipe(Schedule.upTo({ duration: "2 seconds" })))
      )
      expect(loaded()).toEqual([["SCRIPT", "LOAD", TOKEN_BUCKET_LUA], ["SCRIPT", "LOAD", GIVE_BACK_LUA]])
    }))
})
