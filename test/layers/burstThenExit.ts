/**
 * A child process for `SandboxPool.slow.test.ts`: a burst of calls on a pool whose extra Workers
 * stay warm for a minute, no shutdown; it prints the pool's stats and must then exit by itself
 * (idle Workers and their timers are unref'd).
 */
import { Effect } from "effect"
import { DEFAULT_POOL_OPTIONS, SandboxWorkers } from "../../src/layers/SandboxPool.js"

const pool = new SandboxWorkers({ ...DEFAULT_POOL_OPTIONS, idleMs: 60_000 })
await Effect.runPromise(
  Effect.all(Array.from({ length: 8 }, () => pool.run("1 + 1", 5000)), { concurrency: "unbounded" })
)
process.stdout.write(JSON.stringify(pool.stats()))
