/**
 * The PDF worker pool with `Worker` replaced (test/helpers/replaceWorker.ts) by a few lines of
 * script that answer `Close` (cheap to start, unlike the pdf.js worker): workers kept per memory
 * limit, a worker ended after `maxUses`, what a worker prints, and the memory watchdog ending a
 * worker whose process grows past its limit.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect, Logger, References } from "effect"
import type { WorkerOptions } from "node:worker_threads"
import { makePdfWorkerPool } from "../../src/layers/PdfWorkers.js"
import { replaceWorker } from "../helpers/replaceWorker.js"
import { prepareWorkerEntry } from "../tools/builtin/pdfWorkerEntry.js"

/**
 * The stand-in worker: answers `Close` with `Closed`; as "print", prints a line through its
 * output port first; as "grow", takes 64 MB outside its heap instead and never answers.
 */
const SCRIPT = `
const { parentPort, workerData } = require("node:worker_threads")
const held = []
parentPort.on("message", (request) => {
  if (workerData.fake === "grow") {
    held.push(Buffer.alloc(64 * 1024 * 1024, 1))
    return
  }
  if (workerData.fake === "print") workerData.output.postMessage({ stream: "stdout", text: "printed by the pdf worker\\n" })
  if (request._tag === "Close") parentPort.postMessage({ _tag: "Closed" })
})
`

/** For the scope: every worker started runs SCRIPT as `fake`. */
const fakeWorkers = (fake: string) =>
  Effect.acquireRelease(
    Effect.sync(() =>
      replaceWorker((Original) =>
        class extends Original {
          constructor(_filename: string | URL, options?: WorkerOptions) {
            const data: unknown = options?.workerData
            const given = typeof data === "object" && data !== null ? data : {}
            super(SCRIPT, { ...options, eval: true, workerData: { ...given, fake } })
          }
        }
      )
    ),
    (restore) => Effect.sync(restore)
  )

/** Borrows a worker of `limitMb`, asks it to close its document, gives it back. */
const useOnce = (pool: Effect.Success<ReturnType<typeof makePdfWorkerPool>>, limitMb: number) =>
  Effect.scoped(Effect.flatMap(pool.borrow(limitMb), (worker) => pool.request(worker, { _tag: "Close" })))

// the process's one-time set-up of PDF workers (the pool still resolves its entry)
beforeAll(prepareWorkerEntry)

describe("PDF worker pool, with stand-in workers", () => {
  it.live("an idle worker is lent again only for its own memory limit", () =>
    Effect.gen(function*() {
      yield* fakeWorkers("close")
      const pool = yield* makePdfWorkerPool()
      yield* useOnce(pool, 100)
      yield* useOnce(pool, 200)
      expect(yield* pool.stats).toMatchObject({ spawned: 2, live: 2, idle: 2 })
      yield* useOnce(pool, 100)
      yield* useOnce(pool, 200)
      expect(yield* pool.stats).toMatchObject({ spawned: 2, live: 2, idle: 2 })
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("with maxUses 1, a worker is ended when it is given back", () =>
    Effect.gen(function*() {
      yield* fakeWorkers("close")
      const pool = yield* makePdfWorkerPool({ maxUses: 1 })
      yield* useOnce(pool, 100)
      expect(yield* pool.stats).toMatchObject({ spawned: 1, exited: 1, live: 0, idle: 0 })
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("what a worker prints is logged at debug level with the pool owner's logger, annotated pdf and the stream", () =>
    Effect.gen(function*() {
      yield* fakeWorkers("print")
      const lines: Array<{ readonly text: string; readonly annotations: Record<string, unknown> }> = []
      const recorder = Logger.make(({ fiber, message }) => {
        lines.push({
          text: (Array.isArray(message) ? message : [message]).map(String).join(" "),
          annotations: { ...fiber.getRef(References.CurrentLogAnnotations) }
        })
      })
      const pool = yield* makePdfWorkerPool().pipe(
        Effect.provideService(References.MinimumLogLevel, "Debug"),
        Effect.provide(Logger.layer([recorder]))
      )
      // two requests: the borrower's Close, then the one that gives the worker back
      yield* useOnce(pool, 100)
      for (let i = 0; i < 200 && lines.length < 2; i++) yield* Effect.sleep("10 millis")
      const line = { text: "printed by the pdf worker", annotations: { worker: "pdf", stream: "stdout" } }
      expect(lines).toEqual([line, line])
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("a request whose worker makes the process grow past the limit ends it as out of memory", () =>
    Effect.gen(function*() {
      yield* fakeWorkers("grow")
      const pool = yield* makePdfWorkerPool()
      const error = yield* Effect.flip(Effect.scoped(Effect.flatMap(pool.borrow(16), (worker) => pool.request(worker, { _tag: "Close" }))))
      expect({ reason: error.reason, message: error.message }).toEqual({
        reason: "out-of-memory",
        message: "the PDF parser ran out of memory (limit 16 MB)"
      })
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
