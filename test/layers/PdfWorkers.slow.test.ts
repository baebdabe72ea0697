/**
 * The PDF worker pool where it starts several workers or the process grows: a borrow made
 * exactly when the idle timer fires (a timer of the same length created after the pool's fires
 * right after it) must get a working worker, never the one being terminated; how many workers it
 * keeps (maxIdle per memory limit) and for how many uses (maxUses); idle workers that exit leave
 * it; the memory watchdog stops with its request. In the slow lane: three to six worker starts
 * a test (each loads pdf.js), or 320 MB the process takes and touches, about 1-2.3 s of CPU a
 * test. The rest of the pool's tests are in `PdfWorkers.test.ts`.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect } from "effect"
import { makePdfWorkerPool } from "../../src/layers/PdfWorkers.js"
import { LIMIT_MB, useOnce } from "./pdfWorkersHarness.js"
import { prepareWorkerEntry } from "../tools/builtin/pdfWorkerEntry.js"

const IDLE_MS = 100

/** Waits `ms` on a plain timer (not the fiber's clock): created now, it fires after every timer of the same length created before it. */
const after = (ms: number) =>
  Effect.callback<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), ms)
    return Effect.sync(() => clearTimeout(timer))
  })

// the process's one-time set-up of PDF workers: no test's
beforeAll(prepareWorkerEntry)

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
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), 60_000)

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
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), 60_000)

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
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), 60_000)

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
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), 60_000)

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
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), 60_000)
})
