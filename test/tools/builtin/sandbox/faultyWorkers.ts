/**
 * A child process for workerFaults.slow.test, started with `NODE_OPTIONS=--require <preload>`. First
 * a pool as it is: its Workers start with an empty environment, so the host's preload never runs
 * in them. Then a second pool, with `Worker` replaced by one that hands every Worker the
 * preload in its environment: the preload misbehaves as the marker file (argv[2]) says, written
 * between the calls. It prints what each step gave and everything the pools logged (at debug
 * level), as one JSON object.
 */
import { Effect, HashMap, Logger, LogLevel } from "effect"
import * as fs from "node:fs"
import type { WorkerOptions } from "node:worker_threads"
import { DEFAULT_POOL_OPTIONS, SandboxWorkers } from "../../../../src/tools/builtin/sandbox/pool.js"
import { replaceWorker } from "../../../helpers/replaceWorker.js"

const marker = process.argv[2] ?? ""
const logged: Array<{ level: string; message: string; annotations: Record<string, unknown> }> = []
const recorder = Logger.make(({ annotations, logLevel, message }) => {
  logged.push({
    level: logLevel.label,
    message: (Array.isArray(message) ? message : [message]).map(String).join(" "),
    annotations: Object.fromEntries(HashMap.toEntries(annotations))
  })
})
const runtime = await Effect.runPromise(
  Effect.runtime<never>().pipe(
    Logger.withMinimumLogLevel(LogLevel.Debug),
    Effect.provide(Logger.replace(Logger.defaultLogger, recorder))
  )
)
let pool = new SandboxWorkers({ ...DEFAULT_POOL_OPTIONS, warm: 1 }, runtime)
const run = (code: string, timeoutMs = 5000) => Effect.runPromise(pool.run(code, timeoutMs))

/** Whether `condition` came true within `withinMs` (polled every 20 ms). */
const cameTrue = async (condition: () => boolean, withinMs: number): Promise<boolean> => {
  const deadline = Date.now() + withinMs
  while (!condition()) {
    if (Date.now() > deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return true
}
const loggedOne = (prefix: string) => () => logged.some((line) => line.message.startsWith(prefix))

const unpatched = await run("'hello'")
const printedUnpatched = await cameTrue(loggedOne("preload: a request"), 1000)
await Effect.runPromise(pool.shutdown())

// every Worker started from now on gets the preload through its environment
replaceWorker((Original) =>
  class extends Original {
    constructor(filename: string | URL, options: WorkerOptions = {}) {
      super(filename, { ...options, env: { NODE_OPTIONS: process.env["NODE_OPTIONS"] ?? "" } })
    }
  }
)
pool = new SandboxWorkers({ ...DEFAULT_POOL_OPTIONS, warm: 1 }, runtime)

const hello = await run("'hello'")
const printed = await cameTrue(loggedOne("preload: a request"), 5000)
const bye = await run("'bye'")
const leftWhenItExited = await cameTrue(() => pool.stats().live === 0, 5000)
const afterBye = pool.stats()
const again = await run("1 + 1")
fs.writeFileSync(marker, "throw")
const hog = await run("let a = []; for (;;) a.push('x'.repeat(1000))", 20_000)
const replacementFailed = await cameTrue(loggedOne("sandbox: a replacement worker did not start"), 10_000)
const refused = await run("1 + 1")
fs.writeFileSync(marker, "exit")
const exited = await run("1 + 1")
const stats = pool.stats()
await Effect.runPromise(pool.shutdown())
process.stdout.write(JSON.stringify({
  unpatched,
  printedUnpatched,
  hello,
  printed,
  bye,
  leftWhenItExited,
  afterBye,
  again,
  hog,
  replacementFailed,
  refused,
  exited,
  stats,
  logged
}))
