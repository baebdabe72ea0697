/**
 * `SANDBOX_ESCAPE_VECTORS` (`effect-tool-system/testing`) used as an application would: its
 * host-reach vectors (the quick ones; the denial-of-service ones each hold a Worker up to a
 * deadline or memory limit and run in test/tools/builtin/sandbox/escapeVectors.slow.test.ts)
 * through `execute_javascript` of a `ToolSystem` built from the main entry with the
 * application's own sandbox settings, each ending as its entry says.
 */
import { afterAll, describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import {
  executeJavascript,
  SandboxPool,
  type ToolExecutionResult,
  ToolSystem,
  Workspace
} from "../../src/index.js"
import { type EscapeExpectation, SANDBOX_ESCAPE_VECTORS, type SandboxEscapeVector } from "../../src/testing.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const ws = makeTempDirSync("testing-vectors-")
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))

/** The application's sandbox settings: one warm Worker, two at most. */
const system = ToolSystem.layerNode({
  builtins: false,
  tools: [executeJavascript],
  workspace: Workspace.layerFixed(ws),
  sandbox: SandboxPool.layer({ warm: 1, maxWorkers: 2 })
})

const QUICK = new Set<SandboxEscapeVector["category"]>(["host-reach", "prototype-pollution", "state-leak"])
const quick = SANDBOX_ESCAPE_VECTORS.filter((v) => QUICK.has(v.category))

const run = (code: string, timeoutSec: number) =>
  Effect.flatMap(ToolSystem, (tools) => tools.execute("execute_javascript", { code, timeout_sec: timeoutSec }, { confirm: true }))

const endsAs = (r: ToolExecutionResult, expectation: EscapeExpectation) => {
  if (expectation.outcome === "result") {
    expect(r).toMatchObject({ success: true, error: null })
    const output = r.output as { readonly result?: unknown }
    expect(String(output.result)).toMatch(expectation.result)
  } else {
    expect(r.success).toBe(false)
    expect(expectation.codes ?? ["TOOL_ERROR"]).toContain(r.errorCode)
    expect(r.error).toMatch(expectation.message)
  }
  expect(JSON.stringify([r.output, r.error])).not.toContain("HOST")
}

describe("SANDBOX_ESCAPE_VECTORS from the testing entry", () => {
  it("has host reach first, then denial of service, with unique names", () => {
    expect(SANDBOX_ESCAPE_VECTORS.length).toBeGreaterThanOrEqual(20)
    expect(new Set(SANDBOX_ESCAPE_VECTORS.map((v) => v.name)).size).toBe(SANDBOX_ESCAPE_VECTORS.length)
    const firstSlow = SANDBOX_ESCAPE_VECTORS.findIndex((v) => !QUICK.has(v.category))
    expect(firstSlow).toBe(quick.length)
    expect(quick.length).toBeGreaterThanOrEqual(10)
  })

  layer(system, { timeout: 60_000 })((it) => {
    for (const vector of quick) {
      it.effect(`${vector.category}: ${vector.name}`, () =>
        Effect.gen(function*() {
          endsAs(yield* run(vector.code, vector.timeoutSec ?? 1), vector.expect)
          if (vector.then !== undefined) endsAs(yield* run(vector.then.code, 1), vector.then.expect)
        }))
    }
  })
})
