/**
 * The PDF worker pool: a worker that dies, errs or answers nonsense; an interrupted borrower; a
 * closed pool. The proofs that start several workers or grow the process past a limit (a borrow
 * exactly when the idle time ends, maxIdle per memory limit, maxUses, idle workers that exit,
 * the memory watchdog) are in `PdfWorkers.slow.test.ts`.
 *
 * A worker's own 'error' event and a malformed answer cannot be produced on demand by the real
 * worker script, so those tests emit the event on the real `Worker` object the pool listens to:
 * what is checked is the pool's handling of it.
 *
 * On Effect 4: `Effect.forkChild` for `Effect.fork`, `Exit.hasInterrupts` for `Exit.isInterrupted`,
 * `Scope.provide` for `Scope.extend`, `Effect.andThen` for `zipRight`.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect, Exit, Fiber, Scope } from "effect"
import type { PdfWorkersService } from "../../src/services/PdfWorkers.js"
import { makePdfWorkerPool, type PdfWorkerError, type PooledWorker } from "../../src/layers/PdfWorkers.js"
import { LIMIT_MB, useOnce } from "./pdfWorkersHarness.js"
import { prepareWorkerEntry } from "../tools/builtin/pdfWorkerEntry.js"

/** What a caller of the pool sees of an error: its reason and its message. */
const seen = (error: PdfWorkerError) => ({ reason: error.reason, message: error.message })

/** Forks `request` and waits until it is listening (microtasks only: no answer can come meanwhile). */
const listening = <A, E>(worker: PooledWorker["worker"], event: string, request: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const before = worker.listenerCount(event)
    const fiber = yield* Effect.forkChild(request)
    while (worker.listenerCount(event) === before) yield* Effect.yieldNow
    return fiber
  })

/** A fresh pool (closed with the test's scope) and one worker borrowed from it for `body`. */
const withWorker = <A, E>(body: (pool: PdfWorkersService, pooled: PooledWorker) => Effect.Effect<A, E>) =>
  Effect.flatMap(makePdfWorkerPool(), (pool) => Effect.scoped(Effect.flatMap(pool.borrow(LIMIT_MB), (pooled) => body(pool, pooled))))

// the process's one-time set-up of PDF workers: no test's
beforeAll(prepareWorkerEntry)

// live clock: real PDF worker threads, and the pool's Node timers (the idle setTimeout, the memory watchdog)
describe("PDF worker pool", () => {
  it.live("an interrupted borrower's worker is terminated, not given back", () =>
    Effect.gen(function*() {
      const pool = yield* makePdfWorkerPool()
      const exit = yield* Effect.exit(Effect.scoped(Effect.flatMap(pool.borrow(LIMIT_MB), () => Effect.interrupt)))
      expect(Exit.hasInterrupts(exit)).toBe(true)
      expect(yield* pool.stats).toMatchObject({ spawned: 1, exited: 1, live: 0, idle: 0, busy: 0 })
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), 60_000)

  it.live("a worker that exits during a request fails it with the exit code, and is not reused", () =>
    Effect.gen(function*() {
      const pool = yield* makePdfWorkerPool()
      const error = yield* Effect.scoped(
        Effect.flatMap(pool.borrow(LIMIT_MB), (pooled) => {
          // the exit comes before any answer
          void pooled.worker.terminate()
          return Effect.flip(pool.request(pooled, { _tag: "Close" }))
        })
      )
      expect(error.reason).toBe("crashed")
      expect(error.message).toMatch(/^the PDF parser stopped unexpectedly \(exit code \d+\)$/)
      // a request to the dead worker fails at once
      expect(yield* pool.stats).toMatchObject({ live: 0, idle: 0, busy: 0 })
      expect(yield* useOnce(pool)).toEqual({ _tag: "Closed" })
      expect(yield* pool.stats).toMatchObject({ spawned: 2, idle: 1 })
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), 60_000)

  it.live("a request to a worker that has died fails without sending", () =>
    Effect.gen(function*() {
      const error = yield* withWorker((pool, pooled) =>
        Effect.andThen(Effect.promise(() => pooled.worker.terminate()), Effect.flip(pool.request(pooled, { _tag: "Close" })))
      )
      expect(seen(error)).toEqual({ reason: "crashed", message: "the PDF parser stopped unexpectedly" })
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), 60_000)

  it.live("a worker's error fails the request with its message; out of memory says the limit", () =>
    Effect.gen(function*() {
      const errors = yield* withWorker((pool, pooled) =>
          Effect.gen(function*() {
            const listeners = pooled.worker.listenerCount("error")
            const first = yield* listening(pooled.worker, "error", Effect.flip(pool.request(pooled, { _tag: "Close" })))
            pooled.worker.emit("error", new Error("boom"))
            const crashed = yield* Fiber.join(first)
            // the request's own listeners are gone once it ended
            expect(pooled.worker.listenerCount("error")).toBe(listeners)
            expect(pooled.worker.listenerCount("exit")).toBe(1)
            const second = yield* listening(pooled.worker, "error", Effect.flip(pool.request(pooled, { _tag: "Close" })))
            pooled.worker.emit("error", Object.assign(new Error("heap"), { code: "ERR_WORKER_OUT_OF_MEMORY" }))
            return [crashed, yield* Fiber.join(second)] as const
          })
      )
      expect(seen(errors[0])).toEqual({ reason: "crashed", message: "the PDF parser stopped unexpectedly: boom" })
      expect(seen(errors[1])).toEqual({
        reason: "out-of-memory",
        message: `the PDF parser ran out of memory (limit ${LIMIT_MB} MB)`
      })
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), 60_000)

  it.live("an error with another code is a crash, not out of memory", () =>
    Effect.gen(function*() {
      const error = yield* withWorker((pool, pooled) =>
        Effect.gen(function*() {
          const fiber = yield* listening(pooled.worker, "error", Effect.flip(pool.request(pooled, { _tag: "Close" })))
          pooled.worker.emit("error", Object.assign(new Error("no such thing"), { code: "ERR_MODULE_NOT_FOUND" }))
          return yield* Fiber.join(fiber)
        })
      )
      expect(seen(error)).toEqual({ reason: "crashed", message: "the PDF parser stopped unexpectedly: no such thing" })
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), 60_000)

  it.live("a worker starts with its heap capped at the borrowed limit", () =>
    Effect.gen(function*() {
      const limits = yield* withWorker((_pool, pooled) => Effect.succeed(pooled.worker.resourceLimits))
      expect(limits?.maxOldGenerationSizeMb).toBe(LIMIT_MB)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), 60_000)

  it.live("an error a worker raised between requests is what a later request reports", () =>
    Effect.gen(function*() {
      const error = yield* withWorker((pool, pooled) =>
        Effect.gen(function*() {
          // no request is listening: the pool's own listener keeps it (without one, emit would throw)
          pooled.worker.emit("error", new Error("died in between"))
          yield* Effect.promise(() => pooled.worker.terminate())
          return yield* Effect.flip(pool.request(pooled, { _tag: "Close" }))
        })
      )
      expect(seen(error)).toEqual({ reason: "crashed", message: "the PDF parser stopped unexpectedly: died in between" })
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), 60_000)

  it.live("a worker that answers Close with something else is ended, not kept", () =>
    Effect.gen(function*() {
      const pool = yield* makePdfWorkerPool()
      const scope = yield* Scope.make()
      const pooled = yield* pool.borrow(LIMIT_MB).pipe(Scope.provide(scope))
      // the release asks the worker to close its document; an answer of another kind comes first
      const release = yield* listening(pooled.worker, "message", Scope.close(scope, Exit.void))
      pooled.worker.emit("message", { _tag: "Opened", numPages: 1 })
      yield* Fiber.join(release)
      expect(yield* pool.stats).toMatchObject({ spawned: 1, exited: 1, live: 0, idle: 0, busy: 0 })
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), 60_000)

  it.live("a worker that exits right after answering Close is not kept", () =>
    Effect.gen(function*() {
      const pool = yield* makePdfWorkerPool()
      const scope = yield* Scope.make()
      const pooled = yield* pool.borrow(LIMIT_MB).pipe(Scope.provide(scope))
      const release = yield* listening(pooled.worker, "message", Scope.close(scope, Exit.void))
      // the answer, then the exit (made up: the thread is ended below), before the release goes on
      pooled.worker.emit("message", { _tag: "Closed" })
      pooled.worker.emit("exit", 1)
      yield* Fiber.join(release)
      const stats = yield* pool.stats
      yield* Effect.promise(() => pooled.worker.terminate())
      expect(stats).toMatchObject({ spawned: 1, exited: 1, live: 0, idle: 0, busy: 0 })
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), 60_000)

  it.live("a malformed answer fails the request, and the request's listeners are removed", () =>
    Effect.gen(function*() {
      const error = yield* withWorker((pool, pooled) =>
          Effect.gen(function*() {
            const listeners = pooled.worker.listenerCount("message")
            const fiber = yield* listening(pooled.worker, "message", Effect.flip(pool.request(pooled, { _tag: "Close" })))
            pooled.worker.emit("message", { _tag: "Nonsense" })
            const failed = yield* Fiber.join(fiber)
            expect(pooled.worker.listenerCount("message")).toBe(listeners)
            return failed
          })
      )
      expect(seen(error)).toEqual({ reason: "crashed", message: "the PDF parser sent a malformed answer" })
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), 60_000)

  it.live("closing the pool's scope ends every worker; a borrow afterwards fails", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const pool = yield* makePdfWorkerPool().pipe(Scope.provide(scope))
      yield* useOnce(pool)
      yield* useOnce(pool).pipe(Effect.forkChild)
      yield* Scope.close(scope, Exit.void)
      expect(yield* pool.stats).toMatchObject({ live: 0, idle: 0 })
      const error = yield* Effect.flip(Effect.scoped(pool.borrow(LIMIT_MB)))
      expect(seen(error)).toEqual({ reason: "crashed", message: "the PDF worker pool is closed" })
    }).pipe(Effect.provide(NodeServices.layer)), 60_000)
})
