/**
 * Setup of the vitest run StrykerJS drives (`vitest.stryker.config.ts`), whose test files run in
 * a worker thread, where Node refuses `process.chdir()`. The one test that changes directory
 * (the `Workspace` root read from `process.cwd()` at each call) gets a working directory kept
 * here instead: `process.cwd()` answers it, and relative paths are taken from it.
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
