/**
 * How many cores other processes leave free: the machine's busy time less this process's own
 * CPU time between two readings, so a search's own past work (its worker threads included)
 * never counts as load (nor does time a core spent waiting for the disk). The 1-minute load
 * average counts it: a few searches in a row raised it past the core count on an idle 2-core
 * machine, and the next search then started no worker. Without a recent reading (the first
 * call), the tasks running right now tell (Linux's `/proc/loadavg`, the least of three looks:
 * one look alone often catches a passing task), and elsewhere the load average: it lags, and
 * still counts processes that ended a minute ago.
 *
 * @since 0.4.0
 */
import { readFileSync } from "node:fs"
import { availableParallelism, cpus, loadavg } from "node:os"

/** A reading of the CPU time spent so far. */
export interface CpuReading {
  /** When it was taken (ms, monotonic). */
  readonly at: number
  /** Busy time (user, nice, system, interrupts) of every core together (ms). */
  readonly busyMs: number
  /** This process's CPU time, every thread's (ms). */
  readonly ownMs: number
}

/** The shortest time between two readings that tells anything (the counters tick in 10 ms). */
export const MIN_WINDOW_MS = 200
/** The longest: an older reading tells about another time, and the tasks running now are used instead. */
export const MAX_WINDOW_MS = 60_000

/** The cores left when other processes use `others` of them (0 to `cores`). */
const coresLeft = (cores: number, others: number): number => Math.min(cores, Math.max(0, cores - others))

/** The cores other processes left free between two readings (0 to `cores`). */
export const freeBetween = (previous: CpuReading, now: CpuReading, cores: number): number =>
  coresLeft(cores, (now.busyMs - previous.busyMs - (now.ownMs - previous.ownMs)) / (now.at - previous.at))

/** Tasks other than the reader running or runnable, from `/proc/loadavg`'s text (`undefined` if it does not say). */
export const othersRunningIn = (loadavgText: string): number | undefined => {
  const running = Number(loadavgText.split(" ")[3]?.split("/")[0])
  return Number.isInteger(running) && running > 0 ? running - 1 : undefined
}

/** What `makeFreeCores` reads the machine with. */
export interface CpuSource {
  readonly cores: () => number
  /** The time now (ms, monotonic), as `CpuReading.at`. */
  readonly now: () => number
  readonly read: () => CpuReading
  /** Tasks of other processes running now. */
  readonly othersNow: () => number
}

/**
 * A `freeCores` over `source`: the cores not used by other processes since its last call.
 * Within `MIN_WINDOW_MS` of that call, the same answer; on the first call, or after
 * `MAX_WINDOW_MS`, the cores less the tasks running now.
 */
export const makeFreeCores = (source: CpuSource): () => number => {
  // the last reading and the answer given with it
  let last: { readonly reading: CpuReading; readonly free: number } | undefined
  return () => {
    // within the shortest window the last answer stands: the machine is not read again
    if (last !== undefined && source.now() - last.reading.at < MIN_WINDOW_MS) return last.free
    const cores = source.cores()
    const now = source.read()
    const window = last === undefined ? 0 : now.at - last.reading.at
    const free = last !== undefined && window >= MIN_WINDOW_MS && window <= MAX_WINDOW_MS
      ? freeBetween(last.reading, now, cores)
      : coresLeft(cores, source.othersNow())
    last = { reading: now, free }
    return free
  }
}

/**
 * Tasks of other processes running now: the least of three looks at `readLoadavg`'s text (Linux's
 * `/proc/loadavg`), else `loadAverage` (where that cannot be read or says nothing).
 */
export const othersNowFrom = (readLoadavg: () => string, loadAverage: () => number): number => {
  let least: number | undefined
  try {
    for (let look = 0; look < 3; look++) {
      const others = othersRunningIn(readLoadavg())
      if (others !== undefined) least = least === undefined ? others : Math.min(least, others)
    }
  } catch {
    // not Linux: the load average below
  }
  return least ?? loadAverage()
}

/** The machine as Node sees it: every core's busy time from `os.cpus()`, this process's from `process.cpuUsage()`. */
export const machineCpu: CpuSource = {
  cores: availableParallelism,
  now: () => performance.now(),
  read: () => {
    const own = process.cpuUsage()
    return {
      at: performance.now(),
      // (`- times.irq` for `+ times.irq` survives where `os.cpus()` reports no interrupt time: 0 on the machine these tests were written on)
      busyMs: cpus().reduce((total, { times }) => total + times.user + times.nice + times.sys + times.irq, 0),
      ownMs: (own.user + own.system) / 1000
    }
  },
  othersNow: () => othersNowFrom(() => readFileSync("/proc/loadavg", "latin1"), () => loadavg()[0] ?? 0)
}

/** The cores other processes leave free now (see `makeFreeCores`), on this machine. */
export const freeCores: () => number = makeFreeCores(machineCpu)
