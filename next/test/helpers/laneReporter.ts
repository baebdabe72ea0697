/**
 * The test lanes' own reporter: lists the slowest tests after every run (wall time), and the
 * ones that spent the most CPU in the test process (`cpuMeter.ts`). In the fast lane (`npm test`)
 * it fails the run when a test spent more CPU than the lane allows (`maxTestCpuMs`), naming it,
 * so that a heavy test shows up where it was added instead of stretching the lane unnoticed.
 * Such a test belongs in the slow lane (a `*.slow.test.ts` file, `npm run test:slow`).
 *
 * The bound is on CPU, not wall time: the fast lane runs two workers on two cores, and a test's
 * wall time there also counts the other worker, a CPU hog or another job on the machine, so a
 * wall-time bound would fail a test for the machine's load rather than for what it does.
 */
import type { Reporter, TestCase, TestModule } from "vitest/node"

export interface LaneReporterOptions {
  /** The lane's name, in what the reporter prints. */
  readonly lane: string
  /** A test that spent more CPU than this (ms, in the test process) fails the lane; none when absent. */
  readonly maxTestCpuMs?: number
  /** How many of the slowest tests are listed (and as many of the heaviest). */
  readonly slowest?: number
}

interface Timed {
  readonly name: string
  readonly ms: number
  readonly cpuMs: number | undefined
}

const line = (ms: number, name: string) => `  ${Math.round(ms).toString().padStart(6)} ms  ${name}`

export default class LaneReporter implements Reporter {
  private readonly timed: Array<Timed> = []

  constructor(private readonly options: LaneReporterOptions) {}

  onTestCaseResult(test: TestCase): void {
    const ms = test.diagnostic()?.duration
    if (ms === undefined) return
    const name = `${test.module.moduleId.replace(/^.*?\/test\//, "test/")} > ${test.fullName}`
    this.timed.push({ name, ms, cpuMs: test.meta().cpuMs })
  }

  onTestRunEnd(_modules: ReadonlyArray<TestModule>): void {
    const { lane, maxTestCpuMs, slowest = 10 } = this.options
    const byWall = [...this.timed].sort((a, b) => b.ms - a.ms).slice(0, slowest)
    const metered = this.timed.filter((t): t is Timed & { cpuMs: number } => t.cpuMs !== undefined)
    const byCpu = [...metered].sort((a, b) => b.cpuMs - a.cpuMs)
    const lines = [
      `${lane} lane: the ${byWall.length} slowest tests (wall time)`,
      ...byWall.map((t) => line(t.ms, t.name))
    ]
    if (byCpu.length > 0) {
      lines.push(
        `${lane} lane: the ${Math.min(slowest, byCpu.length)} heaviest tests (CPU time in the test process)`,
        ...byCpu.slice(0, slowest).map((t) => line(t.cpuMs, t.name))
      )
    }
    const over = maxTestCpuMs === undefined ? [] : byCpu.filter((t) => t.cpuMs > maxTestCpuMs)
    if (over.length > 0) {
      lines.push(
        `${lane} lane: ${over.length} test(s) spent more than ${maxTestCpuMs} ms of CPU, which fails the lane;`,
        "  make them lighter or move them to a *.slow.test.ts file (npm run test:slow):",
        ...over.map((t) => line(t.cpuMs, t.name))
      )
      process.exitCode = 1
    }
    // after the default reporter's own summary, which it prints asynchronously
    process.once("beforeExit", () => process.stdout.write(`${lines.join("\n")}\n`))
  }
}
