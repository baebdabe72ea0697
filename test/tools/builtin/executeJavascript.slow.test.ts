/**
 * `execute_javascript`'s sandbox pool where its Workers work hard: a guest that runs out of
 * memory ends MEMORY_LIMIT and the next call works; calls run at once on several Workers; an
 * interrupted call's Worker is terminated and replaced; a Worker stuck in native code is
 * terminated by the host at the deadline. In the slow lane: each keeps Workers busy up to a
 * limit or a deadline, or starts several, about 1-3 s of CPU a test. The rest of the tool's
 * tests are in `executeJavascript.test.ts`.
 */
import { afterAll, describe, expect, it, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import * as fs from "node:fs"
import { SandboxPool } from "../../../src/services/SandboxPool.js"
import { DEFAULT_POOL_OPTIONS, SandboxWorkers } from "../../../src/layers/SandboxPool.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"
import { sandboxSystem } from "./sandbox/system.js"
import { js, outputOf, stats } from "./executeJavascriptHarness.js"

const dir = makeTempDirSync("execute-js-slow-")
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const system = sandboxSystem(dir)

/** Polls `condition` every 50 ms, for at most 10 s. */
const waitFor = (condition: Effect.Effect<boolean, never, SandboxPool>) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 10_000
    while (!(yield* condition)) {
      if (Date.now() > deadline) return yield* Effect.die(new Error("condition not reached within 10 s"))
      yield* Effect.sleep("50 millis")
    }
  })

describe("execute_javascript", () => {
  layer(system, { timeout: 60_000 })((it) => {
    it.effect("a guest that runs out of memory ends MEMORY_LIMIT, and the next call works", () =>
      Effect.gen(function*() {
        const r = yield* js("console.log(\"started\"); const xs = []; for (;;) xs.push(new Float64Array(1 << 20))", { timeout_sec: 20 })
        expect(r).toMatchObject({ success: false, errorCode: "MEMORY_LIMIT" })
        expect(r.error).toBe("Tool \"execute_javascript\" exceeded its memory limit of 64 MB\nOutput before the failure:\nstarted\n")
        expect((yield* js("6 * 7")).output).toEqual({ stdout: "", result: "42" })
      }))

    it.effect("runs calls concurrently on several workers", () =>
      Effect.gen(function*() {
        /** Three calls at once, each busy `ms` in the guest; each returns when (on the wall clock) it ran. */
        const burst = (ms: number) =>
          Effect.all(
            [1, 2, 3].map((n) =>
              Effect.map(
                js(`const start = Date.now(); while (Date.now() < start + ${ms}) {} [${n}, start, Date.now()]`),
                (r) => JSON.parse(outputOf(r.output).result ?? "null") as [number, number, number]
              )
            ),
            { concurrency: "unbounded" }
          )
        // the first burst starts the Workers, which stay warm (the extra ones for `idleMs`)
        expect((yield* burst(1)).map(([n]) => n)).toEqual([1, 2, 3])
        const warm = yield* stats
        expect(warm.idle).toBe(warm.live)
        expect(warm.idle).toBeGreaterThanOrEqual(3)
        // on warm Workers, the calls' busy times overlap: one after the other, none would
        const runs = yield* burst(500)
        expect(runs.map(([n]) => n)).toEqual([1, 2, 3])
        const overlapping = runs.filter(([n, start, end]) =>
          runs.some(([m, otherStart, otherEnd]) => m !== n && start < otherEnd && otherStart < end)
        )
        expect(overlapping.length).toBeGreaterThanOrEqual(2)
        expect((yield* stats).spawned).toBe(warm.spawned)
      }))
  })

  describe("the worker pool as a resource", () => {
    it.live("an interrupted call terminates its worker, and the pool replaces it", () =>
      Effect.gen(function*() {
        yield* js("1") // one warm worker
        expect(yield* stats).toMatchObject({ live: 1, idle: 1 })
        const start = Date.now()
        const fiber = yield* Effect.forkChild(js("for (;;) {}", { timeout_sec: 20 }))
        yield* Effect.sleep("300 millis")
        expect(yield* stats).toMatchObject({ live: 1, idle: 0 })
        yield* Fiber.interrupt(fiber)
        expect(Date.now() - start).toBeLessThan(2000)
        // A replacement starts in the background and becomes the warm worker.
        yield* waitFor(stats.pipe(Effect.map((s) => s.idle === 1)))
        expect(yield* stats).toMatchObject({ live: 1, idle: 1 })
        const r = yield* js("\"still working\"")
        expect(r.output).toEqual({ stdout: "", result: "\"still working\"" })
      }).pipe(Effect.provide(system)))

    it.live("the host terminates a worker stuck in native code at the deadline", () =>
      Effect.gen(function*() {
        const pool = new SandboxWorkers({ ...DEFAULT_POOL_OPTIONS, warm: 0 })
        yield* pool.run("0", 5000) // started and warm
        const start = Date.now()
        // One native call that never reaches the interrupt handler.
        const outcome = yield* pool.run("new Array(1e9) + \"\"", 500)
        const took = Date.now() - start
        expect(outcome).toEqual({ kind: "timeout", stdout: "" })
        expect(took).toBeGreaterThanOrEqual(500 + DEFAULT_POOL_OPTIONS.graceMs - 50)
        expect(took).toBeLessThan(2500)
        expect(pool.stats()).toEqual({ live: 0, idle: 0, spawned: 1 })
        yield* pool.shutdown()
      }))
  })
})
