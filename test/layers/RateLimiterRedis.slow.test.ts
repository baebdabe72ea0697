/**
 * `RateLimiter.layerRedis` against a real `redis-server` (Debian's package; `.ci/run` installs
 * it): limits shared by separate processes, tenant keys, `check`, and what happens when Redis
 * is killed, stalled and started again.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Context, Duration, Effect, Exit, Layer, Logger, Result, Schedule } from "effect"
import { spawn } from "node:child_process"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { createClient } from "redis"
import { RateLimited } from "../../src/domain/errors.js"
import { RateLimiter, ToolSystem, Workspace } from "../../src/index.js"
import type { RedisRateLimiterOptions } from "../../src/services/RateLimiter.js"
import { freshPrefix, limitedTool, type RedisServer, redisServer, redisServerInstalled } from "../helpers/redisServer.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")

/**
 * One process of the multi-process test (run with `node --import tsx`, its config in
 * `ETS_WORKER`): builds the tool system with the Redis limiter, connects (a call of another
 * tool), prints `ready`, waits for a line on stdin, then makes `calls` calls of `ping` at once
 * through the executor and prints one JSON line: how many ran, how many were RATE_LIMITED (and
 * their `retryAfterMs` range), how many of those Redis did not count ("not checked"), anything
 * else. With `now`, every worker's Effect `Clock` stands at that instant (its sleeps stay real):
 * the buckets are refilled on the callers' time, so no token comes back during the run.
 */
const workerSource = `
import { Clock, Effect, Schema } from "effect"
import * as os from "node:os"
import * as readline from "node:readline"
const { RateLimiter, Tool, ToolSystem, Workspace } = await import(${JSON.stringify(pathToFileURL(path.join(root, "src/index.ts")).href)})
const config = JSON.parse(process.env.ETS_WORKER ?? "{}")
const ping = Tool.make("ping", {
  description: "Answers pong, rateLimitRpm times a minute",
  parameters: Schema.Struct({}),
  readOnly: true,
  rateLimitRpm: config.rpm,
  handler: () => Effect.succeed("pong")
})
const warmup = Tool.make("warmup", {
  description: "Opens the connection to Redis",
  parameters: Schema.Struct({}),
  readOnly: true,
  rateLimitRpm: 1_000_000,
  handler: () => Effect.succeed("ok")
})
const frozen = (effect) => config.now === undefined ? effect : Effect.clockWith((live) => {
  const nanos = BigInt(config.now) * 1_000_000n
  return Effect.provideService(effect, Clock.Clock, {
    currentTimeMillisUnsafe: () => config.now,
    currentTimeMillis: Effect.succeed(config.now),
    currentTimeNanosUnsafe: () => nanos,
    currentTimeNanos: Effect.succeed(nanos),
    monotonicTimeNanosUnsafe: () => live.monotonicTimeNanosUnsafe(),
    monotonicTimeNanos: live.monotonicTimeNanos,
    sleep: (duration) => live.sleep(duration)
  })
})
const go = Effect.callback((resume) => {
  const lines = readline.createInterface({ input: process.stdin })
  lines.once("line", () => {
    lines.close()
    resume(Effect.void)
  })
})
const program = Effect.gen(function*() {
  const tools = yield* ToolSystem
  const first = yield* tools.execute("warmup", {})
  if (!first.success) return yield* Effect.die(new Error("warmup failed: " + first.error))
  process.stdout.write("ready\\n")
  yield* go
  const options = config.key === undefined ? {} : { rateLimitKey: config.key }
  const results = yield* frozen(Effect.all(
    Array.from({ length: config.calls }, () => tools.execute("ping", {}, options)),
    { concurrency: "unbounded" }
  ))
  const refused = results.filter((r) => !r.success && r.errorCode === "RATE_LIMITED")
  const limited = refused.map((r) => r.retryAfterMs ?? -1)
  const other = results.filter((r) => !r.success && r.errorCode !== "RATE_LIMITED").map((r) => r.error)
  process.stdout.write(JSON.stringify({
    admitted: results.filter((r) => r.success).length,
    limited: limited.length,
    retryAfterMs: limited.length === 0 ? null : [Math.min(...limited), Math.max(...limited)],
    unchecked: refused.filter((r) => r.error.includes("not checked")).length,
    other
  }) + "\\n")
})
Effect.runPromise(program.pipe(Effect.provide(ToolSystem.layerNode({
  builtins: false,
  tools: [ping, warmup],
  workspace: Workspace.layerFixed(os.tmpdir()),
  rateLimiter: RateLimiter.layerRedis({ redis: config.url, prefix: config.prefix, timeoutMs: config.timeoutMs })
})))).then(() => process.exit(0), (error) => {
  process.stderr.write(String(error) + "\\n")
  process.exit(1)
})
`

const TIMEOUT_MS = 200
/** What a call may take beyond `timeoutMs` on this shared 2-core machine. */
const MARGIN_MS = 500

/** The limiter of a `layerRedis`, open for the scope. */
const redisLimiter = (options: RedisRateLimiterOptions) =>
  Effect.map(Layer.build(RateLimiter.layerRedis(options)), (context) => Context.get(context, RateLimiter))

/** The log lines (level and message) of the effect. */
const withLogs = <A, E, R>(body: (logs: ReadonlyArray<string>) => Effect.Effect<A, E, R>) => {
  const logs: Array<string> = []
  const logger = Logger.make(({ logLevel, message }) => {
    logs.push(`${logLevel.toUpperCase()} ${Array.isArray(message) ? message.join(" ") : String(message)}`)
  })
  return body(logs).pipe(Effect.provide(Logger.layer([logger])))
}

/** The exit of `effect` and how long it took, in ms. */
const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.timed(Effect.exit(effect)), ([duration, exit]) => ({ exit, ms: Duration.toMillis(duration) }))

const failureOf = <A>(exit: Exit.Exit<A, RateLimited>): RateLimited | undefined =>
  Exit.isFailure(exit) ? Result.getOrUndefined(Cause.findError(exit.cause)) : undefined

/** Retries `acquire` until Redis counts again (bounded). */
const untilAdmitted = (effect: Effect.Effect<void, RateLimited>) =>
  effect.pipe(Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo({ duration: "6 seconds" }))))

interface WorkerResult {
  readonly admitted: number
  readonly limited: number
  readonly retryAfterMs: readonly [number, number] | null
  readonly unchecked: number
  readonly other: ReadonlyArray<string>
}

/** One worker process (`workerSource` through tsx), killed with the scope. */
const startWorker = (config: Record<string, unknown>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "--eval", workerSource], {
        cwd: root,
        env: { ...process.env, ETS_WORKER: JSON.stringify(config) },
        stdio: ["pipe", "pipe", "pipe"]
      })
      let stdout = ""
      let stderr = ""
      child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString("utf8")))
      const ready = new Promise<void>((resolve, reject) => {
        child.stdout.on("data", (chunk: Buffer) => {
          stdout += chunk.toString("utf8")
          if (stdout.startsWith("ready\n")) resolve()
        })
        child.on("exit", (code) => reject(new Error(`worker exited (${code}) before ready: ${stderr}`)))
      })
      const result = new Promise<WorkerResult>((resolve, reject) => {
        child.on("exit", (code) => {
          const last = stdout.trim().split("\n").at(-1) ?? ""
          if (code === 0 && last.startsWith("{")) resolve(JSON.parse(last))
          else reject(new Error(`worker exited (${code}): ${stdout}\n${stderr}`))
        })
      })
      return { child, ready, result }
    }),
    ({ child }) => Effect.sync(() => void (child.exitCode === null && child.kill("SIGKILL")))
  )

// Without redis-server the tests are skipped on a developer's machine; under CI they must run.
describe.skipIf(!redisServerInstalled && process.env.CI === undefined)("RateLimiter.layerRedis", { timeout: 60_000 }, () => {
  it.live("4 processes making 1,000 calls together against 100/min admit exactly 100", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer()
      const prefix = freshPrefix("test")
      // A generous wait on Redis: 250 calls at once in one process under tsx, on a loaded
      // machine, can keep the process itself busy past 200 ms; this test is about counting.
      // The workers' clocks stand at one instant, so no token is refilled (one every 600 ms)
      // while the slowest process is still making its calls.
      const config = { url: redis.url, prefix, rpm: 100, calls: 250, timeoutMs: 5_000, now: Date.now() }
      const workers = yield* Effect.all(Array.from({ length: 4 }, () => startWorker(config)))
      yield* Effect.promise(() => Promise.all(workers.map((w) => w.ready)))
      for (const { child } of workers) child.stdin.write("go\n")
      const results = yield* Effect.promise(() => Promise.all(workers.map((w) => w.result)))

      const total = (f: (r: WorkerResult) => number) => results.reduce((sum, r) => sum + f(r), 0)
      expect(results.flatMap((r) => r.other)).toEqual([])
      expect(total((r) => r.unchecked)).toBe(0)
      expect(total((r) => r.admitted)).toBe(100)
      expect(total((r) => r.limited)).toBe(900)
      // each refusal carries when a token is back: at most one refill interval (60 s / 100)
      for (const r of results) {
        if (r.retryAfterMs === null) continue
        expect(r.retryAfterMs[0]).toBeGreaterThan(0)
        expect(r.retryAfterMs[1]).toBeLessThanOrEqual(600)
      }
    }))

  it.live("a tenant key is a bucket of its own; the RATE_LIMITED results are the memory layer's", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer()
      const limited = limitedTool("limited", 3)
      const run = (rateLimiter: Layer.Layer<RateLimiter>) =>
        Effect.gen(function*() {
          const tools = yield* ToolSystem
          const calls = (key: string | undefined, n: number) =>
            Effect.forEach(
              Array.from({ length: n }),
              () => tools.execute("limited", {}, key === undefined ? {} : { rateLimitKey: key })
            )
          const a = yield* calls("alice", 4)
          const b = yield* calls("bob", 3)
          const none = yield* calls(undefined, 3)
          // a key that looks like the store's own suffix stays a bucket of its own
          const odd = yield* calls(":refill", 3)
          return { a, b, none, odd }
        }).pipe(
          Effect.provide(ToolSystem.layerNode({
            builtins: false,
            tools: [limited],
            workspace: Workspace.layerFixed(os.tmpdir()),
            rateLimiter
          }))
        )
      const viaRedis = yield* run(RateLimiter.layerRedis({ redis: redis.url, prefix: freshPrefix("test") }))
      const inMemory = yield* run(RateLimiter.layerMemory)

      const shape = (r: typeof viaRedis) =>
        Object.fromEntries(Object.entries(r).map(([k, results]) => [k, results.map((x) => x.errorCode)]))
      expect(shape(viaRedis)).toEqual({
        a: [null, null, null, "RATE_LIMITED"],
        b: [null, null, null],
        none: [null, null, null],
        odd: [null, null, null]
      })
      expect(shape(viaRedis)).toEqual(shape(inMemory))
      const refused = viaRedis.a[3]
      const memoryRefused = inMemory.a[3]
      expect(refused?.success).toBe(false)
      if (refused?.success === false && memoryRefused?.success === false) {
        // one token every 20 s: both say when it is back, within one refill interval
        expect(refused.retryAfterMs).toBeGreaterThan(0)
        expect(refused.retryAfterMs).toBeLessThanOrEqual(20_000)
        expect(memoryRefused.retryAfterMs).toBeGreaterThan(0)
        expect(refused.error).toContain("Rate limit of 3/min")
        expect(refused.error).not.toContain("not checked")
      }
    }))

  it.live("check takes no token; limiters on one Redis (URL, host and port, a client's options) share the bucket", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer()
      const prefix = freshPrefix("test")
      // a node-redis client, never connected: the limiter reads its options
      const client = createClient({ socket: { host: "127.0.0.1", port: redis.port } })
      const one = yield* redisLimiter({ redis: redis.url, prefix })
      const two = yield* redisLimiter({ redis: { host: "127.0.0.1", port: redis.port }, prefix })
      const three = yield* redisLimiter({ redis: { client }, prefix })
      const tool = limitedTool("checked", 3)
      for (let i = 0; i < 10; i++) yield* one.check(tool, "t")
      yield* one.acquire(tool, "t")
      yield* two.check(tool, "t")
      yield* two.acquire(tool, "t")
      yield* three.acquire(tool, "t")
      const checked = failureOf(yield* Effect.exit(one.check(tool, "t")))
      const acquired = failureOf(yield* Effect.exit(three.acquire(tool, "t")))
      expect(checked).toBeInstanceOf(RateLimited)
      expect(checked?.reason).toBeUndefined()
      expect(checked?.retryAfterMs).toBe(20_000)
      expect(acquired).toBeInstanceOf(RateLimited)
      expect(acquired?.retryAfterMs).toBeLessThanOrEqual(20_000)
      // the tool without a key is another bucket
      yield* one.acquire(tool)
    }))

  it.live("fail-closed (default): Redis killed, every call refused with the reason in bounded time; restarted, it counts again", () =>
    withLogs((logs) =>
      Effect.gen(function*() {
        const redis = yield* redisServer()
        const limiter = yield* redisLimiter({ redis: redis.url, prefix: freshPrefix("test"), timeoutMs: TIMEOUT_MS })
        const tool = limitedTool("closed", 1_000)
        yield* limiter.acquire(tool)

        yield* redis.kill
        const calls = yield* Effect.all(
          [
            ...Array.from({ length: 5 }, () => timed(limiter.acquire(tool))),
            ...Array.from({ length: 5 }, () => timed(limiter.check(tool, "k")))
          ],
          { concurrency: "unbounded" }
        )
        const sequential = yield* Effect.forEach(Array.from({ length: 3 }), () => timed(limiter.acquire(tool)))
        for (const { exit, ms } of [...calls, ...sequential]) {
          const error = failureOf(exit)
          expect(error).toBeInstanceOf(RateLimited)
          expect(error?.reason).toMatch(/^Redis unavailable: /)
          expect(error?.retryAfterMs).toBe(1_000)
          expect(error?.message).toContain("not checked (Redis unavailable")
          expect(ms).toBeLessThan(TIMEOUT_MS + MARGIN_MS)
        }
        expect(logs.filter((l) => l.startsWith("WARN") && l.includes("(fail-closed)"))).toHaveLength(1)

        yield* redis.restart
        yield* untilAdmitted(limiter.acquire(tool))
        expect(logs.filter((l) => l.startsWith("INFO") && l.includes("answers again"))).toHaveLength(1)
      })
    ))

  it.live("a stalled Redis (SIGSTOP): calls give up after timeoutMs; resumed, they count again", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer()
      const limiter = yield* redisLimiter({ redis: redis.url, prefix: freshPrefix("test"), timeoutMs: TIMEOUT_MS })
      const tool = limitedTool("stalled", 1_000)
      yield* limiter.acquire(tool)

      yield* redis.pause
      yield* Effect.addFinalizer(() => redis.resume)
      const calls = yield* Effect.all(Array.from({ length: 5 }, () => timed(limiter.acquire(tool))), {
        concurrency: "unbounded"
      })
      for (const { exit, ms } of calls) {
        expect(failureOf(exit)?.reason).toMatch(/^Redis unavailable: /)
        expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 20)
        expect(ms).toBeLessThan(TIMEOUT_MS + MARGIN_MS)
      }

      yield* redis.resume
      yield* untilAdmitted(limiter.acquire(tool))
    }))

  it.live("fallback-memory: Redis killed, the limits apply per process in bounded time; restarted, they are shared again", () =>
    withLogs((logs) =>
      Effect.gen(function*() {
        const redis = yield* redisServer()
        const prefix = freshPrefix("test")
        const limiter = yield* redisLimiter({
          redis: redis.url,
          prefix,
          timeoutMs: TIMEOUT_MS,
          onUnavailable: "fallback-memory"
        })
        const tool = limitedTool("fallback", 2)
        yield* limiter.acquire(tool)

        yield* redis.kill
        // the process's own bucket (full: 2) decides now
        const calls = yield* Effect.forEach(Array.from({ length: 3 }), () => timed(limiter.acquire(tool)))
        expect(calls.map(({ exit }) => exit._tag)).toEqual(["Success", "Success", "Failure"])
        for (const { ms } of calls) expect(ms).toBeLessThan(TIMEOUT_MS + MARGIN_MS)
        const refused = failureOf(calls[2]!.exit)
        expect(refused?.reason).toBeUndefined()
        expect(refused?.retryAfterMs).toBeGreaterThan(0)
        expect(logs.filter((l) => l.startsWith("WARN") && l.includes("(fallback-memory)"))).toHaveLength(1)

        // restarted (empty): the process's bucket is used up, so an admitted call was counted by Redis
        yield* redis.restart
        yield* untilAdmitted(limiter.acquire(tool))
        expect(logs.filter((l) => l.startsWith("INFO") && l.includes("answers again"))).toHaveLength(1)
        // and the bucket is shared again: another limiter takes the last token
        const other = yield* redisLimiter({ redis: redis.url, prefix })
        yield* other.acquire(tool)
        const after = failureOf(yield* Effect.exit(limiter.acquire(tool)))
        expect(after).toBeInstanceOf(RateLimited)
        expect(after?.reason).toBeUndefined()
      })
    ))

  it.live("a limiter whose Redis never started refuses at once and closes without hanging", () =>
    Effect.gen(function*() {
      const redis: RedisServer = yield* redisServer()
      yield* redis.kill
      const { exit, ms } = yield* timed(
        Effect.scoped(Effect.flatMap(redisLimiter({ redis: redis.url, prefix: freshPrefix("test") }), (limiter) =>
          limiter.acquire(limitedTool("nowhere", 10))))
      )
      expect(failureOf(exit)?.reason).toMatch(/^Redis unavailable: /)
      expect(ms).toBeLessThan(TIMEOUT_MS + 2 * MARGIN_MS)
    }))
})

describe("RateLimiter.layerRedis options", () => {
  it.effect("a bad URL is a defect with the reason", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Effect.scoped(redisLimiter({ redis: "http://127.0.0.1:6379" })))
      expect(Exit.isFailure(exit) ? String(Result.getOrUndefined(Cause.findDefect(exit.cause))) : "").toContain(
        "expected a redis:// or rediss:// URL"
      )
    }))
})
