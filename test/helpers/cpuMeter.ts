/**
 * Setup of the test lanes: records how much CPU time the test process (its main thread and its
 * worker threads; not child processes) spent in each test, as the test's `cpuMs` meta, which
 * `laneReporter.ts` reads. A test's wall time grows with whatever else the machine runs (the
 * lane's second worker, a CPU hog, another job); the CPU it spends does not, so a bound on it
 * can fail the fast lane on a test that does too much without failing it on a loaded machine.
 */
import { afterEach, beforeEach } from "vitest"

declare module "vitest" {
  interface TaskMeta {
    /** CPU time (user + system) the test process spent in the test, in ms. */
    cpuMs?: number
  }
}

let started: NodeJS.CpuUsage | undefined

beforeEach(() => {
  started = process.cpuUsage()
})

afterEach((context) => {
  if (started === undefined) return
  const spent = process.cpuUsage(started)
  context.task.meta.cpuMs = (spent.user + spent.system) / 1000
  started = undefined
})
