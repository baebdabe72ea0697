/**
 * Setup of the vitest run StrykerJS drives (`vitest.stryker.config.ts`: one worker thread for
 * every test file, `isolate: false`, so a worker keeps its modules loaded from one test file to
 * the next).
 *
 * Node refuses `process.chdir()` in a worker thread. The one test that changes directory (the
 * `Workspace` root read from `process.cwd()` at each call) gets a working directory kept here
 * instead: `process.cwd()` answers it, and relative paths are taken from it.
 *
 * (The main tree's copy also gives back `@effect/vitest`'s own testers before each file, since
 * Effect 3's `layer(...)` writes over the shared `it.effect`; Effect 4's hands its body a proxy
 * of `it` instead, and leaves the shared one alone.)
 */
import * as path from "node:path"
import { isMainThread } from "node:worker_threads"

if (!isMainThread) {
  let cwd = process.cwd()
  process.chdir = (directory: string): void => {
    cwd = path.resolve(cwd, directory)
  }
  process.cwd = (): string => cwd
}
