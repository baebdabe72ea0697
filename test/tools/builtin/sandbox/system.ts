/**
 * The tool system with `execute_javascript` over a sandbox pool of its own, the pool also in the
 * context (the system's layer outputs only the library's services), so tests can read its stats.
 */
import { Effect, Layer } from "effect"
import { ToolSystem, Workspace } from "../../../../src/index.js"
import { executeJavascript } from "../../../../src/tools/builtin/executeJavascript.js"
import { SandboxPool, type SandboxPoolOptions } from "../../../../src/services/SandboxPool.js"
import { makeSandboxPool } from "../../../../src/layers/SandboxPool.js"

/** `ToolSystem` (with `execute_javascript` only, in the workspace `dir`) and its `SandboxPool`. */
export const sandboxSystem = (dir: string, options: Partial<SandboxPoolOptions> = {}) =>
  Layer.unwrap(Effect.map(makeSandboxPool(options), (pool) => {
    const sandbox = Layer.succeed(SandboxPool, pool)
    const system = ToolSystem.layerNode({
      builtins: false,
      tools: [executeJavascript],
      workspace: Workspace.layerFixed(dir),
      sandbox
    })
    return Layer.merge(system, sandbox)
  }))
