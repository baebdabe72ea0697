/**
 * Setup of the vitest runs where test files share one module graph (`isolate: false`): the fast
 * lane (`vitest.config.ts`) and the run StrykerJS drives (`vitest.stryker.config.ts`, one worker
 * thread for every file). A worker keeps its modules loaded from one test file to the next.
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
 */
import { effect, flakyTest, it, layer, live, prop, scoped, scopedLive } from "@effect/vitest"
import * as path from "node:path"
import { isMainThread } from "node:worker_threads"

if (!isMainThread) {
  let cwd = process.cwd()
  process.chdir = (directory: string): void => {
    cwd = path.resolve(cwd, directory)
  }
  process.cwd = (): string => cwd
}

Object.assign(it, { effect, flakyTest, layer, live, prop, scoped, scopedLive })
