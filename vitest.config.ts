/**
 * The fast lane, `npm test`: every test file but the slow proofs (`*.slow.test.ts`, run by
 * `npm run test:slow` with `vitest.slow.config.ts`; `.ci/run` runs both).
 *
 * Each file still gets a fresh module graph and one worker runs them (vitest's default on two
 * cores). A shared graph (`isolate: false`, as vitest.stryker.config.ts runs) and a second
 * worker were tried: together they broke a test that needs a fresh module
 * (pdfWorkerScript.test.ts) and a timing test under load, so they wait until those are fixed.
 * The lane reporter lists the slowest tests; a test over 1 s belongs in the slow lane.
 */
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["**/node_modules/**", "test/**/*.slow.test.ts"],
    reporters: ["default", "./test/helpers/summaryReporter.ts", ["./test/helpers/laneReporter.ts", { lane: "fast", slowest: 20 }]],
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
