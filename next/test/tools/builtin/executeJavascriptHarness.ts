/**
 * What `executeJavascript.test.ts` and `executeJavascript.slow.test.ts` share: a call of
 * `execute_javascript` through the `ToolSystem` in the context, the stats of the `SandboxPool`
 * there, and the tool's output checked; with `executeJavascript.pool.slow.test.ts` and
 * `executeJavascript.timeouts.slow.test.ts`, the temp directory of a file's sandbox system.
 */
import { afterAll } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import { ToolSystem } from "../../../src/index.js"
import { SandboxPool } from "../../../src/services/SandboxPool.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"

/** The system's pool: Workers alive (idle or busy), idle ones, and how many were started. */
export const stats = Effect.flatMap(SandboxPool, (pool) => pool.stats)

export const js = (code: string, extra: Record<string, unknown> = {}, confirm = true) =>
  Effect.flatMap(
    ToolSystem,
    (ts) => ts.execute("execute_javascript", { code, ...extra }, confirm ? { confirm: true } : undefined)
  )

/** The tool's output, checked. */
export const outputOf = (output: unknown): { readonly stdout: string; readonly result: string | null } => {
  if (
    typeof output === "object" && output !== null &&
    "stdout" in output && typeof output.stdout === "string" &&
    "result" in output && (typeof output.result === "string" || output.result === null)
  ) return { stdout: output.stdout, result: output.result }
  throw new Error(`not an execute_javascript output: ${JSON.stringify(output)}`)
}

/**
 * A temp directory for a test file's sandbox system, made now and removed after the file's tests.
 * Call it at the file's top level, so that its `afterAll` is that file's (a hook at a shared
 * module's top level would run once for all the files of a module graph).
 */
export const sandboxDir = (): string => {
  const dir = makeTempDirSync("execute-js-")
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}
