/**
 * Per-call cost of `RateLimiter.layerRedis` against `RateLimiter.layerMemory` (the anchor),
 * in one run: the same trivial rate-limited tool through the full pipeline
 * (`ToolSystem.layerNode`, `ToolExecutor.execute`), one call after the other, on a
 * `redis-server` started here on a free port of 127.0.0.1 (no persistence). Rounds of the two
 * alternate, so a busy machine slows both alike; the medians of the per-call times are
 * compared. Prints "skipped" (exit 0) when `redis-server` is not installed.
 *
 * The library is measured as it ships, compiled, from `dist/`.
 *
 *   npm run build && npx tsx bench/ratelimit.ts        (BENCH_CALLS=2000 a round, 5 rounds)
 */
import { Effect, type Layer, ManagedRuntime, Schema } from "effect"
import { Redis } from "ioredis"
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import type * as Library from "../src/index.js"

const CALLS = Number(process.env.BENCH_CALLS ?? 2000)
const ROUNDS = 5
const WARMUP = 1000

const installed = (() => {
  try {
    execFileSync("redis-server", ["--version"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})()
if (!installed) {
  process.stdout.write("ratelimit: skipped (redis-server is not installed)\n")
  process.exit(0)
}

const dist = new URL("../dist/index.js", import.meta.url)
if (!fs.existsSync(fileURLToPath(dist))) throw new Error(`${fileURLToPath(dist)} is missing: npm run build first`)
const { RateLimiter, Tool, ToolSystem, Workspace }: typeof Library = await import(dist.href)

const line = (label: string, text: string) => process.stdout.write(`${label.padEnd(44)} ${text}\n`)

const median = (samples: ReadonlyArray<number>): number =>
  [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)] ?? Number.NaN

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => (address !== null && typeof address === "object" ? resolve(address.port) : reject(new Error("no port"))))
    })
  })

/** The tool: never refused (a limit far above what the run makes), so every call is counted. */
const inc = Tool.make("inc", {
  description: "Adds one",
  parameters: Schema.Struct({ x: Schema.Number }),
  readOnly: true,
  rateLimitRpm: 1_000_000_000,
  handler: ({ x }) => Effect.succeed(x + 1)
})

const main = async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ets-bench-redis-"))
  const port = await freePort()
  const server = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no"],
    { stdio: "ignore" }
  )
  const url = `redis://127.0.0.1:${port}`
  // refused until the server listens: the PING waits in the offline queue (5 s at most)
  const probe = new Redis(port, "127.0.0.1", { retryStrategy: () => 20, maxRetriesPerRequest: null, commandTimeout: 5000 })
  probe.on("error", () => {}) // the refusals before the server listens
  try {
    await probe.ping()
    const prefix = `ets-bench-${process.pid}:`
    const system = (rateLimiter: Layer.Layer<Library.RateLimiter>) =>
      ToolSystem.layerNode({ builtins: false, tools: [inc], workspace: Workspace.layerFixed(process.cwd()), rateLimiter })
    const runtimes = {
      memory: ManagedRuntime.make(system(RateLimiter.layerMemory)),
      redis: ManagedRuntime.make(system(RateLimiter.layerRedis({ redis: url, prefix })))
    }
    const executors = {
      memory: await runtimes.memory.runPromise(ToolSystem),
      redis: await runtimes.redis.runPromise(ToolSystem)
    }
    const call = async (which: "memory" | "redis", x: number) => {
      const result = await runtimes[which].runPromise(executors[which].execute("inc", { x }))
      if (!result.success || result.output !== x + 1) throw new Error(`${which}: ${JSON.stringify(result)}`)
    }
    for (let i = 0; i < WARMUP; i++) {
      await call("memory", i)
      await call("redis", i)
    }
    // the Redis layer did count in Redis (the bucket of `inc` is there)
    if ((await probe.exists(`${prefix}inc`)) !== 1) throw new Error("no bucket in Redis: the Redis layer was not used")

    line("load average", `${os.loadavg()[0]?.toFixed(2)} (${os.availableParallelism()} cores)`)
    const samples = { memory: new Array<number>(), redis: new Array<number>() }
    for (let round = 0; round < ROUNDS; round++) {
      for (const which of ["memory", "redis"] as const) {
        for (let i = 0; i < CALLS; i++) {
          const start = performance.now()
          await call(which, i)
          samples[which].push((performance.now() - start) * 1000)
        }
      }
    }
    const memory = median(samples.memory)
    const redis = median(samples.redis)
    const count = `(median of ${ROUNDS} x ${CALLS} calls)`
    line("anchor: layerMemory, per call", `${memory.toFixed(1)} µs ${count}`)
    line("layerRedis, per call", `${redis.toFixed(1)} µs ${count}`)
    line("overhead of layerRedis, per call", `${(redis - memory).toFixed(1)} µs`)
    line("ratio layerRedis/layerMemory", `${(redis / memory).toFixed(2)}x`)
    await runtimes.memory.dispose()
    await runtimes.redis.dispose()
  } finally {
    probe.disconnect()
    server.kill("SIGKILL")
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((error: unknown) => {
  process.exitCode = 1
  process.stderr.write(`${String(error)}\n`)
})
