/**
 * Setup of the vitest runs where test files share one module graph (`isolate: false`): the fast
 * lane (`vitest.config.ts`: two fork workers) and the run StrykerJS drives
 * (`vitest.stryker.config.ts`: one worker thread for every file). A worker keeps its modules
 * loaded from one test file to the next, and vitest runs this file again before each of them.
 *
 * - Node refuses `process.chdir()` in a worker thread. The one test that changes directory
 *   (the `Workspace` root read from `process.cwd()` at each call) gets a working directory kept
 *   here instead: `process.cwd()` answers it, and relative paths are taken from it. (A fork
 *   worker is a main thread: there the test changes the real directory and puts it back.)
 * - What a file may change for the next is put back after its tests: the working directory,
 *   `process.env`, the timer functions, `process.exit` and the console's and standard streams'
 *   writers. A file that left one changed fails here, naming it, so the leak is fixed in that
 *   file rather than seen as a failure of whichever file runs next. (vitest itself restores the
 *   `vi.spyOn` mocks and `vi.setConfig` between files.)
 * - `@effect/vitest`'s testers need nothing. The Effect 3 line's copy (tag effect3) writes
 *   Effect 3's own testers back over `it.effect`, `it.layer`, ... before each file, since there
 *   `layer(...)` writes its testers over the shared `it`. In 4.1.5 (`internal/internal.ts`, `makeLayer`) `layer(...)`
 *   hands its body a proxy of `it` that answers the layer's testers and leaves the shared `it`
 *   alone, so a later file's `it.effect` is `@effect/vitest`'s own.
 */
import { afterAll } from "@effect/vitest"
import * as path from "node:path"
import { isMainThread } from "node:worker_threads"

if (!isMainThread) {
  let cwd = process.cwd()
  process.chdir = (directory: string): void => {
    cwd = path.resolve(cwd, directory)
  }
  process.cwd = (): string => cwd
}

const cwdAtStart = process.cwd()
const envAtStart: Record<string, string | undefined> = { ...process.env }
const globalsAtStart = {
  setTimeout: globalThis.setTimeout,
  setInterval: globalThis.setInterval,
  setImmediate: globalThis.setImmediate,
  clearTimeout: globalThis.clearTimeout,
  clearInterval: globalThis.clearInterval,
  clearImmediate: globalThis.clearImmediate
}
const processAtStart = { exit: process.exit, stdoutWrite: process.stdout.write, stderrWrite: process.stderr.write }
const consoleAtStart = { log: console.log, error: console.error, warn: console.warn, info: console.info }

afterAll(() => {
  const left: Array<string> = []
  if (process.cwd() !== cwdAtStart) {
    left.push(`the working directory (${process.cwd()})`)
    process.chdir(cwdAtStart)
  }
  for (const name of new Set([...Object.keys(envAtStart), ...Object.keys(process.env)])) {
    if (process.env[name] === envAtStart[name]) continue
    left.push(`process.env.${name}`)
    const value = envAtStart[name]
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
  for (const [name, value] of Object.entries(globalsAtStart)) {
    if ((globalThis as Record<string, unknown>)[name] === value) continue
    left.push(`globalThis.${name}`)
    Object.assign(globalThis, { [name]: value })
  }
  if (process.exit !== processAtStart.exit) {
    left.push("process.exit")
    Object.defineProperty(process, "exit", { configurable: true, writable: true, value: processAtStart.exit })
  }
  if (process.stdout.write !== processAtStart.stdoutWrite) {
    left.push("process.stdout.write")
    process.stdout.write = processAtStart.stdoutWrite
  }
  if (process.stderr.write !== processAtStart.stderrWrite) {
    left.push("process.stderr.write")
    process.stderr.write = processAtStart.stderrWrite
  }
  for (const [name, value] of Object.entries(consoleAtStart)) {
    if ((console as unknown as Record<string, unknown>)[name] === value) continue
    left.push(`console.${name}`)
    Object.assign(console, { [name]: value })
  }
  if (left.length > 0) {
    throw new Error(`this file left changed for the files after it (put back now): ${left.join(", ")}`)
  }
})
