/**
 * The per-call cost of `execute_javascript`'s sandbox (the same anchors, counts, bursts and
 * rounds as the Effect 3 line's `bench/sandbox.ts`, tag effect3), against anchors measured in the
 * same process.
 *
 * 1. A sequential call on the warm pool against the anchor, a call that starts its own Worker and
 *    QuickJS module (a pool that keeps no worker). Goal: warm call <= 0.2x that anchor.
 * 2. Bursts of 50 calls at once, per call (the burst's wall time / 50), against 50 calls one
 *    after the other on the warm pool (the anchor). The first burst starts the Workers (up to
 *    `maxWorkers`); the later ones run on the Workers it started, which stay warm `idleMs`
 *    ("kept"). Beside them, the same bursts on a pool with `idleMs: 0` ("dropped"), where a
 *    Worker beyond `maxIdle` ends with its call, so every burst starts Workers again. Goal: a
 *    later burst <= 1x the anchor.
 *
 * The pool is measured as it ships, compiled, from `dist/` (its Worker script `worker.js` is found
 * beside it): `npm run build` first. The bench itself is bundled by esbuild as `bench/executor.ts`
 * (the pool is imported from `dist/` at run time, not bundled):
 *
 *   esbuild bench/sandbox.ts --bundle --platform=node --format=esm --packages=external --target=node22 \
 *     --outfile=bench/dist/sandbox.mjs --log-level=warning && node bench/dist/sandbox.mjs
 *
 * BENCH_CALLS=300 warm calls.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import type * as PoolModule from "../src/layers/SandboxPool.js"

/** The tree's root, from `bench/sandbox.ts` or from its bundle `bench/dist/sandbox.mjs`. */
const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, path.basename(here) === "dist" ? "../.." : "..")
const distPool = path.join(root, "dist/layers/SandboxPool.js")
if (!fs.existsSync(distPool)) throw new Error(`${distPool} is missing: npm run build first`)
const { DEFAULT_POOL_OPTIONS, SandboxWorkers }: typeof PoolModule = await import(pathToFileURL(distPool).href)
type Pool = InstanceType<typeof SandboxWorkers>

const WARM_CALLS = Number(process.env.BENCH_CALLS ?? 300)
const COLD_CALLS = 10
const BURST = 50
const ROUNDS = 7
const CODE = "let s = 0; for (let i = 0; i < 100; i++) s += i; s"

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN

const median = (samples: ReadonlyArray<number>): number => percentile([...samples].sort((a, b) => a - b), 0.5)

const line = (label: string, text: string) => process.stdout.write(`${label.padEnd(44)} ${text}\n`)

const call = async (pool: Pool): Promise<void> => {
  const outcome = await Effect.runPromise(pool.run(CODE, 5000))
  if (outcome.kind !== "ok" || outcome.result !== "4950") throw new Error(`unexpected ${JSON.stringify(outcome)}`)
}

const sequential = async (label: string, pool: Pool, calls: number): Promise<number> => {
  const samples: Array<number> = []
  for (let i = 0; i < calls; i++) {
    const start = performance.now()
    await call(pool)
    samples.push(performance.now() - start)
  }
  samples.sort((a, b) => a - b)
  const p50 = percentile(samples, 0.5)
  line(label, `p50 ${p50.toFixed(2)} ms  p90 ${percentile(samples, 0.9).toFixed(2)} ms  (${calls} calls)`)
  return p50
}

/** Per-call cost of one burst of `BURST` calls at once. */
const burst = async (pool: Pool): Promise<number> => {
  const start = performance.now()
  await Promise.all(Array.from({ length: BURST }, () => call(pool)))
  return (performance.now() - start) / BURST
}

/** Per-call cost of `BURST` calls one after the other. */
const oneByOne = async (pool: Pool): Promise<number> => {
  const start = performance.now()
  for (let i = 0; i < BURST; i++) await call(pool)
  return (performance.now() - start) / BURST
}

/**
 * After a first burst on each pool, `ROUNDS` rounds of: `BURST` sequential calls on the warm
 * pool (the anchor), a burst on the pool that keeps its Workers, a burst on the one that does
 * not. Interleaved, so that the three share the machine's noise; medians reported.
 */
const burstRounds = async (kept: Pool, dropped: Pool): Promise<void> => {
  for (const [label, pool] of [["kept", kept], ["dropped", dropped]] as const) {
    const first = await burst(pool)
    line(`${label}: first burst (starts the Workers)`, `${first.toFixed(2)} ms a call  (${pool.stats().spawned} started)`)
  }
  const started = { kept: kept.stats().spawned, dropped: dropped.stats().spawned }
  const samples = { anchor: new Array<number>(), kept: new Array<number>(), dropped: new Array<number>() }
  for (let round = 0; round < ROUNDS; round++) {
    samples.anchor.push(await oneByOne(kept))
    samples.kept.push(await burst(kept))
    samples.dropped.push(await burst(dropped))
  }
  const anchor = median(samples.anchor)
  const keptCall = median(samples.kept)
  const droppedCall = median(samples.dropped)
  const startedSince = (pool: Pool, before: number) => `${pool.stats().spawned - before} Workers started`
  line("anchor: warm call, one after the other", `${anchor.toFixed(2)} ms a call`)
  line("kept: later bursts", `${keptCall.toFixed(2)} ms a call  (${startedSince(kept, started.kept)})`)
  line("dropped: later bursts", `${droppedCall.toFixed(2)} ms a call  (${startedSince(dropped, started.dropped)})`)
  line("ratio kept burst/anchor", `${(keptCall / anchor).toFixed(3)} (goal <= 1)`)
  line("ratio dropped burst/anchor", (droppedCall / anchor).toFixed(3))
  line("ratio dropped burst/kept burst", (droppedCall / keptCall).toFixed(2))
}

const main = async () => {
  const cold = new SandboxWorkers({ ...DEFAULT_POOL_OPTIONS, warm: 0, maxIdle: 0, idleMs: 0 })
  const warm = new SandboxWorkers()
  const kept = new SandboxWorkers()
  const dropped = new SandboxWorkers({ ...DEFAULT_POOL_OPTIONS, idleMs: 0 })
  try {
    line("load average", `${os.loadavg()[0]?.toFixed(2)} (${os.availableParallelism()} cores)`)
    const coldAnchor = await sequential("anchor: new Worker + module per call", cold, COLD_CALLS)
    await call(warm) // start the warm worker
    const warmCall = await sequential("warm pool: fresh runtime per call", warm, WARM_CALLS)
    line("ratio warm/anchor", `${(warmCall / coldAnchor).toFixed(3)} (goal <= 0.2)`)

    process.stdout.write(
      `\nbursts of ${BURST} calls at once, median of ${ROUNDS} rounds; kept: idleMs ${DEFAULT_POOL_OPTIONS.idleMs}, ` +
        `dropped: idleMs 0 (a Worker beyond maxIdle ends with its call)\n`
    )
    await burstRounds(kept, dropped)
  } finally {
    await Effect.runPromise(
      Effect.all([cold, warm, kept, dropped].map((pool) => pool.shutdown()), { discard: true })
    )
  }
}

main().catch((error: unknown) => {
  process.exitCode = 1
  process.stderr.write(`${String(error)}\n`)
})
