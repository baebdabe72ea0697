/**
 * The fast lane, `npm test`, on Node 22 (the `node` of
 * `node_modules/.bin`, which npm puts first on the scripts' PATH): every test file but the slow
 * proofs (`*.slow.test.ts`, run by `npm run test:slow` with `vitest.slow.config.ts`).
 *
 * Two worker processes, each keeping one module graph for all the files it runs
 * (`isolate: false`): importing Effect and the library once per worker instead of once per file
 * takes the lane from ~180 s to ~40-60 s on two cores (236 files, 1741 tests). `sharedGraphSetup.ts`
 * runs before each file and puts back what a file may change for the next (the working directory,
 * `process.env`, timers, `process.exit`, the console's and streams' writers), failing the file
 * that left one changed. A test that needs a module of its own makes it (e.g. `makeWorkerEntry`,
 * `vi.resetModules` in `fdDir.test.ts`), never relies on a fresh graph.
 *
 * The lane reporter lists the slowest tests and fails the lane on a test that spent more than
 * `maxTestCpuMs` (1 s) of CPU in the test process (`cpuMeter.ts`). A test is
 * charged about twice its CPU alone when both cores are busy, so the fast lane keeps its tests
 * under about 0.4 s alone: measured one file at a time (`--maxWorkers=1 --isolate`) the heaviest
 * spent 0.32 s, and 0.25-0.35 s in the lane. A heavier test belongs in a `*.slow.test.ts` file; a
 * one-time cost of the process (loading TypeScript for the PDF worker's entry) is paid in the
 * file's `beforeAll`, not by whichever test happens to run first.
 */
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/*.slow.test.ts"],
    pool: "forks",
    isolate: false,
    maxWorkers: 2,
    setupFiles: ["test/helpers/sharedGraphSetup.ts", "test/helpers/cpuMeter.ts"],
    reporters: ["default", "./test/helpers/summaryReporter.ts", ["./test/helpers/laneReporter.ts", { lane: "fast", slowest: 20, maxTestCpuMs: 1000 }]],
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
