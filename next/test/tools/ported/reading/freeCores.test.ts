/**
 * `freeCores`: this process's own work never counts as load (a search right after a busy one
 * still gets its workers), other processes' work does, and calls close together share one
 * answer; on a first call, or one long after the last, the tasks running now decide.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { closeSync, openSync, readSync } from "node:fs"
import { availableParallelism, cpus, loadavg } from "node:os"
import {
  type CpuReading,
  freeBetween,
  freeCores,
  machineCpu,
  makeFreeCores,
  MAX_WINDOW_MS,
  MIN_WINDOW_MS,
  othersNowFrom,
  othersRunningIn
} from "../../../../src/tools/ported/reading/freeCores.js"

/** Every core's time not idle (user, nice, system, interrupts), summed as the kernel reports it now. */
const coresBusyMs = () => cpus().reduce((total, { times }) => total + times.user + times.nice + times.sys + times.irq, 0)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
/** Keeps this thread busy until this process has spent `cpuMs` more CPU time, or for `maxMs` at most. */
const spinCpu = (cpuMs: number, maxMs: number) => {
  const started = process.cpuUsage()
  const end = performance.now() + maxMs
  while (performance.now() < end) {
    const spent = process.cpuUsage(started)
    if ((spent.user + spent.system) / 1000 >= cpuMs) return
  }
}

// real time is the point: the machine's CPU counters read over real windows (freeCores.ts reads performance.now)
describe.skipIf(process.platform !== "linux")("freeCores", () => {
  it("does not count this process's own work, and answers calls close together alike", async () => {
    // the machine's busy time over the same window, as this test sees it (other test files may run meanwhile)
    const busyBefore = coresBusyMs()
    const ownBefore = process.cpuUsage()
    const start = performance.now()
    freeCores()
    await sleep(MIN_WINDOW_MS)
    // 250 ms of CPU (25 ticks of the kernel's 10 ms counters), however long a loaded machine takes to give it
    spinCpu(250, 3000)
    const elapsed = performance.now() - start
    const notBusy = availableParallelism() - (coresBusyMs() - busyBefore) / elapsed
    const own = process.cpuUsage(ownBefore)
    // the share of a core this process had: about half of one on a quiet machine, less when
    // other processes load it (the spin then takes longer than the 250 ms of CPU it ends at)
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

// real time is the point: the machine's CPU counters while real processes work
describe.skipIf(process.platform !== "linux")("machineCpu", () => {

  it("counts system time, as this process's own and as the machine's", () => {
    // reading /dev/zero a MiB at a time: CPU time spent mostly in the kernel
    const zero = openSync("/dev/zero", "r")
    const buffer = Buffer.alloc(1 << 20)
    try {
      const before = machineCpu.read()
      const usage = process.cpuUsage()
      const end = performance.now() + 300
      while (performance.now() < end) readSync(zero, buffer)
      const spent = process.cpuUsage(usage)
      const coresBefore = coresBusyMs()
      const after = machineCpu.read()
      // busy is what `CpuReading` says: user, nice, system and interrupt time, every core's
      expect(after.busyMs).toBeGreaterThanOrEqual(coresBefore)
      expect(after.busyMs).toBeLessThanOrEqual(coresBusyMs())
      const spentMs = (spent.user + spent.system) / 1000
      expect(spent.system).toBeGreaterThan(spent.user)
      // both readings of this process's time frame the spin
      expect(after.ownMs - before.ownMs).toBeGreaterThanOrEqual(spentMs)
      // every core's busy time holds this process's (the kernel's counters tick in 10 ms)
      expect(after.busyMs - before.busyMs).toBeGreaterThan(spentMs * 0.8)
    } finally {
      closeSync(zero)
    }
  })

  it("counts the work of another process at a lower priority (nice) as busy", async () => {
    const before = machineCpu.read()
    // any niceness above 0 counts as nice time; 1 still gets a fair share of a loaded machine.
    // The child spins for 200 ms of its own CPU time, however long a loaded machine takes to give it
    const niced = spawn("nice", ["-n", "1", process.execPath, "-e", [
      "while (process.cpuUsage().user < 200_000) {}",
      "const u = process.cpuUsage(); process.stdout.write(String((u.user + u.system) / 1000))"
    ].join("\n")], { stdio: ["ignore", "pipe", "inherit"] })
    let output = ""
    niced.stdout.on("data", (chunk: Buffer) => output += chunk.toString())
    const code = await new Promise((resolve) => niced.on("close", resolve))
    const after = machineCpu.read()
    expect(code).toBe(0)
    const nicedMs = Number(output)
    expect(nicedMs).toBeGreaterThanOrEqual(200)
    // what other processes used: the niced one's time at least
    expect((after.busyMs - before.busyMs) - (after.ownMs - before.ownMs)).toBeGreaterThan(nicedMs * 0.8)
  }, 30_000)

  it("looks at the tasks running now in /proc/loadavg: a whole number, not the load average", () => {
    const average = loadavg()[0] ?? 0
    const others = machineCpu.othersNow()
    expect(others).toBeGreaterThanOrEqual(0)
    // a load average that happens to be whole could not tell the two apart
    if (!Number.isInteger(average) || !Number.isInteger(loadavg()[0])) expect(Number.isInteger(others), String(others)).toBe(true)
  })
})

describe("othersNowFrom", () => {
  const loadavgText = (running: number) => `0.50 0.40 0.30 ${running}/200 4242\n`

  it("takes the least of three looks (one alone often catches a passing task)", () => {
    for (const looks of [[5, 2, 4], [2, 5, 4], [5, 4, 2]]) {
      let read = 0
      const others = othersNowFrom(() => loadavgText(looks[read++ % 3] ?? 0), () => 0.5)
      expect(others, String(looks)).toBe(1)
      expect(read).toBe(3)
    }
  })

  it("uses the load average when the text says nothing or cannot be read", () => {
    expect(othersNowFrom(() => "", () => 1.25)).toBe(1.25)
    expect(othersNowFrom(() => {
      throw new Error("ENOENT: no /proc here")
    }, () => 0.75)).toBe(0.75)
    // a look that says nothing does not hide one that does
    let read = 0
    expect(othersNowFrom(() => read++ === 1 ? loadavgText(3) : "", () => 0.5)).toBe(2)
  })
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
