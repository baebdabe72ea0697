/**
 * The test lanes' own reporter: lists the slowest tests after every run, and in the fast lane
 * (`npm test`) fails the run when a test took longer than the lane allows (`maxTestMs`), naming
 * it, so that a slow test shows up where it was added instead of stretching the lane unnoticed.
 * Such a test belongs in the slow lane (a `*.slow.test.ts` file, `npm run test:slow`).
 */
import type { Reporter, TestCase, TestModule } from "vitest/node"

export interface LaneReporterOptions {
  /** The lane's name, in what the reporter prints. */
  readonly lane: string
  /** A test over this many ms fails the lane; none when absent. */
  readonly maxTestMs?: number
  /** How many of the slowest tests are listed. */
  readonly slowest?: number
}

interface Timed {
  readonly name: string
  readonly ms: number
}

export default class LaneReporter implements Reporter {
  private readonly timed: Array<Timed> = []

  constructor(private readonly options: LaneReporterOptions) {}

  onTestCaseResult(test: TestCase): void {
    const ms = test.diagnostic()?.duration
    if (ms !== undefined) this.timed.push({ name: `${test.module.moduleId.replace(/^.*?\/test\//, "test/")} > ${test.fullName}`, ms })
  }

  onTestRunEnd(_modules: ReadonlyArray<TestModule>): void {
    const { lane, maxTestMs, slowest = 10 } = this.options
    const sorted = [...this.timed].sort((a, b) => b.ms - a.ms)
    const line = ({ name, ms }: Timed) => `  ${Math.round(ms).toString().padStart(6)} ms  ${name}`
    const lines = [`${lane} lane: the ${Math.min(slowest, sorted.length)} slowest tests`, ...sorted.slice(0, slowest).map(line)]
    const over = maxTestMs === undefined ? [] : sorted.filter((t) => t.ms > maxTestMs)
    if (over.length > 0) {
      lines.push(
        `${lane} lane: ${over.length} test(s) took longer than ${maxTestMs} ms, which fails the lane;`,
        "  make them faster or move them to a *.slow.test.ts file (npm run test:slow):",
        ...over.map(line)
      )
      process.exitCode = 1
    }
    // after the default reporter's own summary, which it prints asynchronously
    process.once("beforeExit", () => process.stdout.write(`${lines.join("\n")}\n`))
  }
}
