/**
 * Setup of the vitest run StrykerJS drives (`vitest.stryker.config.ts`), where every test file
 * runs in one worker thread that keeps its modules loaded from one file to the next.
 *
 * - Node refuses `process.chdir()` in a worker thread. The one test that changes directory
 *   (the `Workspace` root read from `process.cwd()` at each call) gets a working directory kept
 *   here instead: `process.cwd()` answers it, and relative paths are taken from it.
 * - `@effect/vitest`'s `layer(...)` hands its body the shared `it` after writing the layer's
 *   testers over `it.effect`, `it.scoped`, `it.layer`, `it.prop` and `it.flakyTest`, and never
 *   puts them back. In a fresh module graph per file that only reaches the rest of that file;
 *   here it reaches every later file: their `it.effect` runs in the last layer's runtime (whose
 *   scope is closed by then), without a TestClock where that layer excluded the test services
 *   ("testClock.adjust is not a function"), or on that layer's one TestClock otherwise. This
 *   file runs again before each test file, so each one starts from `@effect/vitest`'s own
 *   testers again.
 * - Stryker switches a mutant on in this process only. The instrumented code also reads the
 *   mutant's id from the `__STRYKER_ACTIVE_MUTANT__` environment variable when it first runs in
 *   a process or thread (Stryker's own command runner works that way): set here for each test
 *   file of a mutant's run, it reaches the Workers and child processes the tests start (the
 *   sandbox's Workers, the compiled library in test/tools/builtin/workerHosts.test.ts), whose
 *   copies of the sources then run the mutant too. Cleared for the initial (coverage) run.
 */
import { effect, flakyTest, it, layer, live, prop, scoped, scopedLive } from "@effect/vitest"
import * as path from "node:path"
import { inject } from "vitest"
import { isMainThread } from "node:worker_threads"

/** What Stryker's vitest runner provides to its setup file (see its `stryker-setup.js`). */
declare module "vitest" {
  export interface ProvidedContext {
    readonly mode: "dry-run" | "mutant"
    readonly activeMutant: string | undefined
  }
}

const ACTIVE_MUTANT = "__STRYKER_ACTIVE_MUTANT__"
const activeMutant = inject("mode") === "mutant" ? inject("activeMutant") : undefined
if (activeMutant === undefined) delete process.env[ACTIVE_MUTANT]
else process.env[ACTIVE_MUTANT] = activeMutant

if (!isMainThread) {
  let cwd = process.cwd()
  process.chdir = (directory: string): void => {
    cwd = path.resolve(cwd, directory)
  }
  process.cwd = (): string => cwd
}

Object.assign(it, { effect, flakyTest, layer, live, prop, scoped, scopedLive })
