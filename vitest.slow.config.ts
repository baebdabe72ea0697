/**
 * The slow lane, `npm run test:slow`: the proofs that take seconds or a second of CPU each, in
 * `*.slow.test.ts` files: huge inputs and the caps they meet, the fuzz, worker pools (PDF,
 * sandbox, search) and the sandbox's attack catalogue, the workspace races, git on broken and
 * foreign repositories, real MCP servers and the Inspector, Redis, the packed package, the CLI as
 * a child process, and the event-loop freeze proofs. Each file gets a fresh module graph and
 * they run one at a time; `.ci/run` runs this lane after the fast one (`npm test`).
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
