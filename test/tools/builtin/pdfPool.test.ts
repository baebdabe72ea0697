/**
 * The PDF worker pool at the end of a worker's idle time: a borrow made exactly when the idle
 * timer fires (a timer of the same length created after the pool's fires right after it) must
 * get a working worker, never the one being terminated.
 */
import { describe, expect, it } from "@effect/vitest"
import { NodeContext } from "@effect/platform-node"
import { Effect } from "effect"
import type { PdfWorkersService } from "../../../src/services/PdfWorkers.js"
import { makePdfWorkerPool } from "../../../src/tools/builtin/pdf/workerPool.js"

const LIMIT_MB = 256
const IDLE_MS = 100

/** Borrows a worker, asks it something, gives it back (which parks it with a fresh idle timer). */
const useOnce = (pool: PdfWorkersService) =>
  Effect.scoped(Effect.flatMap(pool.borrow(LIMIT_MB), (worker) => pool.request(worker, { _tag: "Close" })))

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
      for (const offset of [-30, 0, 0, -10, 0, 5, 0]) {
        const before = yield* pool.stats
        expect(before).toMatchObject({ idle: 1, busy: 0 })
        yield* after(IDLE_MS + offset)
        expect(yield* useOnce(pool), `offset ${offset}`).toEqual({ _tag: "Closed" })
        expect((yield* pool.stats).spawned - before.spawned, `offset ${offset}`).toBe(offset < 0 ? 0 : 1)
      }
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)), 60_000)
})
