/**
 * Search workers that stop, as the pool sees it: one that exits during a search gives its jobs
 * back unanswered, and a search whose workers all stop at once reads every file itself, with the
 * same lines; one that errs is not kept, and its error is the search's; an idle one that exits
 * or errs leaves the pool. The pool hands out no worker, so for this file `Worker` is replaced
 * by a subclass that records every worker started (and, when asked, ends it at once); the
 * events are the real worker's, or emitted on it (an uncaught error cannot be made on demand).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Path from "node:path"
import type { Worker, WorkerOptions } from "node:worker_threads"
import { IDLE_WORKER_MS, idleWorkers } from "../../../../src/tools/ported/reading/searchWorkers.js"
import { replaceWorker } from "../../../helpers/replaceWorker.js"
import { directoryJob, literalWorkers, makeWorkspace, noIdleWorkers, searchWorkspace } from "./harness.js"

/** Every worker started while this file runs, in order. */
const started: Array<Worker> = []
/** When set, a worker is terminated as soon as it is started. */
let endAtOnce = false

let fixture: ReturnType<typeof makeWorkspace>
let restoreWorker = () => {}

beforeAll(async () => {
  fixture = makeWorkspace("search-stops-")
  for (let f = 0; f < 60; f++) fixture.write(`d/f${String(f).padStart(2, "0")}.txt`, f % 3 === 0 ? `alpha ${f}\n` : "gamma\n")
  await noIdleWorkers()
  restoreWorker = replaceWorker((Original) =>
    class extends Original {
      constructor(filename: string | URL, options?: WorkerOptions) {
        super(filename, options)
        started.push(this)
        if (endAtOnce) void this.terminate()
      }
    }
  )
}, 4 * IDLE_WORKER_MS)

afterAll(async () => {
  restoreWorker()
  await Promise.all(started.map((worker) => worker.terminate()))
  fixture.remove()
})

/** The worker started last. */
const newest = (): Worker => {
  const worker = started.at(-1)
  if (worker === undefined) throw new Error("no worker was started")
  return worker
}

/** Waits until `condition` holds, for at most `withinMs`. */
const eventually = (condition: () => boolean, withinMs: number) =>
  Effect.gen(function*() {
    const deadline = Date.now() + withinMs
    while (!condition() && Date.now() < deadline) yield* Effect.sleep("10 millis")
    expect(condition()).toBe(true)
  })

// live clock: real search worker threads that exit or err; their timers are Node's (searchWorkers.ts)
describe.skipIf(process.platform !== "linux")("search workers that stop", () => {
  it.live("one that exits during a search gives its jobs back unanswered, and is not kept", () =>
    Effect.gen(function*() {
      expect(idleWorkers()).toBe(0)
      yield* Effect.scoped(Effect.gen(function*() {
        const files = yield* directoryJob(Path.join(fixture.ws, "d"))
        const workers = yield* literalWorkers("alpha", 1)
        const worker = newest()
        const id = workers.submit(files.prefix, files.names)
        expect(id).toBeDefined()
        // a worker just started has not even loaded its code: the job is still out when it ends
        yield* Effect.promise(() => worker.terminate())
        yield* workers.wait
        expect(workers.poll()).toEqual([{ id, answer: undefined }])
        expect(workers.outstanding()).toBe(0)
        expect(workers.errors()).toEqual([])
        // no live worker is left to take a job
        expect(workers.room()).toBe(false)
      }))
      expect(idleWorkers()).toBe(0)
    }), { timeout: 30_000 })

  it.live("a search whose workers all end at once reads every file itself, with the same lines", () =>
    Effect.gen(function*() {
      const alone = yield* searchWorkspace(fixture.ws, "alpha", { workers: 0 })
      expect(alone.lines).toHaveLength(20)
      const before = started.length
      endAtOnce = true
      const ended = yield* searchWorkspace(fixture.ws, "alpha", { workers: 2 }).pipe(
        Effect.ensuring(Effect.sync(() => (endAtOnce = false)))
      )
      expect(started.length - before).toBe(2)
      expect(ended.lines).toEqual(alone.lines)
      // (one given no job may be kept before its exit is seen; the exit takes it out)
      yield* eventually(() => idleWorkers() === 0, 5000)
    }), { timeout: 30_000 })

  it.live("one that errs is not kept, and its error is the search's", () =>
    Effect.gen(function*() {
      expect(idleWorkers()).toBe(0)
      const boom = new Error("boom")
      const worker = yield* Effect.scoped(Effect.gen(function*() {
        const workers = yield* literalWorkers("alpha", 1)
        const worker = newest()
        worker.emit("error", boom)
        expect(workers.errors()).toEqual([boom])
        expect(workers.room()).toBe(false)
        return worker
      }))
      expect(idleWorkers()).toBe(0)
      // terminated when the search let it go
      expect(worker.threadId).toBe(-1)
    }), { timeout: 30_000 })

  it.live("an idle one that exits, or errs, leaves the pool; one that exits in a search takes no idle one with it", () =>
    Effect.gen(function*() {
      expect(idleWorkers()).toBe(0)
      expect((yield* searchWorkspace(fixture.ws, "alpha", { workers: 2 })).lines).toHaveLength(20)
      expect(idleWorkers()).toBe(2)
      // kept in the order they were started; a search takes the one kept last
      const [first, second] = started.slice(-2)
      if (first === undefined || second === undefined) throw new Error("two workers were expected")
      yield* Effect.scoped(Effect.gen(function*() {
        yield* literalWorkers("alpha", 1)
        expect(idleWorkers()).toBe(1)
        // (its listeners have run when terminate's promise settles)
        yield* Effect.promise(() => second.terminate())
        expect(idleWorkers()).toBe(1)
      }))
      first.emit("error", new Error("failed while idle"))
      expect(idleWorkers()).toBe(0)
      yield* Effect.promise(() => first.terminate())

      expect((yield* searchWorkspace(fixture.ws, "alpha", { workers: 1 })).lines).toHaveLength(20)
      expect(idleWorkers()).toBe(1)
      yield* Effect.promise(() => newest().terminate())
      expect(idleWorkers()).toBe(0)
    }), { timeout: 30_000 })
})
