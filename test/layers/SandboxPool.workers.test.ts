/**
 * How the sandbox pool starts and watches its Workers, with `Worker` replaced (test/helpers/
 * replaceWorker.ts) by one that records the options it is given and runs a few lines of script
 * instead of the QuickJS module (cheap to start): the isolation a Worker gets, a Worker that
 * exits, fails or says something else while starting, one that fails or exits once started,
 * what a Worker prints, and a Worker checked in when `maxWorkers` are already idle.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Logger, References } from "effect"
import { MessagePort, type WorkerOptions } from "node:worker_threads"
import { DEFAULT_POOL_OPTIONS, type SandboxPoolOptions, SandboxWorkers } from "../../src/layers/SandboxPool.js"
import { replaceWorker } from "../helpers/replaceWorker.js"

/**
 * The stand-in Worker's script, by `workerData.fake`: "serve" answers each request as its code
 * says ("recycle", "slow", "throw", "print", "exit-after"; else ok), "exit" exits while starting,
 * "throw" throws while starting, "junk" posts what is not a protocol message, then exits.
 */
const SCRIPT = `
const { parentPort, workerData } = require("node:worker_threads")
const fake = workerData.fake
if (fake === "exit") process.exit(3)
if (fake === "throw") throw new Error("no module here")
if (fake === "junk") {
  parentPort.postMessage(null)
  parentPort.postMessage({ type: "hello" })
  setTimeout(() => process.exit(3), 50)
} else {
  parentPort.on("message", (request) => {
    const done = (recycle) => parentPort.postMessage({
      type: "done", id: request.id, recycle, diagnostics: [],
      outcome: { kind: "ok", stdout: "", result: JSON.stringify(request.code) }
    })
    if (request.code === "throw") throw new Error("the worker broke")
    if (request.code === "print") workerData.output.postMessage({ stream: "stdout", text: "printed by the worker\\n" })
    if (request.code === "slow") setTimeout(() => done(false), 150)
    else done(request.code === "recycle")
    if (request.code === "exit-after") setTimeout(() => process.exit(0), 20)
  })
  parentPort.postMessage({ type: "ready" })
}
`

interface Started {
  readonly options: WorkerOptions | undefined
}

/**
 * For the scope: the n-th Worker started runs SCRIPT as `fakes[n]` (the last one for every
 * later Worker); the options each was given are kept in the list returned.
 */
const fakeWorkers = (...fakes: ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const started: Array<Started> = []
      const restore = replaceWorker((Original) =>
        class extends Original {
          constructor(_filename: string | URL, options?: WorkerOptions) {
            const data: unknown = options?.workerData
            const given = typeof data === "object" && data !== null ? data : {}
            super(SCRIPT, { ...options, eval: true, workerData: { ...given, fake: fakes[Math.min(started.length, fakes.length - 1)] } })
            started.push({ options })
          }
        }
      )
      return { started, restore }
    }),
    ({ restore }) => Effect.sync(restore)
  ).pipe(Effect.map(({ started }) => started))

interface Line {
  readonly level: string
  readonly text: string
  readonly annotations: Record<string, unknown>
}

/** A pool whose owner logs at debug level into the list returned; shut down with the scope. */
const poolWithLogs = (options: Partial<SandboxPoolOptions>) =>
  Effect.gen(function*() {
    const lines: Array<Line> = []
    const recorder = Logger.make(({ fiber, logLevel, message }) => {
      lines.push({
        level: logLevel,
        text: (Array.isArray(message) ? message : [message]).map(String).join(" "),
        annotations: { ...fiber.getRef(References.CurrentLogAnnotations) }
      })
    })
    const context = yield* Effect.context<never>().pipe(
      Effect.provideService(References.MinimumLogLevel, "Debug"),
      Effect.provide(Logger.layer([recorder]))
    )
    const pool = yield* Effect.acquireRelease(
      Effect.sync(() => new SandboxWorkers({ ...DEFAULT_POOL_OPTIONS, warm: 0, ...options }, context)),
      (pool) => pool.shutdown()
    )
    return { pool, lines }
  })

/** Polls `condition` on a plain timer every 10 ms, for at most 2 s. */
const eventually = (condition: () => boolean, what: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 200 && !condition(); i++) {
      yield* Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 10)))
    }
    if (!condition()) return yield* Effect.die(new Error(`never: ${what}`))
  })

describe("sandbox pool Workers", () => {
  it.live("starts each Worker isolated: no environment, captured output, resource limits, its own output port", () =>
    Effect.gen(function*() {
      const started = yield* fakeWorkers("serve")
      const { pool } = yield* poolWithLogs({})
      expect(yield* pool.run("1", 1000)).toEqual({ kind: "ok", stdout: "", result: "\"1\"" })
      const [first] = started
      const options = first?.options
      expect(options).toMatchObject({
        execArgv: [],
        stdout: true,
        stderr: true,
        env: {},
        resourceLimits: { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 16, stackSizeMb: 8 }
      })
      const data: unknown = options?.workerData
      const output = typeof data === "object" && data !== null && "output" in data ? data.output : undefined
      expect(output).toBeInstanceOf(MessagePort)
      expect(options?.transferList).toEqual([output])
    }))

  it.live("what a Worker prints is logged at debug level, annotated with the sandbox worker and the stream", () =>
    Effect.gen(function*() {
      yield* fakeWorkers("serve")
      const { lines, pool } = yield* poolWithLogs({})
      yield* pool.run("print", 1000)
      yield* eventually(() => lines.some((line) => line.text === "printed by the worker"), "the line logged")
      expect(lines.find((line) => line.text === "printed by the worker")).toEqual({
        level: "Debug",
        text: "printed by the worker",
        annotations: { worker: "sandbox", stream: "stdout" }
      })
    }))

  it.live("a Worker that exits while starting is a crash that gives its exit code", () =>
    Effect.gen(function*() {
      yield* fakeWorkers("exit")
      const { pool } = yield* poolWithLogs({})
      expect(yield* pool.run("1", 1000)).toEqual({ kind: "crash", message: "the sandbox worker exited while starting (code 3)" })
    }))

  it.live("a Worker that fails while starting is a crash that says why", () =>
    Effect.gen(function*() {
      yield* fakeWorkers("throw")
      const { pool } = yield* poolWithLogs({})
      expect(yield* pool.run("1", 1000)).toEqual({ kind: "crash", message: "the sandbox worker failed to start: no module here" })
    }))

  it.live("only a ready message makes a Worker ready: one that posts something else, then exits, never started", () =>
    Effect.gen(function*() {
      yield* fakeWorkers("junk")
      const { pool } = yield* poolWithLogs({})
      expect(yield* pool.run("1", 1000)).toEqual({ kind: "crash", message: "the sandbox worker exited while starting (code 3)" })
    }))

  it.live("a Worker that fails during a call is a crash, and the failure is logged as a warning", () =>
    Effect.gen(function*() {
      yield* fakeWorkers("serve")
      const { lines, pool } = yield* poolWithLogs({})
      expect(yield* pool.run("throw", 1000)).toEqual({ kind: "crash", message: "the sandbox worker failed: the worker broke" })
      yield* eventually(() => lines.some((line) => line.level === "Warn"), "a warning")
      expect(lines.filter((line) => line.level === "Warn").map((line) => line.text)).toEqual([
        "sandbox: a worker failed: the worker broke"
      ])
    }))

  it.live("an idle Worker that exits is no longer counted nor handed to a call", () =>
    Effect.gen(function*() {
      yield* fakeWorkers("serve")
      const { pool } = yield* poolWithLogs({})
      yield* pool.run("exit-after", 1000)
      yield* eventually(() => pool.stats().live === 0, "the Worker gone")
      expect(pool.stats()).toEqual({ live: 0, idle: 0, spawned: 1 })
      expect(yield* pool.run("2", 1000)).toEqual({ kind: "ok", stdout: "", result: "\"2\"" })
    }))

  it.live("a Worker checked in when maxWorkers are already idle (a replacement came meanwhile) is ended", () =>
    Effect.gen(function*() {
      yield* fakeWorkers("serve")
      const { pool } = yield* poolWithLogs({ maxWorkers: 1, maxIdle: 1, warm: 1 })
      // its Worker may not be reused: a replacement starts in the background...
      yield* pool.run("recycle", 1000)
      // ...while this call, which started a Worker of its own, runs
      expect(yield* pool.run("slow", 1000)).toEqual({ kind: "ok", stdout: "", result: "\"slow\"" })
      yield* eventually(() => pool.stats().live === 1, "one Worker left")
      expect(pool.stats()).toEqual({ live: 1, idle: 1, spawned: 3 })
    }))

  it.live("a replacement that does not start is logged as a warning that says why", () =>
    Effect.gen(function*() {
      yield* fakeWorkers("serve", "exit")
      const { lines, pool } = yield* poolWithLogs({ warm: 1 })
      yield* pool.run("recycle", 1000)
      yield* eventually(() => lines.some((line) => line.level === "Warn"), "a warning")
      expect(lines.filter((line) => line.level === "Warn").map((line) => line.text)).toEqual([
        "sandbox: a replacement worker did not start: the sandbox worker exited while starting (code 3)"
      ])
    }))
})
