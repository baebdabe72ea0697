/**
 * The worker threads of `search_files` outlive the search that started them when they answered
 * every job: the next search takes them (no thread started), tells them its own test, and gets
 * the same lines as the main thread alone; kept workers are few, and keep no process alive.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { IDLE_WORKER_MS, idleWorkers } from "../../../../src/tools/ported/reading/searchWorkers.js"
import type { SearchResult } from "../../../../src/tools/ported/reading/searchTree.js"
import { directoryJob, literalWorkers, makeWorkspace, noIdleWorkers, searchWorkspace } from "./harness.js"
import { runScript } from "../../../helpers/runScript.js"

let fixture: ReturnType<typeof makeWorkspace>

beforeAll(() => {
  fixture = makeWorkspace("search-pool-")
  for (let d = 0; d < 6; d++) {
    for (let f = 0; f < 50; f++) {
      const i = d * 50 + f
      fixture.write(`d${d}/f${String(f).padStart(2, "0")}.txt`, i % 7 === 0 ? `alpha ${i}\nbeta ${i}\n` : i % 5 === 0 ? `beta ${i}\n` : "gamma\n")
    }
  }
})
afterAll(() => fixture.remove())

const search = (pattern: string, options: { readonly regex: boolean; readonly workers: number }): Effect.Effect<SearchResult> =>
  searchWorkspace(fixture.ws, pattern, options)

const threads = () => Fs.readdirSync("/proc/self/task").length

describe.skipIf(process.platform !== "linux")("the search workers kept between searches", () => {
  // Where test files share one module graph (the mutation run's vitest config), an earlier
  // file's search may have left workers idle: the counts below start from none.
  beforeAll(noIdleWorkers, 4 * IDLE_WORKER_MS)

  it.live("are taken by the next search, which tells them its own test", () =>
    Effect.gen(function*() {
      const first = yield* search("alpha", { regex: false, workers: 2 })
      expect(first.lines).toEqual((yield* search("alpha", { regex: false, workers: 0 })).lines)
      expect(first.lines).toHaveLength(43)
      expect(idleWorkers()).toBe(2)
      // libuv's thread pool starts its threads on its first use: Node 20's module loader had
      // used it before any test, Node 22's reads modules synchronously, so its first use may be
      // a streamed regex search below (4 threads that are not the search's). Started here.
      yield* Effect.promise(() => Fs.promises.readdir(fixture.ws))
      const before = threads()
      // another pattern, another kind of test (re2js): what the kept workers now answer with
      for (const [pattern, regex] of [["be+ta \\d*5$", true], ["gamma", false], ["alpha", false]] as const) {
        const alone = yield* search(pattern, { regex, workers: 0 })
        const pooled = yield* search(pattern, { regex, workers: 2 })
        expect(pooled.lines, pattern).toEqual(alone.lines)
        expect(pooled.lines.length, pattern).toBeGreaterThan(0)
      }
      // no thread was started for them
      expect(threads()).toBe(before)
      expect(idleWorkers()).toBe(2)
    }), { timeout: 30_000 })

  it.live("are not kept when a search ends with a job of theirs unanswered (terminated instead)", () =>
    Effect.gen(function*() {
      yield* search("alpha", { regex: false, workers: 2 })
      const before = idleWorkers()
      // two or more: the one terminated must take no other kept worker out of the pool with it
      expect(before).toBeGreaterThanOrEqual(2)
      yield* Effect.scoped(Effect.gen(function*() {
        const job = yield* directoryJob(Path.join(fixture.ws, "d0"))
        const workers = yield* literalWorkers("alpha", 1)
        // it took a kept worker
        expect(idleWorkers()).toBe(before - 1)
        expect(workers.submit(job.prefix, job.names)).toBeDefined()
        expect(workers.outstanding()).toBe(1)
        // the search ends here, its job still out
      }))
      // its exit is seen (the pool drops a worker that stops) before the next search could start
      yield* Effect.sleep("50 millis")
      expect(idleWorkers()).toBe(before - 1)
    }), { timeout: 30_000 })

  it.live("run out their idle time only while idle: one taken by a search outlives it, and is ended after the search", () =>
    Effect.gen(function*() {
      yield* search("alpha", { regex: false, workers: 1 })
      const before = idleWorkers()
      expect(before).toBeGreaterThanOrEqual(1)
      const [answered, errors] = yield* Effect.scoped(Effect.gen(function*() {
        const job = yield* directoryJob(Path.join(fixture.ws, "d0"))
        const workers = yield* literalWorkers("alpha", 1)
        expect(idleWorkers()).toBe(before - 1)
        // past the idle time it had when it was kept: taken, it must not be ended
        yield* Effect.sleep(IDLE_WORKER_MS + 300)
        expect(workers.submit(job.prefix, job.names)).toBeDefined()
        yield* workers.wait
        return [workers.poll(), workers.errors()] as const
      }))
      expect(errors).toEqual([])
      expect(answered).toHaveLength(1)
      expect(answered[0]?.answer).toBeDefined()
      // kept again, with a new idle time (other kept workers may have run out theirs meanwhile)
      expect(idleWorkers()).toBeGreaterThanOrEqual(1)
      const threadsKept = threads()
      yield* Effect.sleep(IDLE_WORKER_MS + 500)
      expect(idleWorkers()).toBe(0)
      expect(threads()).toBeLessThan(threadsKept)
    }), { timeout: 30_000 })

  it.live("gather no listeners over many searches: each search takes its own off", () =>
    Effect.gen(function*() {
      const warnings: Array<string> = []
      const onWarning = (warning: Error) => void warnings.push(`${warning.name}: ${warning.message}`)
      process.on("warning", onWarning)
      yield* Effect.addFinalizer(() => Effect.sync(() => process.off("warning", onWarning)))
      // one kept worker, taken by each search in turn: past Node's 10 listeners an event would warn
      for (let i = 0; i < 15; i++) {
        const found = yield* search("alpha", { regex: false, workers: 1 })
        expect(found.lines).toHaveLength(43)
      }
      // a warning is emitted on the next tick
      yield* Effect.sleep("20 millis")
      expect(warnings).toEqual([])
    }).pipe(Effect.scoped), { timeout: 30_000 })

  it.live("are at most three, however many searches ran at once", () =>
    Effect.gen(function*() {
      yield* Effect.all(Array.from({ length: 4 }, () => search("beta", { regex: false, workers: 2 })), { concurrency: "unbounded" })
      expect(idleWorkers()).toBe(3)
    }), { timeout: 30_000 })

  it("keep no process alive", async () => {
    const { code, stdout } = await runScript(new URL("./searchThenExit.ts", import.meta.url))
    expect(code).toBe(0)
    const report: unknown = JSON.parse(stdout)
    expect(report).toMatchObject({ lines: 10, kept: 1 })
    // it ended on its own, well before the kept worker's idle time was up
    expect(report).toHaveProperty("exitAfterMs", expect.any(Number))
    const after = typeof report === "object" && report !== null && "exitAfterMs" in report ? Number(report.exitAfterMs) : Infinity
    expect(after).toBeLessThan(IDLE_WORKER_MS / 2)
  }, 40_000)
})
