/**
 * What `executeJavascript.test.ts` and `executeJavascript.slow.test.ts` share: a call of
 * `execute_javascript` through the `ToolSystem` in the context, the stats of the `SandboxPool`
 * there, and the tool's output checked.
 */
import { Effect } from "effect"
import { ToolSystem } from "../../../src/index.js"
import { SandboxPool } from "../../../src/services/SandboxPool.js"

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
