/**
 * The Redis connection of `RateLimiter.layerRedis` (`makeRedisLink`) against a scripted Redis
 * on 127.0.0.1 (test/helpers/fakeRedis.ts): what its handshake sends (database, credentials,
 * scripts), where it connects (host and port, a Unix socket, TLS), how it reads Redis's clock,
 * and what a call waiting for it sees when setting up fails or a ready connection is lost.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Logger, References, Schedule, Scope } from "effect"
import { TestClock } from "effect/testing"
import * as path from "node:path"
import { performance } from "node:perf_hooks"
import { CLOSED, makeRedisLink, NOT_CONNECTED, type RedisEndpoint } from "../../src/layers/RateLimiterRedisLink.js"
import { array, type FakeAnswer, type FakeConnection, fakeRedis } from "../helpers/fakeRedis.js"
import { tempDir } from "../helpers/tempDir.js"

/** Retries `check` every 10 ms for up to 2 s. */
const eventually = <A, E>(check: Effect.Effect<A, E>) =>
  Effect.retry(check, Schedule.spaced("10 millis").pipe(Schedule.upTo({ duration: "2 seconds" })))

const holds = (condition: () => boolean, what: string) =>
  eventually(Effect.suspend(() => condition() ? Effect.void : Effect.fail(new Error(`not yet: ${what}`))))

/** A pause on the real clock (for tests on the TestClock, whose sleeps wait for the test). */
const realPause = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

/** `holds` on the real clock. */
const holdsReally = (condition: () => boolean, what: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 200 && !condition(); i++) yield* realPause(10)
    if (!condition()) return yield* Effect.fail(new Error(`never: ${what}`))
  })

const reasonOf = (link: { readonly connected: Effect.Effect<number, { readonly reason: string }> }) =>
  Effect.map(Effect.flip(link.connected), (error) => error.reason)

/** The TIME commands answered so far on `connection`. */
const timesAsked = (connection: FakeConnection) => connection.commands.filter(([name]) => name === "TIME").length

const SECOND_MS = 1_700_000_000_000

describe("makeRedisLink", () => {
  it.live("sends the database and the credentials in its handshake, and loads the scripts", () =>
    Effect.gen(function*() {
      const redis = yield* fakeRedis()
      const endpoint: RedisEndpoint = { host: "127.0.0.1", port: redis.port, db: 3, username: "u", password: "p" }
      const link = yield* makeRedisLink(endpoint, ["return 1", "return 2"])
      yield* link.connected
      const [connection] = redis.connections
      const commands = connection?.commands ?? []
      expect(commands.find(([name]) => name === "HELLO")).toEqual(["HELLO", "3", "AUTH", "u", "p"])
      expect(commands).toContainEqual(["SELECT", "3"])
      expect(commands.filter(([name]) => name === "SCRIPT")).toEqual([
        ["SCRIPT", "LOAD", "return 1"],
        ["SCRIPT", "LOAD", "return 2"]
      ])
    }))

  it.live("without a database or credentials, the handshake selects none and does not authenticate", () =>
    Effect.gen(function*() {
      const redis = yield* fakeRedis()
      const link = yield* makeRedisLink({ host: "127.0.0.1", port: redis.port }, [])
      yield* link.connected
      const commands = redis.connections[0]?.commands ?? []
      expect(commands.find(([name]) => name === "HELLO")).toEqual(["HELLO", "3"])
      expect(commands.filter(([name]) => name === "SELECT" || name === "AUTH")).toEqual([])
    }))

  it.live("a password without a username authenticates as the default user", () =>
    Effect.gen(function*() {
      const redis = yield* fakeRedis()
      const link = yield* makeRedisLink({ host: "127.0.0.1", port: redis.port, password: "only" }, [])
      yield* link.connected
      expect(redis.connections[0]?.commands.find(([name]) => name === "HELLO")).toEqual(["HELLO", "3", "AUTH", "default", "only"])
    }))

  it.live("Redis's clock is read from the quickest of three TIME round trips", () =>
    Effect.gen(function*() {
      // the 2nd TIME is answered at once, the 1st and 3rd late: each says a different time
      const answers: ReadonlyArray<FakeAnswer> = [
        { afterMs: 40, reply: array(String(SECOND_MS / 1000), "0") },
        array(String(SECOND_MS / 1000 + 1000), "500000"),
        { afterMs: 40, reply: array(String(SECOND_MS / 1000 + 2000), "0") }
      ]
      const redis = yield* fakeRedis((command, connection) =>
        command[0] === "TIME" ? answers[timesAsked(connection) - 1] : undefined
      )
      const before = performance.now()
      const link = yield* makeRedisLink({ host: "127.0.0.1", port: redis.port }, [])
      const offsetMs = yield* link.connected
      const after = performance.now()
      // Redis said SECOND_MS + 1,000,500 ms halfway through that round trip
      const redisMs = SECOND_MS + 1_000_500
      expect(offsetMs).toBeGreaterThanOrEqual(redisMs - after)
      expect(offsetMs).toBeLessThanOrEqual(redisMs - before)
    }))

  it.live("an unexpected TIME answer fails the waiting calls with where and why, and the connection is made again", () =>
    Effect.gen(function*() {
      const redis = yield* fakeRedis((command, connection) =>
        command[0] !== "TIME" ? undefined : connection.index === 0 ? "+OK\r\n" : connection.index === 1 ?
          { afterMs: 150, reply: array("1700000000", "0") } :
          undefined
      )
      const logs: Array<string> = []
      const logger = Logger.make(({ logLevel, message }) => {
        logs.push(`${logLevel}: ${Array.isArray(message) ? String(message[0]) : String(message)}`)
      })
      const link = yield* makeRedisLink({ port: redis.port }, []).pipe(Effect.provide(Logger.layer([logger])))
      const why = `could not connect to 127.0.0.1:${redis.port}: Redis answered TIME with "OK"`
      expect(yield* reasonOf(link)).toBe(why)
      // while the next connection is being set up, calls still get that reason
      yield* holds(() => redis.connections.length === 2, "a second connection")
      expect(yield* reasonOf(link)).toBe(why)
      yield* eventually(link.connected)
      expect(logs).toContain("Warn: RateLimiter.layerRedis: setting up the Redis connection failed; connecting again")
    }).pipe(Effect.provideService(References.MinimumLogLevel, "Debug")))

  it.live("a TIME whose seconds and microseconds add up past any number is refused as an unexpected answer", () =>
    Effect.gen(function*() {
      const redis = yield* fakeRedis((command, connection) =>
        command[0] === "TIME" && connection.index === 0 ? array("1e308", "1e308") : undefined
      )
      const link = yield* makeRedisLink({ host: "127.0.0.1", port: redis.port }, []).pipe(Effect.provide(Logger.layer([])))
      expect(yield* reasonOf(link)).toBe(`could not connect to 127.0.0.1:${redis.port}: Redis answered TIME with ["1e308","1e308"]`)
    }))

  it.live("connects to a Unix socket when given its path", () =>
    Effect.gen(function*() {
      const socket = path.join(yield* tempDir("ets-redis-sock-"), "redis.sock")
      const redis = yield* fakeRedis(undefined, socket)
      const link = yield* makeRedisLink({ path: socket }, [])
      yield* link.connected
      expect(redis.connections.length).toBe(1)
    }))

  it.live("with TLS, it opens a TLS handshake on the given host and port", () =>
    Effect.gen(function*() {
      const redis = yield* fakeRedis(() => "cut")
      yield* Effect.scoped(Effect.gen(function*() {
        yield* makeRedisLink({ host: "127.0.0.1", port: redis.port, tls: {} }, [])
        // 0x16: a TLS record carrying the ClientHello
        yield* holds(() => redis.connections.some((connection) => connection.firstByte === 0x16), "a TLS ClientHello")
      })).pipe(Effect.provide(Logger.layer([])))
    }))

  it.live("a ready connection that is lost: a call waits for the next connection rather than failing", () =>
    Effect.gen(function*() {
      const redis = yield* fakeRedis((command, connection) =>
        command[0] === "TIME" && connection.index === 1 ? { afterMs: 150, reply: array("1700000000", "0") } : undefined
      )
      const link = yield* makeRedisLink({ host: "127.0.0.1", port: redis.port }, [])
      yield* link.connected
      redis.cutAll()
      yield* holds(() => redis.connections.length === 2, "a second connection")
      const offsetMs = yield* link.connected
      expect(offsetMs).toBeGreaterThan(0)
      expect(redis.connections[1] === undefined ? 0 : timesAsked(redis.connections[1])).toBe(3)
    }))

  it.live("a refused connection fails the waiting calls as not connected; closing it then warns that it was not connected", () =>
    Effect.gen(function*() {
      const port = yield* Effect.scoped(Effect.map(fakeRedis(), (redis) => redis.port))
      const warnings: Array<string> = []
      const logger = Logger.make(({ cause, logLevel, message }) => {
        const [text] = Array.isArray(message) ? message : [message]
        if (logLevel === "Warn") warnings.push(`${String(text)}: ${String(Cause.squash(cause))}`)
      })
      yield* Effect.scoped(Effect.gen(function*() {
        const link = yield* makeRedisLink({ host: "127.0.0.1", port }, [])
        expect(yield* reasonOf(link)).toBe(NOT_CONNECTED)
      })).pipe(Effect.provide(Logger.layer([logger])))
      expect(warnings).toEqual(["RateLimiter.layerRedis: closing the Redis connection failed: Error: The client is not connected"])
    }))

  it.live("once closed, its commands fail saying the client is closed", () =>
    Effect.gen(function*() {
      const redis = yield* fakeRedis()
      const link = yield* Effect.scoped(Effect.tap(makeRedisLink({ host: "127.0.0.1", port: redis.port }, []), (link) => link.connected))
      const error = yield* Effect.flip(link.redis.send("PING"))
      expect(error.cause instanceof Error && error.cause.message).toBe("The client is closed")
    }))

  it.live("sends commands only: a dedicated connection is refused, saying so", () =>
    Effect.gen(function*() {
      const redis = yield* fakeRedis()
      const link = yield* makeRedisLink({ host: "127.0.0.1", port: redis.port }, [])
      yield* link.connected
      const error = yield* Effect.flip(Effect.scoped(link.redis.reserve))
      expect(error.cause instanceof Error && error.cause.message).toBe("RateLimiter.layerRedis only sends commands")
    }))

  it.live("closing with a command that never gets an answer cuts the connection after a while", () =>
    Effect.gen(function*() {
      const redis = yield* fakeRedis((command) => command[0] === "BLPOP" ? "silence" : undefined)
      const link = yield* Effect.scoped(Effect.gen(function*() {
        const link = yield* makeRedisLink({ host: "127.0.0.1", port: redis.port }, [])
        yield* link.connected
        yield* Effect.forkDetach(Effect.ignore(link.redis.send("BLPOP", "k", "0")))
        yield* holds(() => redis.connections[0]?.commands.some(([name]) => name === "BLPOP") === true, "BLPOP sent")
        return link
      })).pipe(Effect.provide(Logger.layer([])))
      yield* holds(() => redis.connections[0]?.socket.destroyed === true, "the connection cut")
      expect(yield* reasonOf(link)).toBe(CLOSED)
    }))

  it.live("a call waiting for a connection still being made when the link closes is told it is closed", () =>
    Effect.gen(function*() {
      const redis = yield* fakeRedis((command) => command[0] === "HELLO" ? "silence" : undefined)
      const scope = yield* Scope.make()
      const link = yield* makeRedisLink({ host: "127.0.0.1", port: redis.port }, []).pipe(
        Scope.provide(scope),
        Effect.provide(Logger.layer([]))
      )
      const waiting = yield* Effect.forkDetach(reasonOf(link))
      yield* holds(() => redis.connections[0]?.commands.some(([name]) => name === "HELLO") === true, "HELLO sent")
      yield* Scope.close(scope, Exit.void)
      const reason = yield* Fiber.join(waiting).pipe(Effect.timeout("2 seconds"))
      expect(reason).toBe(CLOSED)
      expect(yield* reasonOf(link)).toBe(CLOSED)
    }))

  it.effect("closed while its connection is being set up: the 5 s timer makes no new connection", () =>
    Effect.gen(function*() {
      const redis = yield* fakeRedis((command) => command[0] === "TIME" ? "silence" : undefined)
      const scope = yield* Scope.make()
      yield* makeRedisLink({ host: "127.0.0.1", port: redis.port }, []).pipe(Scope.provide(scope), Effect.provide(Logger.layer([])))
      yield* holdsReally(() => redis.connections[0]?.commands.some(([name]) => name === "TIME") === true, "TIME asked")
      yield* TestClock.adjust("4500 millis")
      // closing waits up to 1 s for the TIME in flight; the connection's 5 s end within that wait
      const closing = yield* Effect.forkChild(Scope.close(scope, Exit.void))
      yield* realPause(20)
      yield* TestClock.adjust("600 millis")
      yield* realPause(50)
      expect(redis.connections.length).toBe(1)
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(closing)
      yield* holdsReally(() => redis.connections[0]?.socket.destroyed === true, "the connection cut")
      expect(redis.connections.length).toBe(1)
    }))

  it.effect("a handshake that hangs: after 5 s the waiting calls are told so, and the connection is cut and made again", () =>
    Effect.gen(function*() {
      const redis = yield* fakeRedis((command, connection) =>
        connection.index === 0 && command[0] === "HELLO" ? "silence" : undefined
      )
      const link = yield* makeRedisLink({ host: "127.0.0.1", port: redis.port }, []).pipe(Effect.provide(Logger.layer([])))
      const waiting = yield* Effect.forkChild(reasonOf(link))
      yield* holdsReally(() => redis.connections[0]?.commands.some(([name]) => name === "HELLO") === true, "HELLO sent")
      yield* realPause(20)
      yield* TestClock.adjust("5 seconds")
      expect(yield* Fiber.join(waiting)).toBe(`could not connect to 127.0.0.1:${redis.port} within 5 s`)
      yield* holdsReally(() => redis.connections[0]?.socket.destroyed === true && redis.connections.length === 2, "cut and made again")
      for (let i = 0; i < 200 && (yield* Effect.exit(link.connected))._tag === "Failure"; i++) yield* realPause(10)
      expect(typeof (yield* link.connected)).toBe("number")
      // a connection that is ready is kept past 5 s
      yield* TestClock.adjust("5 seconds")
      yield* realPause(50)
      expect(redis.connections.length).toBe(2)
      expect(redis.connections[1]?.socket.destroyed).toBe(false)
    }))

  it.effect("a connection made again after a drop gets its own 5 s: the first connection's timer does not cut it", () =>
    Effect.gen(function*() {
      const redis = yield* fakeRedis((command, connection) =>
        connection.index === 1 && command[0] === "HELLO" ? "silence" : undefined
      )
      const link = yield* makeRedisLink({ host: "127.0.0.1", port: redis.port }, []).pipe(Effect.provide(Logger.layer([])))
      yield* link.connected
      yield* TestClock.adjust("3 seconds")
      redis.connections[0]?.socket.destroy()
      yield* holdsReally(() => redis.connections[1]?.commands.some(([name]) => name === "HELLO") === true, "HELLO sent again")
      yield* realPause(20)
      // 5 s after the first connection: the second one, 2 s old, is left alone
      yield* TestClock.adjust("2 seconds")
      yield* realPause(50)
      expect(redis.connections.length).toBe(2)
      expect(redis.connections[1]?.socket.destroyed).toBe(false)
      // 5 s after the second connection: it is cut and made again
      yield* TestClock.adjust("3 seconds")
      yield* holdsReally(() => redis.connections[1]?.socket.destroyed === true && redis.connections.length === 3, "cut and made again")
      for (let i = 0; i < 200 && (yield* Effect.exit(link.connected))._tag === "Failure"; i++) yield* realPause(10)
      expect(typeof (yield* link.connected)).toBe("number")
    }))
})
