/**
 * Every vector of `SANDBOX_ESCAPE_VECTORS` through the real `execute_javascript`: each ends as
 * its entry says, within its deadline, and leaves the host's prototypes and globals unchanged,
 * the pool serving a normal call with no Worker left behind. In the slow lane: the
 * denial-of-service vectors each keep a Worker busy up to their deadline or memory limit, and
 * many end it (a new one starts), about 20 s of CPU for the catalogue.
 */
import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import { ToolSystem } from "../../../../src/index.js"
import {
  type EscapeExpectation,
  SANDBOX_ESCAPE_VECTORS
} from "../../../../src/tools/builtin/sandbox/escapeVectors.js"
import { SandboxPool } from "../../../../src/services/SandboxPool.js"
import type { ToolExecutionResult } from "../../../../src/domain/ToolExecutionResult.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"
import { sandboxSystem } from "./system.js"

const dir = makeTempDirSync("sandbox-vectors-")
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const system = sandboxSystem(dir)

/**
 * How far past its deadline a call may end: the host's grace (0.5 s) plus, when the pool has
 * no warm worker left, the start of a new one under tsx (well under a second once cached).
 */
const MARGIN_MS = 2500

/** Own property names of the host's built-in prototypes and global object, to compare after each vector. */
const hostShape = () => ({
  object: Object.getOwnPropertyNames(Object.prototype).sort(),
  array: Object.getOwnPropertyNames(Array.prototype).sort(),
  string: Object.getOwnPropertyNames(String.prototype).sort(),
  function: Object.getOwnPropertyNames(Function.prototype).sort(),
  global: Object.getOwnPropertyNames(globalThis).sort()
})

const run = (code: string, timeoutSec: number) =>
  Effect.flatMap(
    ToolSystem,
    (ts) => ts.execute("execute_javascript", { code, timeout_sec: timeoutSec }, { confirm: true })
  )

const resultOf = (r: ToolExecutionResult): unknown =>
  typeof r.output === "object" && r.output !== null && "result" in r.output ? r.output.result : undefined

/** Asserts that a call ended as the vector's expectation says, and cleanly. */
const check = (r: ToolExecutionResult, expectation: EscapeExpectation) => {
  if (expectation.outcome === "result") {
    expect(r.error).toBeNull()
    expect(r.success).toBe(true)
    const result = resultOf(r)
    expect(typeof result).toBe("string")
    expect(String(result)).toMatch(expectation.result)
  } else {
    expect(r.success).toBe(false)
    expect(expectation.codes ?? ["TOOL_ERROR"]).toContain(r.errorCode)
    expect(r.error).toMatch(expectation.message)
    expect(r.error).not.toMatch(/the sandbox failed|crashed/)
  }
  // Nothing a vector found belongs to the host.
  expect(JSON.stringify([r.output, r.error])).not.toContain("HOST")
}

describe("SANDBOX_ESCAPE_VECTORS", () => {
  const categories = new Set(SANDBOX_ESCAPE_VECTORS.map((v) => v.category))

  layer(system, { timeout: 60_000 })((it) => {
    it("catalogues at least 20 vectors, with unique names, in every category", () => {
      expect(SANDBOX_ESCAPE_VECTORS.length).toBeGreaterThanOrEqual(20)
      expect(new Set(SANDBOX_ESCAPE_VECTORS.map((v) => v.name)).size).toBe(SANDBOX_ESCAPE_VECTORS.length)
      expect([...categories].sort()).toEqual(
        ["cpu", "host-reach", "memory", "output", "prototype-pollution", "serialization", "source", "stack", "state-leak"]
      )
    })

    for (const vector of SANDBOX_ESCAPE_VECTORS) {
      it.effect(`${vector.category}: ${vector.name}`, () =>
        Effect.gen(function*() {
          // the host as it is before this vector (the host's own libraries may add globals lazily)
          const before = hostShape()
          const timeoutSec = vector.timeoutSec ?? 1
          const r = yield* run(vector.code, timeoutSec)
          check(r, vector.expect)
          expect(r.durationMs).toBeLessThan(timeoutSec * 1000 + MARGIN_MS)

          if (vector.then !== undefined) {
            const next = yield* run(vector.then.code, timeoutSec)
            check(next, vector.then.expect)
          }

          // The host is unchanged and still serves a normal call.
          expect(hostShape()).toEqual(before)
          expect(Reflect.get({}, "polluted")).toBeUndefined()
          const ok = yield* run("6 * 7", 5)
          expect(ok.output).toEqual({ stdout: "", result: "42" })
          // No worker is left behind: at most the one serving calls and one starting.
          expect((yield* Effect.flatMap(SandboxPool, (pool) => pool.stats)).live).toBeLessThanOrEqual(2)
        }))
    }
  })
})
