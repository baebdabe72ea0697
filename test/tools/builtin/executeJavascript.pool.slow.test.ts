/**
 * The tests of `executeJavascript.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet machine:
 * real processes, worker starts, large inputs), kept in the slow lane so that the fast lane's
 * tests stay well under its 1 s CPU bound even on a loaded machine.
 *
 * `execute_javascript` and its sandbox pool: what the tool answers for code, output, failures,
 * timeouts and limits, and the pool as a resource. The proofs that keep Workers busy for long or
 * start several (out of memory, concurrent calls, an interrupted call's replacement, a Worker
 * stuck in native code) are in `executeJavascript.slow.test.ts`.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Option, Scope } from "effect"
import { SandboxPool } from "../../../src/services/SandboxPool.js"
import { DEFAULT_POOL_OPTIONS, SandboxWorkers } from "../../../src/layers/SandboxPool.js"
import { sandboxSystem } from "./sandbox/system.js"
import { js, sandboxDir, stats } from "./executeJavascriptHarness.js"

const dir = sandboxDir()

const system = sandboxSystem(dir)

describe("execute_javascript", () => {
  layer(system, { timeout: 60_000 })((it) => {

    it.effect("evaluates arithmetic and returns the last value as JSON text", () =>
      Effect.gen(function*() {
        const r = yield* js("const a = 6; a * 7")
        expect(r.success).toBe(true)
        expect(r.output).toEqual({ stdout: "", result: "42" })
      }))

    it.effect("keeps a warm worker: later calls skip the worker start", () =>
      Effect.gen(function*() {
        expect(yield* stats).toEqual({ live: 0, idle: 0, spawned: 0 })
        const first = yield* js("1 + 1")
        expect(first.success).toBe(true)
        expect(yield* stats).toEqual({ live: 1, idle: 1, spawned: 1 })
        const later: Array<number> = []
        for (let i = 0; i < 5; i++) later.push((yield* js("1 + 1")).durationMs)
        const fastest = Math.min(...later)
        expect(fastest).toBeLessThan(200)
        expect(fastest).toBeLessThan(first.durationMs)
        expect(yield* stats).toEqual({ live: 1, idle: 1, spawned: 1 })
        // a system of its own (a fresh pool): `local` builds it apart from the file's layer, whose
        // registry Effect 4 would otherwise share (the memo map), registering the tool twice
      }).pipe(Effect.provide(sandboxSystem(dir), { local: true })))
  })

  describe("the worker pool as a resource", () => {
    // live clock: real sandbox Workers, their start and their end
    it.live("closing the layer's scope terminates every worker", () =>
      Effect.gen(function*() {
        const scope = yield* Scope.make()
        const pool = Context.get(yield* Layer.buildWithScope(SandboxPool.layer(), scope), SandboxPool)
        expect(yield* pool.stats).toMatchObject({ live: 0, idle: 0 })
        expect(yield* pool.run("6 * 7", 5000)).toEqual({ kind: "ok", stdout: "", result: "42" })
        expect((yield* pool.stats).live).toBeGreaterThan(0)
        yield* Scope.close(scope, Exit.void)
        expect(yield* pool.stats).toMatchObject({ live: 0, idle: 0 })
      }))

    // live clock: a real Worker spinning; the 100 ms stands for the executor's timeout (short: the
    // guest spins on a core until it is terminated), and the 2 s bound leaves 1.9 s for the
    // termination (waiting for the pool's own 20 s deadline would miss it)
    it.live("interrupting a call (as the executor's timeout does) terminates the worker", () =>
      Effect.gen(function*() {
        // A pool that keeps no warm worker, so the count shows exactly what was terminated.
        const pool = new SandboxWorkers({ ...DEFAULT_POOL_OPTIONS, warm: 0 })
        expect((yield* pool.run("1 + 1", 5000))).toEqual({ kind: "ok", stdout: "", result: "2" })
        expect(pool.stats()).toEqual({ live: 1, idle: 1, spawned: 1 })
        const start = Date.now()
        const outcome = yield* pool.run("for (;;) {}", 20_000).pipe(Effect.timeoutOption("100 millis"))
        expect(Option.isNone(outcome)).toBe(true)
        expect(Date.now() - start).toBeLessThan(2000)
        expect(pool.stats()).toEqual({ live: 0, idle: 0, spawned: 1 })
        yield* pool.shutdown()
      }))
  })
})
