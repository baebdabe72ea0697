/**
 * Prints one plain closing line, `tests: N passed, N failed, N skipped`, after vitest's own
 * report, so that any CI reading closing lines can count the run.
 */
import type { Reporter, TestModule } from "vitest/node"

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0
    let failed = 0
    let skipped = 0
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state
        if (state === "passed") passed++
        else if (state === "failed") failed++
        else skipped++
      }
    }
    // after the default reporter's own summary, which it prints asynchronously
    process.once("beforeExit", () => process.stdout.write(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`))
  }
}
