/**
 * Per-call cost of `execute_javascript`'s sandbox: a call on the warm pool against the anchor,
 * a call that starts its own Worker and QuickJS module (a pool that keeps no worker).
 * Goal: warm call <= 0.2x the anchor. Run: `npx tsx bench/sandbox.ts`.
 *
 * Under tsx the worker starts through tsx, which makes the anchor slower than in the compiled
 * package (~25 ms there); build first and run the same file from dist for the package's numbers.
 */
import { Effect } from "effect"
import { DEFAULT_POOL_OPTIONS, SandboxWorkers } from "../src/tools/builtin/sandbox/pool.js"

const WARM_CALLS = Number(process.env.BENCH_CALLS ?? 300)
const COLD_CALLS = 10
const CODE = "let s = 0; for (let i = 0; i < 100; i++) s += i; s"

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN

const measure = async (label: string, pool: SandboxWorkers, calls: number): Promise<number> => {
  const samples: Array<number> = []
  for (let i = 0; i < calls; i++) {
    const start = performance.now()
    const outcome = await Effect.runPromise(pool.run(CODE, 5000))
    samples.push(performance.now() - start)
    if (outcome.kind !== "ok" || outcome.result !== "4950") throw new Error(`unexpected ${JSON.stringify(outcome)}`)
  }
  samples.sort((a, b) => a - b)
  const median = percentile(samples, 0.5)
  process.stdout.write(
    `${label.padEnd(40)} p50 ${median.toFixed(2)} ms  p90 ${percentile(samples, 0.9).toFixed(2)} ms  (${calls} calls)\n`
  )
  return median
}

const main = async () => {
  const cold = new SandboxWorkers({ ...DEFAULT_POOL_OPTIONS, warm: 0, maxIdle: 0 })
  const warm = new SandboxWorkers()
  try {
    const anchor = await measure("anchor: new Worker + module per call", cold, COLD_CALLS)
    await Effect.runPromise(warm.run("0", 5000)) // start the warm worker
    const pooled = await measure("warm pool: fresh runtime per call", warm, WARM_CALLS)
    process.stdout.write(`ratio warm/anchor: ${(pooled / anchor).toFixed(3)} (goal <= 0.2)\n`)
  } finally {
    await Effect.runPromise(Effect.zipRight(cold.shutdown(), warm.shutdown()))
  }
}

main().catch((error: unknown) => {
  process.exitCode = 1
  process.stderr.write(`${String(error)}\n`)
})
