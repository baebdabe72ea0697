/**
 * The token-bucket store of `RateLimiter.layerRedis` (`makeBudgetedStore`) over a connection
 * whose Redis answers what each test says (effect's `Redis.make` on a scripted `send`): the
 * command it sends, the reasons of its failures, and what it does with an answer that comes
 * after the caller gave up (gives the token back, or logs why not).
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Logger, References } from "effect"
import * as Redis from "effect/persistence/Redis"
import { performance } from "node:perf_hooks"
import { NOT_CONNECTED } from "../../src/layers/RateLimiterRedisLink.js"
import { GIVE_BACK_LUA, makeBudgetedStore, TOKEN_BUCKET_LUA } from "../../src/layers/RateLimiterRedisStore.js"

type Answer = Effect.Effect<unknown, Redis.RedisError>

const failing = (message: string): Answer => Effect.fail(new Redis.RedisError({ cause: new Error(message) }))

/**
 * A store whose token-bucket script answers `bucket(key)` and whose give-back script answers
 * `giveBack(key)`; every `EVALSHA` is recorded (the scripts' names stand for their sha).
 */
const scriptedStore = (
  options: {
    readonly bucket: (key: string) => Answer
    readonly giveBack?: (key: string) => Answer
    readonly timeoutMs?: number
    readonly offsetMs?: number
  }
) =>
  Effect.gen(function*() {
    const sent: Array<ReadonlyArray<string>> = []
    const reply = (command: string, args: ReadonlyArray<string>): Answer => {
      if (command === "SCRIPT") {
        return Effect.succeed(args[1] === TOKEN_BUCKET_LUA ? "bucket" : args[1] === GIVE_BACK_LUA ? "give-back" : "?")
      }
      sent.push([command, ...args])
      const key = args[2] ?? ""
      return args[0] === "bucket" ? options.bucket(key) : (options.giveBack ?? (() => Effect.succeed(1)))(key)
    }
    const redis = yield* Redis.make({
      send: <A>(command: string, ...args: ReadonlyArray<string>) =>
        Effect.map(reply(command, args), (value) => value as A),
      subscribe: () => Effect.die("not used"),
      connect: Effect.die("not used")
    })
    const store = yield* makeBudgetedStore(
      { redis, connected: Effect.succeed(options.offsetMs ?? 0) },
      { prefix: "p:", timeoutMs: options.timeoutMs ?? 1_000 }
    )
    return { store, sent }
  })

const take = (key: string, tokens = 1, allowOverflow = false) => ({
  key,
  tokens,
  limit: 10,
  refillRate: Duration.seconds(6),
  allowOverflow
})

/** The store error's message and the reason of its cause. */
const failureOf = <A>(effect: Effect.Effect<A, { readonly reason: { readonly message: string; readonly cause?: unknown } }>) =>
  Effect.map(Effect.flip(effect), ({ reason }) => ({
    message: reason.message,
    reason: typeof reason.cause === "object" && reason.cause !== null && "reason" in reason.cause
      ? reason.cause.reason
      : undefined
  }))

/** Runs `body` with the log lines (debug and up) it writes collected in `logs`. */
const withLogs = <A, E, R>(body: (logs: ReadonlyArray<string>) => Effect.Effect<A, E, R>) => {
  const logs: Array<string> = []
  const logger = Logger.make(({ logLevel, message }) => {
    logs.push(`${logLevel}: ${Array.isArray(message) ? String(message[0]) : String(message)}`)
  })
  return body(logs).pipe(Effect.provide(Logger.layer([logger])), Effect.provideService(References.MinimumLogLevel, "Debug"))
}

describe("makeBudgetedStore", () => {
  it.live("runs the token bucket on {prefix}{key} and its :refill key with the caller's deadline on Redis's clock", () =>
    Effect.gen(function*() {
      const { sent, store } = yield* scriptedStore({ bucket: () => Effect.succeed(["7", "120"]), offsetMs: 5_000, timeoutMs: 300 })
      const before = performance.now()
      expect(yield* store.tokenBucket(take("k", 1, true))).toEqual([7, 120])
      const after = performance.now()
      const [command = []] = sent
      expect(command.slice(0, 8)).toEqual(["EVALSHA", "bucket", "2", "p:k", "p:k:refill", "1", "6000", "10"])
      expect(command[9]).toBe("1")
      const deadline = Number(command[10])
      expect(deadline).toBeGreaterThanOrEqual(before + 5_300 - 0.001)
      expect(deadline).toBeLessThanOrEqual(after + 5_300 + 0.001)
    }))

  it.live("a reply that is not two numbers is refused, saying what Redis answered", () =>
    Effect.gen(function*() {
      const { store } = yield* scriptedStore({ bucket: () => Effect.succeed("OK") })
      expect(yield* failureOf(store.tokenBucket(take("k")))).toEqual({
        message: "Failed to execute tokenBucket rate limiting command",
        reason: "Redis answered the token bucket with \"OK\""
      })
    }))

  it.live("a command lost with the connection says not connected; another error of Redis is passed on as it is", () =>
    Effect.gen(function*() {
      const lost = ["The client is offline", "The client is closed", "Socket closed unexpectedly", "Disconnects client"]
      for (const message of [...lost, "ERR something else"]) {
        const { store } = yield* scriptedStore({ bucket: () => failing(message) })
        const { reason } = yield* failureOf(store.tokenBucket(take("k")))
        expect(reason, message).toBe(lost.includes(message) ? NOT_CONNECTED : message)
      }
    }))

  it.live("a script Redis ran past the deadline is a call that got no answer in time", () =>
    Effect.gen(function*() {
      const { store } = yield* scriptedStore({ bucket: () => failing("LATE the caller gave up 4 ms ago"), timeoutMs: 150 })
      expect((yield* failureOf(store.tokenBucket(take("k")))).reason).toBe("no answer within 150 ms")
    }))

  it.live("keeps token buckets only: the other kinds of limit are refused", () =>
    Effect.gen(function*() {
      const { store } = yield* scriptedStore({ bucket: () => Effect.succeed(["1", "0"]) })
      const window = yield* failureOf(store.fixedWindow({ key: "k", tokens: 1, limit: 1, refillRate: Duration.seconds(1) }))
      expect(window.message).toBe("RateLimiter.layerRedis keeps token buckets only")
    }))

  it.live("an answer that comes after the caller gave up gives back the tokens it took, and only those", () =>
    withLogs((logs) =>
      Effect.gen(function*() {
        const late = (reply: Answer): Answer => Effect.andThen(Effect.sleep("60 millis"), reply)
        const answers: Record<string, Answer> = {
          "p:taken": late(Effect.succeed(["0", "0"])),
          "p:refused": late(Effect.succeed(["-1", "0"])),
          "p:overflow": late(Effect.succeed(["-1", "0"])),
          "p:check": late(Effect.succeed(["5", "0"])),
          "p:ran-late": late(failing("LATE the caller gave up 3 ms ago")),
          "p:lost": late(failing("Socket closed unexpectedly")),
          "p:stuck": late(Effect.succeed(["3", "0"]))
        }
        const { sent, store } = yield* scriptedStore({
          bucket: (key) => answers[key] ?? failing("unknown key"),
          giveBack: (key) => key === "p:stuck" ? failing("ERR read only") : Effect.succeed(1),
          timeoutMs: 20
        })
        const calls = [take("taken"), take("refused"), take("overflow", 1, true), take("check", 0), take("ran-late"), take("lost"), take("stuck")]
        const reasons = yield* Effect.forEach(calls, (call) => Effect.map(failureOf(store.tokenBucket(call)), ({ reason }) => reason), {
          concurrency: "unbounded"
        })
        expect(new Set(reasons)).toEqual(new Set(["no answer within 20 ms"]))
        yield* Effect.sleep("150 millis")
        expect(sent.filter(([, sha]) => sha === "give-back")).toEqual([
          ["EVALSHA", "give-back", "1", "p:taken", "1", "10"],
          ["EVALSHA", "give-back", "1", "p:overflow", "1", "10"],
          ["EVALSHA", "give-back", "1", "p:stuck", "1", "10"]
        ])
        expect([...logs].sort()).toEqual([
          "Debug: RateLimiter.layerRedis: a command Redis ran too late took no token (LATE the caller gave up 3 ms ago)",
          "Debug: RateLimiter.layerRedis: gave back the token of a call Redis answered late",
          "Debug: RateLimiter.layerRedis: gave back the token of a call Redis answered late",
          "Debug: RateLimiter.layerRedis: the answer of a late command was lost (Socket closed unexpectedly)",
          "Warn: RateLimiter.layerRedis: could not give back the token of a call Redis answered late"
        ])
      })
    ))
})
