/**
 * How many cores other processes leave free: the machine's busy time less this process's own
 * CPU time between two readings, so a search's own past work (its worker threads included)
 * never counts as load (nor does time a core spent waiting for the disk). The 1-minute load average counts it: a few searches in a row raised it
 * past the core count on an idle 2-core machine, and the next search then started no worker.
 * Without a recent reading (the first call), the tasks running right now tell (Linux's
 * `/proc/loadavg`, the least of three looks: one look alone often catches a passing task), and
 * elsewhere the load average: it lags, and still counts processes that ended a minute ago.
 *
 * @since 0.4.0
 */
import { readFileSync } from "node:fs"
import { availableParallelism, cpus, loadavg } from "node:os"

/** A reading of the CPU time spent so far. */
interface Reading {
  readonly at: number
  /** Busy time (user, nice, system, interrupts) of every core together (ms). */
  readonly busyMs: number
  /** This process's CPU time, every thread's (ms). */
  readonly ownMs: number
}

/** The shortest time between two readings that tells anything (the idle counters tick in 10 ms). */
export const MIN_WINDOW_MS = 200
/** The longest: an older reading tells about another time, and the load average is used instead. */
export const MAX_WINDOW_MS = 60_000

const read = (): Reading => {
  const own = process.cpuUsage()
  return {
    at: performance.now(),
    busyMs: cpus().reduce((total, { times }) => total + times.user + times.nice + times.sys + times.irq, 0),
    ownMs: (own.user + own.system) / 1000
  }
}

/**
 * Tasks other than this thread running or runnable now, by `/proc/loadavg`'s `running/total`
 * field (the least of three looks); the 1-minute load average where there is no such file.
 */
const othersNow = (): number => {
  let least = Number.POSITIVE_INFINITY
  try {
    for (let i = 0; i < 3; i++) {
      const running = Number(readFileSync("/proc/loadavg", "latin1").split(" ")[3]?.split("/")[0])
      if (Number.isInteger(running)) least = Math.min(least, running - 1)
    }
  } catch {
    // not Linux: the load average below
  }
  return Number.isFinite(least) ? Math.max(0, least) : loadavg()[0] ?? 0
}

let last: Reading | undefined
let lastFree: number | undefined

/**
 * The cores not used by other processes since the last call (at most `availableParallelism()`,
 * fractional). Within `MIN_WINDOW_MS` of it, the same answer; on the first call, or after
 * `MAX_WINDOW_MS`, the cores less the tasks running now (`othersNow`).
 */
export const freeCores = (): number => {
  const cores = availableParallelism()
  const now = read()
  const previous = last
  const window = previous === undefined ? 0 : now.at - previous.at
  if (previous !== undefined && window < MIN_WINDOW_MS && lastFree !== undefined) return lastFree
  last = now
  if (previous === undefined || window < MIN_WINDOW_MS || window > MAX_WINDOW_MS) {
    lastFree = Math.max(0, cores - othersNow())
    return lastFree
  }
  const others = (now.busyMs - previous.busyMs - (now.ownMs - previous.ownMs)) / window
  lastFree = Math.min(cores, Math.max(0, cores - others))
  return lastFree
}
