/**
 * `freeCores`: this process's own work never counts as load (a search right after a busy one
 * still gets its workers), other processes' work does, and calls close together share one
 * answer; on a first call, or one long after the last, the tasks running now decide.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { availableParallelism, cpus } from "node:os"
import {
  type CpuReading,
  freeBetween,
  freeCores,
  makeFreeCores,
  MAX_WINDOW_MS,
  MIN_WINDOW_MS,
  othersRunningIn
} from "../../../../src/tools/ported/reading/freeCores.js"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
/** Keeps this thread busy for `ms`. */
const spin = (ms: number) => {
  const end = performance.now() + ms
  while (performance.now() < end) {
    // busy
  }
}

describe.skipIf(process.platform !== "linux")("freeCores", () => {
  it("does not count this process's own work, and answers calls close together alike", async () => {
    // the machine's busy time over the same window, as this test sees it (other test files may run meanwhile)
    const busyMs = () => cpus().reduce((total, { times }) => total + times.user + times.nice + times.sys + times.irq, 0)
    const busyBefore = busyMs()
    const ownBefore = process.cpuUsage()
    const start = performance.now()
    freeCores()
    await sleep(MIN_WINDOW_MS)
    spin(600)
    const elapsed = performance.now() - start
    const notBusy = availableParallelism() - (busyMs() - busyBefore) / elapsed
    const own = process.cpuUsage(ownBefore)
    // the share of a core this process had: about three quarters of one on a quiet machine,
    // less when other processes load it (the spin is timed by the clock, not by its CPU)
    const ownShare = (own.user + own.system) / 1000 / elapsed
    const afterOwnWork = freeCores()
    expect(ownShare).toBeGreaterThan(0.1)
    // what this process used counts as free
    expect(afterOwnWork - notBusy).toBeGreaterThan(ownShare - 0.2)
    expect(afterOwnWork).toBeLessThanOrEqual(availableParallelism())
    expect(freeCores()).toBe(afterOwnWork)
  })

  it("counts another process's work", async () => {
    const hog = spawn(process.execPath, ["-e", "const end = Date.now() + 5000; while (Date.now() < end) {}"], { stdio: "ignore" })
    try {
      await sleep(100)
      freeCores()
      await sleep(600)
      expect(freeCores()).toBeLessThan(availableParallelism() - 0.5)
    } finally {
      hog.kill("SIGKILL")
    }
  }, 10_000)
})

describe("freeBetween", () => {
  const at = (ms: number, busyMs: number, ownMs: number): CpuReading => ({ at: ms, busyMs, ownMs })
  it.each([
    // 1 s on 2 cores: all the busy time ours, half of it, none of it, more than there is
    [at(0, 0, 0), at(1000, 1500, 1500), 2],
    [at(0, 0, 0), at(1000, 1500, 750), 1.25],
    [at(0, 100, 50), at(1000, 1100, 50), 1],
    [at(0, 0, 0), at(1000, 2600, 0), 0],
    [at(0, 0, 500), at(1000, 0, 1000), 2],
    [at(500, 1000, 1000), at(1500, 2000, 1000), 1]
  ])("from %o to %o: %d of 2 cores free", (previous, now, free) => {
    expect(freeBetween(previous, now, 2)).toBeCloseTo(free, 10)
  })
})

describe("othersRunningIn", () => {
  it.each([
    ["0.72 1.09 0.98 1/78 14439\n", 0],
    ["2.00 1.50 1.00 3/120 999\n", 2],
    ["9.80 7.10 4.00 12/340 4242\n", 11],
    ["0.00 0.00 0.00 0/78 1\n", undefined],
    ["0.5 0.5 0.5\n", undefined],
    ["", undefined]
  ])("%j: %s", (text, others) => {
    expect(othersRunningIn(text)).toBe(others)
  })
})

describe("makeFreeCores", () => {
  /** A machine whose readings and running tasks the test sets. */
  const fake = () => {
    const state = { reading: { at: 0, busyMs: 0, ownMs: 0 } as CpuReading, others: 0, looks: 0, reads: 0 }
    const free = makeFreeCores({
      cores: () => 2,
      now: () => state.reading.at,
      read: () => {
        state.reads++
        return state.reading
      },
      othersNow: () => {
        state.looks++
        return state.others
      }
    })
    return { state, free }
  }

  it("answers the first call from the tasks running now, at most the cores and at least none", () => {
    for (const [others, expected] of [[0, 2], [1, 1], [5, 0]] as const) {
      const { free, state } = fake()
      state.others = others
      expect(free()).toBe(expected)
      expect(state.looks).toBe(1)
    }
  })

  it("answers from the readings once a window has passed, and alike within one", () => {
    const { free, state } = fake()
    state.others = 2
    expect(free()).toBe(0)
    // within the shortest window: the same answer, nothing read anew
    state.reading = { at: MIN_WINDOW_MS - 1, busyMs: 0, ownMs: 0 }
    expect(free()).toBe(0)
    expect(state.reads).toBe(1)
    // a window later: another process used half a core, we used one
    state.reading = { at: 1000, busyMs: 1500, ownMs: 1000 }
    expect(free()).toBe(1.5)
    expect(state.looks).toBe(1)
    // the window counts from the last reading taken, not from the first call
    state.reading = { at: 1000 + MIN_WINDOW_MS, busyMs: 1500, ownMs: 1000 }
    expect(free()).toBe(2)
  })

  it("answers from the tasks running now after the longest window", () => {
    const { free, state } = fake()
    expect(free()).toBe(2)
    state.others = 1
    state.reading = { at: MAX_WINDOW_MS + 1, busyMs: 0, ownMs: 0 }
    expect(free()).toBe(1)
    expect(state.looks).toBe(2)
    state.reading = { at: 2 * MAX_WINDOW_MS + 1, busyMs: 0, ownMs: 0 }
    // exactly the longest window still counts as one
    expect(free()).toBe(2)
  })
})
