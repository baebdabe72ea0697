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
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { sandboxSystem } from "./sandbox/system.js"
import { js, sandboxDir } from "./executeJavascriptHarness.js"

const dir = sandboxDir()

const system = sandboxSystem(dir)

describe("execute_javascript", () => {
  layer(system, { timeout: 60_000 })((it) => {

    it.effect("takes a tiny or a huge timeout_sec and refuses one that is not positive", () =>
      Effect.gen(function*() {
        const tiny = yield* js("for (;;) {}", { timeout_sec: 1e-3 })
        expect(tiny.error).toMatch(/^The code did not finish within 0.001 s/)
        const large = yield* js("1", { timeout_sec: 3600 })
        expect(large.output).toEqual({ stdout: "", result: "1" })
        const zero = yield* js("1", { timeout_sec: 0 })
        expect(zero.errorCode).toBe("INVALID_ARGUMENTS")
        const text = yield* js("1", { timeout_sec: "5" })
        expect(text.errorCode).toBe("INVALID_ARGUMENTS")
      }))
  })
})
