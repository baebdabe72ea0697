/**
 * What `guard.test.ts` and `guard.megabytes.slow.test.ts` share: a system of just the tools a
 * test makes, over a temp workspace, and a call of one of them.
 */
import { Effect } from "effect"
import { Tool, ToolSystem, Workspace } from "../../src/index.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

/** `layerOf(...tools)`: a system of just `tools` (no built-ins) over a temp workspace made now. */
export const layersIn = (prefix: string) => {
  const ws = makeTempDirSync(prefix)
  return (...tools: ReadonlyArray<Tool.Tool<never>>) =>
    ToolSystem.layerNode({ builtins: false, tools, workspace: Workspace.layerFixed(ws) })
}

/** Calls the tool `name` with no arguments in the system of the context. */
export const exec = (name: string) => Effect.flatMap(ToolSystem, (t) => t.execute(name, {}))
