/**
 * The slow lane, `npm run test:slow`: the proofs that take seconds each (huge inputs, the fuzz,
 * worker pools, real MCP servers, Redis, the packed package, the CLI as a child process), in
 * `*.slow.test.ts` files. Each file gets a fresh module graph; `.ci/run` runs this lane after
 * the fast one (`npm test`).
 */
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.slow.test.ts"],
    setupFiles: ["test/helpers/cpuMeter.ts"],
    reporters: ["default", "./test/helpers/summaryReporter.ts", ["./test/helpers/laneReporter.ts", { lane: "slow", slowest: 20 }]],
    testTimeout: 60_000,
    hookTimeout: 60_000
  }
})
