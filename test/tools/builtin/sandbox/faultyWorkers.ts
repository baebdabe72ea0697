/**
 * A child process for workerFaults.slow.test, started with `NODE_OPTIONS=--require <preload>`. First
 * a pool as it is: its Workers start with an empty environment, so the host's preload never runs
 * in them. Then a second pool, with `Worker` replaced by one that hands every Worker the
 * preload in its environment: the preload misbehaves as the marker file (argv[2]) says, written
 * between the calls. It prints what each step gave and everything the pools logged (at debug
 * level), as one JSON object.
 */
import { Effect, Logger, References } from "effect"
import * as fs from "node:fs"
import type { WorkerOptions } from "node:worker_threads"
import { DEFAULT_POOL_OPTIONS, SandboxWorkers } from "../../../../src/layers/SandboxPool.js"
import { replaceWorker } from "../../../helpers/replaceWorker.js"

const marker = process.argv[2] ?? ""
const logged: Array<{ level: string; message: string; annotations: Record<string, unknown> }> = []
// the level's name in capitals (Effect 3's label); the annotations from the fiber's references
const recorder = Logger.make(({ fiber, logLevel, message }) => {
  logged.push({
    level: logLevel.toUpperCase(),
    message: (Array.isArray(message) ? message : [message]).map(String).join(" "),
    annotations: { ...fiber.getRef(References.CurrentLogAnnotations) }
  })
})
// the pool's owner: a context with the recorder as its only logger, at debug level
const context = await Effect.runPromise(
  Effect.context<never>().pipe(
    Effect.provideService(References.MinimumLogLevel, "Debug"),
    Effect.provide(Logger.layer([recorder]))
  )
)
let pool = new SandboxWorkers({ ...DEFAULT_POOL_OPTIONS, warm: 1 }, context)
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
pool = new SandboxWorkers({ ...DEFAULT_POOL_OPTIONS, warm: 1 }, context)

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
