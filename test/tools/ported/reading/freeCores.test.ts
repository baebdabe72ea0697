/**
 * `freeCores`: this process's own work never counts as load (a search right after a busy one
 * still gets its workers), other processes' work does, and calls close together share one answer.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { availableParallelism, cpus } from "node:os"
import { freeCores, MIN_WINDOW_MS } from "../../../../src/tools/ported/reading/freeCores.js"

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
    const start = performance.now()
    freeCores()
    await sleep(MIN_WINDOW_MS)
    spin(600)
    const notBusy = availableParallelism() - (busyMs() - busyBefore) / (performance.now() - start)
    const afterOwnWork = freeCores()
    // the core this thread kept busy for about three quarters of the window counts as free
    expect(afterOwnWork - notBusy).toBeGreaterThan(0.5)
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
