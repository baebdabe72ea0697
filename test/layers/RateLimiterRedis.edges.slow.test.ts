/**
 * `RateLimiter.layerRedis`, beyond test/layers/RateLimiterRedis.slow.test.ts: a bad connection
 * (how the options are read: RateLimiterRedis.options.test.ts), the keys it writes, the reasons
 * and log lines of an unavailable Redis, tools without a limit, `check` on the last token, and
 * its reconnection (a client's strategy kept, bounded pauses, none after the layer closed).
 * Every Redis here is a `redis-server` of the test's own, or a TCP server on 127.0.0.1.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Context, Deferred, Duration, Effect, Exit, Layer, Logger, References, Result, Schedule, Schema, type Scope } from "effect"
import { createClient } from "redis"
import * as net from "node:net"
import { RateLimited } from "../../src/domain/errors.js"
import { RateLimiter, Tool } from "../../src/index.js"
import type { RedisRateLimiterOptions } from "../../src/services/RateLimiter.js"
import { INFO, parseCommands } from "../helpers/fakeRedis.js"
import { freshPrefix, limitedTool, redisServer, redisServerInstalled } from "../helpers/redisServer.js"


const unlimitedTool = Tool.make("unlimited", {
  description: "no rate limit",
  parameters: Schema.Struct({}),
  readOnly: true,
  handler: () => Effect.succeed("ran")
})

/** The limiter of a `layerRedis`, open for the scope. */
const redisLimiter = (options: RedisRateLimiterOptions) =>
  Effect.map(Layer.build(RateLimiter.layerRedis(options)), (context) => Context.get(context, RateLimiter))

const failureOf = <A>(exit: Exit.Exit<A, RateLimited>): RateLimited | undefined =>
  Exit.isFailure(exit) ? Result.getOrUndefined(Cause.findError(exit.cause)) : undefined

/** A plain node-redis client on the test server, closed with the scope. */
const rawClient = (port: number) =>
  Effect.acquireRelease(
    Effect.promise(() => createClient({ socket: { host: "127.0.0.1", port } }).on("error", () => undefined).connect()),
    (client) => Effect.sync(() => client.destroy())
  )

interface LogLine {
  readonly level: string
  readonly message: string
  readonly annotations: Record<string, unknown>
}

/** The log lines (debug and up) of the effect. */
const withLogs = <A, E, R>(body: (logs: ReadonlyArray<LogLine>) => Effect.Effect<A, E, R>) => {
  const logs: Array<LogLine> = []
  const logger = Logger.make(({ fiber, logLevel, message }) => {
    logs.push({
      level: logLevel.toUpperCase(),
      message: Array.isArray(message) ? message.map(String).join(" ") : String(message),
      annotations: { ...fiber.getRef(References.CurrentLogAnnotations) }
    })
  })
  return body(logs).pipe(
    Effect.provide(Logger.layer([logger])),
    Effect.provideService(References.MinimumLogLevel, "Debug")
  )
}

/** A TCP server on 127.0.0.1 that closes every connection at once, counting them. */
const slammingServer: Effect.Effect<{ readonly url: string; readonly connections: () => number }, Error, Scope.Scope> =
  Effect.acquireRelease(
    Effect.callback<{ readonly server: net.Server; readonly port: number; readonly count: { n: number } }, Error>((resume) => {
      const count = { n: 0 }
      const server = net.createServer((socket) => {
        count.n++
        socket.destroy()
      })
      server.on("error", (error) => resume(Effect.fail(error)))
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        if (address === null || typeof address === "string") return resume(Effect.fail(new Error("no address")))
        resume(Effect.succeed({ server, port: address.port, count }))
      })
    }),
    ({ server }) => Effect.callback<void>((resume) => void server.close(() => resume(Effect.void)))
  ).pipe(Effect.map(({ count, port }) => ({ url: `redis://127.0.0.1:${port}`, connections: () => count.n })))

/**
 * A fake Redis on 127.0.0.1 whose script cache is flaky: it passes the client's handshake (and
 * answers TIME and SCRIPT LOAD),
 * answers the first `EVALSHA` of a connection (9 tokens left), answers the next one with NOSCRIPT
 * after `noscriptAfterMs` (so the client loads the script and sends `EVALSHA` again, on a timer
 * of its own), and never answers a later one.
 */
const slowScriptServer = (noscriptAfterMs: number): Effect.Effect<{ readonly url: string }, Error, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.callback<{ readonly server: net.Server; readonly port: number; readonly sockets: Set<net.Socket> }, Error>((resume) => {
      const sockets = new Set<net.Socket>()
      const server = net.createServer((socket) => {
        sockets.add(socket)
        socket.on("close", () => sockets.delete(socket))
        let buffer = ""
        let evalshas = 0
        socket.on("error", () => undefined)
        socket.on("data", (chunk: Buffer) => {
          const parsed = parseCommands(buffer + chunk.toString("utf8"))
          buffer = parsed.rest
          for (const [name = ""] of parsed.commands) {
            const command = name.toUpperCase()
            if (command === "INFO") socket.write(`$${INFO.length}\r\n${INFO}\r\n`)
            // the limiter reads Redis's clock when it connects
            else if (command === "TIME") socket.write("*2\r\n$10\r\n1700000000\r\n$1\r\n0\r\n")
            else if (command === "EVALSHA") {
              const nth = evalshas++
              // the token bucket's answer: 9 left, 0 ms into the refill interval
              if (nth === 0) socket.write("*2\r\n$1\r\n9\r\n$1\r\n0\r\n")
              else if (nth === 1) {
                setTimeout(() => socket.writable && socket.write("-NOSCRIPT No matching script.\r\n"), noscriptAfterMs)
              }
            } else socket.write("+OK\r\n")
          }
        })
      })
      server.on("error", (error) => resume(Effect.fail(error)))
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        if (address === null || typeof address === "string") return resume(Effect.fail(new Error("no address")))
        resume(Effect.succeed({ server, port: address.port, sockets }))
      })
    }),
    ({ server, sockets }) =>
      Effect.callback<void>((resume) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ port }) => ({ url: `redis://127.0.0.1:${port}` })))

describe("RateLimiter.layerRedis: a bad connection", () => {
  it.effect("a bad connection is a defect that says why and keeps the error", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Effect.scoped(redisLimiter({ redis: "redis://cache/x" })))
      const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
      expect(defect).toBeInstanceOf(Error)
      if (defect instanceof Error) {
        expect(defect.message).toBe("RateLimiter.layerRedis: bad redis connection: \"x\" is not a database number")
        expect(defect.cause).toBeInstanceOf(Error)
        expect(defect.cause instanceof Error && defect.cause.message).toBe("\"x\" is not a database number")
      }
    }))
})

describe.skipIf(!redisServerInstalled && process.env.CI === undefined)("RateLimiter.layerRedis against redis-server", { timeout: 30_000 }, () => {
  it.live("writes {prefix}{tool} and {prefix}{tool}/{encoded key}; the default prefix is effect-tool-system:ratelimit:", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer()
      const client = yield* rawClient(redis.port)
      const tool = limitedTool("keyed", 10)
      const byDefault = yield* redisLimiter({ redis: redis.url })
      yield* byDefault.acquire(tool)
      yield* byDefault.acquire(tool, "a/b:c d")
      const prefix = freshPrefix("edges")
      const prefixed = yield* redisLimiter({ redis: redis.url, prefix })
      yield* prefixed.acquire(tool)
      const keys = yield* Effect.promise(() => client.keys("*"))
      expect([...keys].sort()).toEqual([
        "effect-tool-system:ratelimit:keyed",
        "effect-tool-system:ratelimit:keyed/a%2Fb%3Ac%20d",
        "effect-tool-system:ratelimit:keyed/a%2Fb%3Ac%20d:refill",
        "effect-tool-system:ratelimit:keyed:refill",
        `${prefix}keyed`,
        `${prefix}keyed:refill`
      ].sort())
      // one token taken from each bucket of 10
      expect(yield* Effect.promise(() => client.get("effect-tool-system:ratelimit:keyed"))).toBe("9")
    }))

  it.live("check admits while one token is left, and refuses once none is", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer()
      const limiter = yield* redisLimiter({ redis: redis.url, prefix: freshPrefix("edges") })
      const tool = limitedTool("last-token", 3)
      yield* limiter.acquire(tool)
      yield* limiter.acquire(tool)
      yield* limiter.check(tool)
      yield* limiter.acquire(tool)
      const refused = failureOf(yield* Effect.exit(limiter.check(tool)))
      expect(refused).toBeInstanceOf(RateLimited)
      expect(refused?.retryAfterMs).toBe(20_000)
    }))

  it.live("a tool without a limit is admitted without asking Redis, even when it is down", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer()
      yield* redis.kill
      const limiter = yield* redisLimiter({ redis: redis.url, prefix: freshPrefix("edges"), timeoutMs: 2_000 })
      // admitted (a failure would fail the test), though Redis does not answer
      yield* limiter.acquire(unlimitedTool)
      yield* limiter.check(unlimitedTool)
      const limited = failureOf(yield* Effect.exit(limiter.acquire(limitedTool("limited", 5))))
      expect(limited?.reason).toBe("Redis unavailable: not connected (reconnecting)")
    }))

  it.live("TLS (rediss:// or tls: true) is not spoken to a plain server: calls are refused, not sent in clear", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer()
      const client = yield* rawClient(redis.port)
      const tool = limitedTool("tls", 10)
      for (const connection of [`rediss://127.0.0.1:${redis.port}`, { host: "127.0.0.1", port: redis.port, tls: true }]) {
        const prefix = freshPrefix("edges")
        const limiter = yield* redisLimiter({ redis: connection, prefix })
        const refused = failureOf(yield* Effect.exit(limiter.acquire(tool)))
        expect(refused?.reason, JSON.stringify(connection)).toMatch(/^Redis unavailable: /)
        expect(yield* Effect.promise(() => client.keys(`${prefix}*`))).toEqual([])
      }
      const plain = yield* redisLimiter({ redis: { host: "127.0.0.1", port: redis.port, tls: false }, prefix: freshPrefix("edges") })
      yield* plain.acquire(tool)
    }))

  it.live("unavailable: warned once with the tool, reason and policy, then debug lines; answering again: one info line", () =>
    withLogs((logs) =>
      Effect.gen(function*() {
        const redis = yield* redisServer()
        const limiter = yield* redisLimiter({ redis: redis.url, prefix: freshPrefix("edges"), timeoutMs: 1_000 })
        const tool = limitedTool("logged", 1_000)
        yield* limiter.acquire(tool)
        yield* redis.kill
        for (let i = 0; i < 2; i++) {
          expect(failureOf(yield* Effect.exit(limiter.acquire(tool)))?.reason).toBe("Redis unavailable: not connected (reconnecting)")
        }
        const ours = () => logs.filter((l) => l.message.startsWith("RateLimiter.layerRedis"))
        expect(ours().map((l) => `${l.level} ${l.message}`)).toEqual([
          "WARN RateLimiter.layerRedis: Redis unavailable; refusing rate-limited calls until it answers (fail-closed)",
          "DEBUG RateLimiter.layerRedis: Redis still unavailable"
        ])
        for (const line of ours()) {
          expect(line.annotations).toMatchObject({
            tool: "logged",
            reason: "Redis unavailable: not connected (reconnecting)",
            onUnavailable: "fail-closed"
          })
        }
        yield* redis.restart
        yield* limiter.acquire(tool).pipe(Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo({ duration: "6 seconds" }))))
        yield* limiter.acquire(tool)
        yield* limiter.check(tool)
        expect(ours().filter((l) => l.level === "INFO").map((l) => l.message)).toEqual([
          "RateLimiter.layerRedis: Redis answers again; shared rate limits resumed"
        ])
        // down again: warned again
        yield* redis.kill
        yield* Effect.exit(limiter.acquire(tool))
        expect(ours().filter((l) => l.level === "WARN")).toHaveLength(2)
      })
    ))

  it.live("a stalled Redis: the reason says how long the call waited", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer()
      const limiter = yield* redisLimiter({ redis: redis.url, prefix: freshPrefix("edges"), timeoutMs: 150 })
      const tool = limitedTool("stalled", 1_000)
      yield* limiter.acquire(tool)
      yield* redis.pause
      yield* Effect.addFinalizer(() => redis.resume)
      const refused = failureOf(yield* Effect.exit(limiter.acquire(tool)))
      expect(refused?.reason).toBe("Redis unavailable: no answer within 150 ms")
      expect(refused?.retryAfterMs).toBe(1_000)
      yield* redis.resume
    }))

  it.live("a client's own retry strategy is kept for the limiter's connection", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer()
      const attempts: Array<number> = []
      const reconnecting = Deferred.makeUnsafe<void>()
      // a node-redis client, never connected: the limiter reads its options
      const client = createClient({
        socket: {
          host: "127.0.0.1",
          port: redis.port,
          reconnectStrategy: (attempt) => {
            attempts.push(attempt)
            Deferred.doneUnsafe(reconnecting, Effect.void)
            return 50
          }
        }
      })
      const limiter = yield* redisLimiter({ redis: { client }, prefix: freshPrefix("edges") })
      yield* limiter.acquire(limitedTool("own-strategy", 10))
      yield* redis.kill
      yield* Effect.exit(limiter.acquire(limitedTool("own-strategy", 10)))
      yield* Deferred.await(reconnecting).pipe(Effect.timeout("3 seconds"))
      expect(attempts.length).toBeGreaterThan(0)
    }))
})

describe("RateLimiter.layerRedis: a Redis that does not answer in time", () => {
  it.live("a call gives up after timeoutMs even while the client still waits on a later command", () =>
    Effect.gen(function*() {
      const server = yield* slowScriptServer(150)
      const limiter = yield* redisLimiter({ redis: server.url, prefix: freshPrefix("edges"), timeoutMs: 300 })
      yield* limiter.acquire(limitedTool("slow", 10))
      // NOSCRIPT at 150 ms, then an EVAL whose own timer would run until 450 ms
      const [duration, exit] = yield* Effect.timed(Effect.exit(limiter.acquire(limitedTool("slow", 10))))
      const refused = failureOf(exit)
      expect(refused).toBeInstanceOf(RateLimited)
      expect(refused?.reason).toBe("Redis unavailable: no answer within 300 ms")
      expect(refused?.retryAfterMs).toBe(1_000)
      expect(Duration.toMillis(duration)).toBeLessThan(300 + 500)
    }))
})

describe("RateLimiter.layerRedis: reconnecting", () => {
  it.live("pauses between attempts grow, and stop when the layer closes", () =>
    Effect.gen(function*() {
      const server = yield* slammingServer
      yield* Effect.scoped(Effect.gen(function*() {
        const limiter = yield* redisLimiter({ redis: server.url, prefix: freshPrefix("edges"), timeoutMs: 100 })
        yield* Effect.exit(limiter.acquire(limitedTool("nowhere", 10)))
        yield* Effect.sleep("700 millis")
      }))
      // pauses of 50, 100, 150, 200 ms...: a handful of attempts in 700 ms, not hundreds
      const during = server.connections()
      expect(during).toBeGreaterThan(1)
      expect(during).toBeLessThan(12)
      yield* Effect.sleep("500 millis")
      expect(server.connections() - during).toBeLessThanOrEqual(1)
    }))

  it.live("closed while a call waits for a connection: it stops reconnecting, and says the close failed", () =>
    withLogs((logs) =>
      Effect.gen(function*() {
        const server = yield* slammingServer
        yield* Effect.scoped(Effect.gen(function*() {
          const limiter = yield* redisLimiter({ redis: server.url, prefix: freshPrefix("edges"), timeoutMs: 5_000 })
          yield* Effect.exit(limiter.acquire(limitedTool("nowhere", 10)))
          // this call's command waits in the client's queue when the layer closes
          yield* Effect.forkChild(limiter.acquire(limitedTool("nowhere", 10)))
          yield* Effect.sleep("20 millis")
        }))
        const closed = server.connections()
        yield* Effect.sleep("1500 millis")
        expect(server.connections() - closed).toBeLessThanOrEqual(1)
        expect(logs.filter((l) => l.level === "WARN").map((l) => l.message)).toContain(
          "RateLimiter.layerRedis: closing the Redis connection failed"
        )
      })
    ))
})
