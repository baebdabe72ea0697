/**
 * The slow lane, `npm run test:slow`: the proofs that take seconds or
 * a second of CPU each, in `*.slow.test.ts` files (huge inputs and the caps they meet, the fuzz,
 * the worker pools (PDF, sandbox, search) and the sandbox's attack catalogue, the workspace
 * races, git on broken and foreign repositories, Redis, the event-loop freeze proofs, the examples, the packed package). Each file gets a fresh module
 * graph and they run one at a time (`maxWorkers: 1`). `vitest.config.ts` (the fast lane, `npm test`) leaves these files out.
 */
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.slow.test.ts"],
    exclude: ["**/node_modules/**"],
    maxWorkers: 1,
    setupFiles: ["test/helpers/cpuMeter.ts"],
    reporters: ["default", "./test/helpers/summaryReporter.ts", ["./test/helpers/laneReporter.ts", { lane: "slow", slowest: 20 }]],
    testTimeout: 60_000,
    hookTimeout: 60_000
  }
})
