/**
 * Measures how much the process's memory grows while an effect runs: `process.memoryUsage()`
 * is sampled every few milliseconds and the peak is compared with the value just before.
 */
import { Effect } from "effect"

/** Peak growth while the effect ran, in MiB. */
export interface MemoryGrowth {
  /** Resident set size. */
  readonly rssMb: number
  /** JavaScript heap plus memory outside it (Buffers, ArrayBuffers). */
  readonly heapMb: number
}

const MB = 1024 * 1024

/** Runs `effect` and returns its value with the peak memory growth measured around it. */
export const measureGrowth = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  everyMs = 5
): Effect.Effect<readonly [A, MemoryGrowth], E, R> =>
  Effect.suspend(() => {
    const base = process.memoryUsage()
    let rss = base.rss
    let heap = base.heapUsed + base.external
    const sample = () => {
      const now = process.memoryUsage()
      rss = Math.max(rss, now.rss)
      heap = Math.max(heap, now.heapUsed + now.external)
    }
    return Effect.acquireUseRelease(
      Effect.sync(() => setInterval(sample, everyMs)),
      () => effect,
      (timer) => Effect.sync(() => {
        clearInterval(timer)
        sample()
      })
    ).pipe(
      Effect.map((value) =>
        [value, {
          rssMb: Math.round((rss - base.rss) / MB),
          heapMb: Math.round((heap - base.heapUsed - base.external) / MB)
        }] as const
      )
    )
  })
