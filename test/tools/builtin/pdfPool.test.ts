/**
 * The PDF worker pool: a borrow made exactly when the idle timer fires (a timer of the same
 * length created after the pool's fires right after it) must get a working worker, never the
 * one being terminated; how many workers it keeps (per memory limit) and for how many uses; a
 * worker that dies, errs or answers nonsense; an interrupted borrower; a closed pool.
 *
 * A worker's own 'error' event and a malformed answer cannot be produced on demand by the real
 * worker script, so those tests emit the event on the real `Worker` object the pool listens to:
 * what is checked is the pool's handling of it.
 */
import { describe, expect, it } from "@effect/vitest"
import { NodeContext } from "@effect/platform-node"
import { Effect, Exit, Fiber, Scope } from "effect"
import type { PdfWorkersService } from "../../../src/services/PdfWorkers.js"
import { makePdfWorkerPool, type PdfWorkerError, type PooledWorker } from "../../../src/tools/builtin/pdf/workerPool.js"

const LIMIT_MB = 256
const IDLE_MS = 100

/** Borrows a worker, asks it something, gives it back (which parks it with a fresh idle timer). */
const useOnce = (pool: PdfWorkersService) =>
  Effect.scoped(Effect.flatMap(pool.borrow(LIMIT_MB), (worker) => pool.request(worker, { _tag: "Close" })))

/** What a caller of the pool sees of an error: its reason and its message. */
const seen = (error: PdfWorkerError) => ({ reason: error.reason, message: error.message })

/** Forks `request` and waits until it is listening (microtasks only: no answer can come meanwhile). */
const listening = <A, E>(worker: PooledWorker["worker"], event: string, request: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const before = worker.listenerCount(event)
    const fiber = yield* Effect.fork(request)
    while (worker.listenerCount(event) === before) yield* Effect.yieldNow()
    return fiber
  })

/** A fresh pool (closed with the test's scope) and one worker borrowed from it for `body`. */
const withWorker = <A, E>(body: (pool: PdfWorkersService, pooled: PooledWorker) => Effect.Effect<A, E>) =>
  Effect.flatMap(makePdfWorkerPool(), (pool) => Effect.scoped(Effect.flatMap(pool.borrow(LIMIT_MB), (pooled) => body(pool, pooled))))

/** Waits `ms` on a plain timer (not the fiber's clock): created now, it fires after every timer of the same length created before it. */
const after = (ms: number) =>
  Effect.async<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), ms)
    return Effect.sync(() => clearTimeout(timer))
  })

describe("PDF worker pool", () => {
  it.live("a borrow made exactly when a worker's idle time ends gets a working worker", () =>
    Effect.gen(function*() {
      const pool = yield* makePdfWorkerPool({ idleMs: IDLE_MS })
      expect(yield* useOnce(pool)).toEqual({ _tag: "Closed" })
      // offset from the end of the idle time: before it, the worker is reused; at it (our timer
      // fires right after the pool's, before the worker has exited) and after it, it has been
      // retired and a new one starts
      // (two reuses in a row: a worker's idle timer is cleared when it is lent out, so the
      // timer of its first idle time cannot end it during its second)
      for (const offset of [-30, -30, 0, 0, -10, 0, 5, 0]) {
        const before = yield* pool.stats
        expect(before).toMatchObject({ idle: 1, busy: 0 })
        yield* after(IDLE_MS + offset)
        expect(yield* useOnce(pool), `offset ${offset}`).toEqual({ _tag: "Closed" })
        expect((yield* pool.stats).spawned - before.spawned, `offset ${offset}`).toBe(offset < 0 ? 0 : 1)
      }
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)), 60_000)

  it.live("keeps maxIdle workers per memory limit: the rest of a burst ends when it is given back", () =>
    Effect.gen(function*() {
      // an idle time far past the test's: a kept worker is not retired for idling on a slow machine
      const pool = yield* makePdfWorkerPool({ maxIdle: 1, idleMs: 600_000 })
      // three workers of one limit at once, and one of another, each answering once before it is
      // given back: a worker still loading pdf.js when it is given back may miss the release's
      // wait for its answer on a loaded machine, and is then ended as in doubt
      yield* Effect.scoped(
        Effect.forEach([LIMIT_MB, LIMIT_MB, LIMIT_MB, 128], (limit) => pool.borrow(limit)).pipe(
          Effect.flatMap((workers) =>
            Effect.forEach(workers, (worker) => pool.request(worker, { _tag: "Close" }), { concurrency: "unbounded" })
          )
        )
      )
      expect(yield* pool.stats).toMatchObject({ spawned: 4, exited: 2, live: 2, idle: 2, busy: 0 })
      // the kept ones are lent again
      yield* Effect.scoped(Effect.all([pool.borrow(LIMIT_MB), pool.borrow(128)]))
      expect(yield* pool.stats).toMatchObject({ spawned: 4, idle: 2 })
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)), 60_000)

  it.live("a worker is replaced after maxUses documents", () =>
    Effect.gen(function*() {
      const pool = yield* makePdfWorkerPool({ maxUses: 2 })
      yield* useOnce(pool)
      yield* useOnce(pool)
      expect(yield* pool.stats).toMatchObject({ spawned: 1, exited: 1, live: 0, idle: 0 })
      yield* useOnce(pool)
      yield* useOnce(pool)
      yield* useOnce(pool)
      expect(yield* pool.stats).toMatchObject({ spawned: 3, exited: 2, live: 1, idle: 1 })
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)), 60_000)

  it.live("an interrupted borrower's worker is terminated, not given back", () =>
    Effect.gen(function*() {
      const pool = yield* makePdfWorkerPool()
      const exit = yield* Effect.exit(Effect.scoped(Effect.flatMap(pool.borrow(LIMIT_MB), () => Effect.interrupt)))
      expect(Exit.isInterrupted(exit)).toBe(true)
      expect(yield* pool.stats).toMatchObject({ spawned: 1, exited: 1, live: 0, idle: 0, busy: 0 })
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)), 60_000)

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
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)), 60_000)

  it.live("a request to a worker that has died fails without sending", () =>
    Effect.gen(function*() {
      const error = yield* withWorker((pool, pooled) =>
        Effect.zipRight(Effect.promise(() => pooled.worker.terminate()), Effect.flip(pool.request(pooled, { _tag: "Close" })))
      )
      expect(seen(error)).toEqual({ reason: "crashed", message: "the PDF parser stopped unexpectedly" })
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)), 60_000)

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
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)), 60_000)

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
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)), 60_000)

  it.live("a worker starts with its heap capped at the borrowed limit", () =>
    Effect.gen(function*() {
      const limits = yield* withWorker((_pool, pooled) => Effect.succeed(pooled.worker.resourceLimits))
      expect(limits?.maxOldGenerationSizeMb).toBe(LIMIT_MB)
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)), 60_000)

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
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)), 60_000)

  it.live("a worker that answers Close with something else is ended, not kept", () =>
    Effect.gen(function*() {
      const pool = yield* makePdfWorkerPool()
      const scope = yield* Scope.make()
      const pooled = yield* pool.borrow(LIMIT_MB).pipe(Scope.extend(scope))
      // the release asks the worker to close its document; an answer of another kind comes first
      const release = yield* listening(pooled.worker, "message", Scope.close(scope, Exit.void))
      pooled.worker.emit("message", { _tag: "Opened", numPages: 1 })
      yield* Fiber.join(release)
      expect(yield* pool.stats).toMatchObject({ spawned: 1, exited: 1, live: 0, idle: 0, busy: 0 })
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)), 60_000)

  it.live("a worker that exits right after answering Close is not kept", () =>
    Effect.gen(function*() {
      const pool = yield* makePdfWorkerPool()
      const scope = yield* Scope.make()
      const pooled = yield* pool.borrow(LIMIT_MB).pipe(Scope.extend(scope))
      const release = yield* listening(pooled.worker, "message", Scope.close(scope, Exit.void))
      // the answer, then the exit (made up: the thread is ended below), before the release goes on
      pooled.worker.emit("message", { _tag: "Closed" })
      pooled.worker.emit("exit", 1)
      yield* Fiber.join(release)
      const stats = yield* pool.stats
      yield* Effect.promise(() => pooled.worker.terminate())
      expect(stats).toMatchObject({ spawned: 1, exited: 1, live: 0, idle: 0, busy: 0 })
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)), 60_000)

  it.live("the memory watchdog stops with its request: memory the host takes afterwards ends no worker", () =>
    Effect.gen(function*() {
      const pool = yield* makePdfWorkerPool()
      const pooled = yield* pool.borrow(LIMIT_MB)
      expect(yield* pool.request(pooled, { _tag: "Close" })).toEqual({ _tag: "Closed" })
      // the process grows by more than the limit (every page touched), and stays so a while
      const held = Buffer.alloc((LIMIT_MB + 64) * 1024 * 1024, 1)
      yield* after(500)
      expect(held.length).toBeGreaterThan(LIMIT_MB * 1024 * 1024)
      expect(pooled.dead).toBe(false)
      expect(yield* pool.request(pooled, { _tag: "Close" })).toEqual({ _tag: "Closed" })
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)), 60_000)

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
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)), 60_000)

  it.live("an idle worker that exits leaves the pool", () =>
    Effect.gen(function*() {
      const pool = yield* makePdfWorkerPool()
      // two idle workers, which exit on their own one after the other (so one of them is the
      // first of the idle list when it exits)
      const [first, second] = yield* Effect.scoped(Effect.all([pool.borrow(LIMIT_MB), pool.borrow(LIMIT_MB)]))
      expect(yield* pool.stats).toMatchObject({ live: 2, idle: 2 })
      yield* Effect.promise(() => first.worker.terminate())
      expect(yield* pool.stats).toMatchObject({ live: 1, idle: 1, exited: 1 })
      yield* Effect.promise(() => second.worker.terminate())
      expect(yield* pool.stats).toMatchObject({ live: 0, idle: 0, exited: 2 })
      expect(yield* useOnce(pool)).toEqual({ _tag: "Closed" })
      expect(yield* pool.stats).toMatchObject({ spawned: 3, idle: 1 })
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)), 60_000)

  it.live("closing the pool's scope ends every worker; a borrow afterwards fails", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const pool = yield* makePdfWorkerPool().pipe(Scope.extend(scope))
      yield* useOnce(pool)
      yield* useOnce(pool).pipe(Effect.fork)
      yield* Scope.close(scope, Exit.void)
      expect(yield* pool.stats).toMatchObject({ live: 0, idle: 0 })
      const error = yield* Effect.flip(Effect.scoped(pool.borrow(LIMIT_MB)))
      expect(seen(error)).toEqual({ reason: "crashed", message: "the PDF worker pool is closed" })
    }).pipe(Effect.provide(NodeContext.layer)), 60_000)
})
