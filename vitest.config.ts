/**
 * The fast lane, `npm test`: every test file but the slow proofs (`*.slow.test.ts`, run by
 * `npm run test:slow` with `vitest.slow.config.ts`; `.ci/run` runs both).
 *
 * Two worker processes, each keeping one module graph for all the files it runs
 * (`isolate: false`): importing Effect and the library once per worker instead of once per file
 * takes the lane from ~600 s to ~200 s on two cores. `sharedGraphSetup.ts` runs before each
 * file and puts back what a file may change for the next (`@effect/vitest`'s testers). A test
 * that needs a module of its own makes it (e.g. `makeWorkerEntry`), never relies on a fresh graph.
 *
 * The lane reporter lists the slowest tests and fails the lane on a test that spent more than
 * `maxTestCpuMs` (1 s) of CPU. A test is charged about twice its CPU alone when both cores are
 * busy (the lane's two workers do that by themselves; a CPU hog changes little more), and runs
 * differ by up to 1.5x, so the fast lane keeps its tests under about 0.4 s alone: its heaviest
 * were 0.5-0.7 s in the lane, under stress-ng on both cores too. A heavier test belongs in a
 * `*.slow.test.ts` file.
 */
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["**/node_modules/**", "test/**/*.slow.test.ts"],
    pool: "forks",
    isolate: false,
    maxWorkers: 2,
    minWorkers: 1,
    setupFiles: ["test/helpers/sharedGraphSetup.ts", "test/helpers/cpuMeter.ts"],
    reporters: ["default", "./test/helpers/summaryReporter.ts", ["./test/helpers/laneReporter.ts", { lane: "fast", slowest: 20, maxTestCpuMs: 1000 }]],
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
