/**
 * `RateLimiter.layerRedis`'s budget (issue 47, item 12 b and c): connecting to Redis is not part
 * of a call's `timeoutMs` (a slow first connection or reconnection is waited for, up to 5 s), and
 * a command that answers after the budget takes no token (the script refuses to run late; a token
 * taken by a script whose answer came late is given back). Against a `redis-server` of the test's
 * own, behind a TCP proxy on 127.0.0.1 that delays connections or replies (`delayProxy` below: it
 * can hold a new connection before forwarding it, a slow connect or handshake; delay the server's
 * replies; and drop every open connection).
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Context, Duration, Effect, Exit, Layer, Result, Schedule, type Scope } from "effect"
import * as net from "node:net"
import { createClient } from "redis"
import { RateLimited } from "../../src/domain/errors.js"
import { RateLimiter } from "../../src/index.js"
import type { RedisRateLimiterOptions } from "../../src/services/RateLimiter.js"
import { freshPrefix, limitedTool, redisServer, redisServerInstalled } from "../helpers/redisServer.js"

const TIMEOUT_MS = 200
/** What a call may take beyond its wait on this shared 2-core machine. */
const MARGIN_MS = 700

/** The limiter of a `layerRedis`, open for the scope. */
const redisLimiter = (options: RedisRateLimiterOptions) =>
  Effect.map(Layer.build(RateLimiter.layerRedis(options)), (context) => Context.get(context, RateLimiter))

/** A plain node-redis client straight to the test server (not through the proxy), closed with the scope. */
const rawClient = (port: number) =>
  Effect.acquireRelease(
    Effect.promise(() => createClient({ socket: { host: "127.0.0.1", port } }).on("error", () => undefined).connect()),
    (client) => Effect.sync(() => client.destroy())
  )

const failureOf = <A>(exit: Exit.Exit<A, RateLimited>): RateLimited | undefined =>
  Exit.isFailure(exit) ? Result.getOrUndefined(Cause.findError(exit.cause)) : undefined

/** The exit of `effect` and how long it took, in ms. */
const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.timed(Effect.exit(effect)), ([duration, exit]) => ({ exit, ms: Duration.toMillis(duration) }))

/** A running proxy; the delays apply from the moment they are set. */
interface DelayProxy {
  readonly port: number
  /** `redis://127.0.0.1:<port>` */
  readonly url: string
  /** How long a new connection waits before it is forwarded (`Infinity`: never). */
  connectDelayMs: number
  /** How long each chunk the server sends waits before it reaches the client. */
  replyDelayMs: number
  /** Closes every open connection (both sides), as a network drop would. */
  readonly dropAll: Effect.Effect<void>
}

/** Starts a proxy to `127.0.0.1:targetPort`. */
const delayProxy = (
  targetPort: number,
  initial: { readonly connectDelayMs?: number; readonly replyDelayMs?: number } = {}
): Effect.Effect<DelayProxy, Error, Scope.Scope> =>
  Effect.gen(function*() {
    const sockets = new Set<net.Socket>()
    const timers = new Set<NodeJS.Timeout>()
    const later = (ms: number, run: () => void) => {
      const timer = setTimeout(() => {
        timers.delete(timer)
        run()
      }, ms)
      timers.add(timer)
    }
    const track = (socket: net.Socket) => {
      sockets.add(socket)
      socket.on("close", () => sockets.delete(socket))
      socket.on("error", () => socket.destroy())
    }

    // read at each connection and each reply, so a test can change them as it goes
    const delays = { connectDelayMs: initial.connectDelayMs ?? 0, replyDelayMs: initial.replyDelayMs ?? 0 }

    const forward = (client: net.Socket, pending: Array<Buffer>) => {
      if (client.destroyed) return
      const server = net.connect(targetPort, "127.0.0.1")
      track(server)
      for (const chunk of pending) server.write(chunk)
      client.removeAllListeners("data")
      client.on("data", (chunk: Buffer) => server.write(chunk))
      // replies keep their order: each is sent no earlier than the one before it
      let releaseAt = 0
      server.on("data", (chunk: Buffer) => {
        releaseAt = Math.max(releaseAt, Date.now() + delays.replyDelayMs)
        const wait = releaseAt - Date.now()
        if (wait <= 0) client.write(chunk)
        else later(wait, () => void (client.destroyed || client.write(chunk)))
      })
      server.on("close", () => client.destroy())
      client.on("close", () => server.destroy())
    }

    const listener = net.createServer((client) => {
      track(client)
      const pending: Array<Buffer> = []
      client.on("data", (chunk: Buffer) => void pending.push(chunk))
      const delay = delays.connectDelayMs
      if (delay === 0) forward(client, pending)
      else if (Number.isFinite(delay)) later(delay, () => forward(client, pending))
    })
    const port = yield* Effect.acquireRelease(
      Effect.callback<number, Error>((resume) => {
        listener.on("error", (error) => resume(Effect.fail(error)))
        listener.listen(0, "127.0.0.1", () => {
          const address = listener.address()
          if (address === null || typeof address === "string") return resume(Effect.fail(new Error("no address")))
          resume(Effect.succeed(address.port))
        })
      }),
      () =>
        Effect.callback<void>((resume) => {
          for (const timer of timers) clearTimeout(timer)
          for (const socket of sockets) socket.destroy()
          listener.close(() => resume(Effect.void))
        })
    )
    const dropAll = Effect.sync(() => {
      for (const socket of sockets) socket.destroy()
    })
    return Object.assign(delays, { port, url: `redis://127.0.0.1:${port}`, dropAll })
  })

describe.skipIf(!redisServerInstalled && process.env.CI === undefined)("RateLimiter.layerRedis: the call's budget", { timeout: 30_000 }, () => {
  it.live("a fresh layer whose connection takes 500 ms: the first call is counted, not refused as unavailable", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer()
      const proxy = yield* delayProxy(redis.port, { connectDelayMs: 500 })
      const client = yield* rawClient(redis.port)
      const prefix = freshPrefix("budget")
      const limiter = yield* redisLimiter({ redis: proxy.url, prefix, timeoutMs: TIMEOUT_MS })
      const tool = limitedTool("slow-connect", 3)

      const { exit, ms } = yield* timed(limiter.acquire(tool))
      expect(failureOf(exit)?.reason).toBeUndefined()
      expect(Exit.isSuccess(exit)).toBe(true)
      // it waited for the connection, then Redis took the token
      expect(ms).toBeGreaterThanOrEqual(400)
      expect(yield* Effect.promise(() => client.get(`${prefix}slow-connect`))).toBe("2")
    }))

  it.live("a reconnection after a drop is waited for too: the call is counted", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer()
      const proxy = yield* delayProxy(redis.port)
      const client = yield* rawClient(redis.port)
      const prefix = freshPrefix("budget")
      const limiter = yield* redisLimiter({ redis: proxy.url, prefix, timeoutMs: TIMEOUT_MS })
      const tool = limitedTool("slow-reconnect", 3)
      yield* limiter.acquire(tool)

      proxy.connectDelayMs = 500
      yield* proxy.dropAll
      // the client sees the drop (a command in flight at a drop is lost: that is not this test)
      yield* Effect.sleep("50 millis")
      const { exit, ms } = yield* timed(limiter.acquire(tool))
      expect(failureOf(exit)?.reason).toBeUndefined()
      expect(Exit.isSuccess(exit)).toBe(true)
      expect(ms).toBeGreaterThanOrEqual(400)
      expect(yield* Effect.promise(() => client.get(`${prefix}slow-reconnect`))).toBe("1")
    }))

  it.live("a command Redis runs after the budget (CLIENT PAUSE WRITE) is refused as unavailable and takes no token", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer()
      const proxy = yield* delayProxy(redis.port)
      const client = yield* rawClient(redis.port)
      const prefix = freshPrefix("budget")
      const limiter = yield* redisLimiter({ redis: proxy.url, prefix, timeoutMs: TIMEOUT_MS })
      const tool = limitedTool("paused", 3)
      yield* limiter.acquire(tool)

      yield* Effect.promise(() => client.sendCommand(["CLIENT", "PAUSE", "500", "WRITE"]))
      // the late command's answer is held back: the count below is Redis's own, before any answer
      proxy.replyDelayMs = 3_000
      const { exit, ms } = yield* timed(limiter.acquire(tool))
      const refused = failureOf(exit)
      expect(refused).toBeInstanceOf(RateLimited)
      expect(refused?.reason).toBe(`Redis unavailable: no answer within ${TIMEOUT_MS} ms`)
      expect(ms).toBeLessThan(TIMEOUT_MS + MARGIN_MS)

      // the pause is over and the refused call's script has run: it took nothing
      yield* Effect.sleep("800 millis")
      expect(yield* Effect.promise(() => client.get(`${prefix}paused`))).toBe("2")
      // so two calls are left (through a limiter of its own: the first one's answers are held)
      const other = yield* redisLimiter({ redis: redis.url, prefix, timeoutMs: TIMEOUT_MS })
      yield* other.acquire(tool)
      yield* other.acquire(tool)
      const last = failureOf(yield* Effect.exit(other.acquire(tool)))
      expect(last).toBeInstanceOf(RateLimited)
      expect(last?.reason).toBeUndefined()
    }))

  it.live("a script that ran in time but whose answer came after the budget gives its token back", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer()
      const proxy = yield* delayProxy(redis.port)
      const client = yield* rawClient(redis.port)
      const prefix = freshPrefix("budget")
      const limiter = yield* redisLimiter({ redis: proxy.url, prefix, timeoutMs: TIMEOUT_MS })
      const tool = limitedTool("late-answer", 3)
      yield* limiter.acquire(tool)

      proxy.replyDelayMs = 600
      const refused = failureOf(yield* Effect.exit(limiter.acquire(tool)))
      proxy.replyDelayMs = 0
      expect(refused?.reason).toBe(`Redis unavailable: no answer within ${TIMEOUT_MS} ms`)

      // the answer (a token taken) arrives at 600 ms; the token is then given back
      yield* Effect.sleep("900 millis")
      expect(yield* Effect.promise(() => client.get(`${prefix}late-answer`))).toBe("2")
      yield* limiter.acquire(tool)
      yield* limiter.acquire(tool)
      expect(failureOf(yield* Effect.exit(limiter.acquire(tool)))?.reason).toBeUndefined()
    }))

  it.live("a connection that never completes: refused after 5 s, saying so; the next call at once; the attempt is then made again", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer()
      const proxy = yield* delayProxy(redis.port, { connectDelayMs: Infinity })
      // the 5 s count from the first connection attempt, which starts as the layer is built (on
      // a loaded machine 0.2 s before the first call began), so the floor is checked from here
      const began = Date.now()
      const limiter = yield* redisLimiter({ redis: proxy.url, prefix: freshPrefix("budget"), timeoutMs: TIMEOUT_MS })
      const tool = limitedTool("no-connect", 3)
      const reason = `Redis unavailable: could not connect to 127.0.0.1:${proxy.port} within 5 s`

      const first = yield* timed(limiter.acquire(tool))
      expect(failureOf(first.exit)?.reason).toBe(reason)
      expect(Date.now() - began).toBeGreaterThanOrEqual(4_900)
      expect(first.ms).toBeLessThan(5_000 + MARGIN_MS)
      const next = yield* timed(limiter.acquire(tool))
      expect(failureOf(next.exit)?.reason).toBe(reason)
      expect(next.ms).toBeLessThan(MARGIN_MS)

      // the stuck attempt is cut and made again: once connections go through, calls are counted
      proxy.connectDelayMs = 0
      yield* limiter.acquire(tool).pipe(Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo({ duration: "3 seconds" }))))
    }))
})
