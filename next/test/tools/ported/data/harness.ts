/**
 * Running ported data, text and system tools through the real executor, in a temp workspace.
 */
import { Cause, Effect, Exit, Option, Result } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { PathTraversalError, ToolSystem, Workspace } from "../../../../src/index.js"
import type { Tool } from "../../../../src/tools/define.js"

/** A runner for `tools` in the workspace `root`. */
export const runner = <const Tools extends ReadonlyArray<Tool<unknown>>>(tools: Tools, root: () => string) =>
(name: string, args: Record<string, unknown>) =>
  Effect.gen(function*() {
    const system = yield* ToolSystem
    return yield* system.execute(name, args)
  }).pipe(Effect.provide(ToolSystem.layerNode({ builtins: false, tools, workspace: Workspace.layerFixed(root()) })))

/** Writes a file under `root`, creating its directories. */
export const writeIn = (root: string) => (rel: string, content: string | Uint8Array) => {
  const file = Path.join(root, rel)
  Fs.mkdirSync(Path.dirname(file), { recursive: true })
  Fs.writeFileSync(file, content)
}

/** The `PathTraversalError` an execution died with, if any. */
export const traversalOf = (exit: Exit.Exit<unknown, unknown>): Option.Option<PathTraversalError> => {
  if (!Exit.isFailure(exit)) return Option.none()
  const defect = Cause.findDefect(exit.cause)
  return Result.isSuccess(defect) && defect.success instanceof PathTraversalError ? Option.some(defect.success) : Option.none()
}
