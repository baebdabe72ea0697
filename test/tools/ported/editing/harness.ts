/**
 * What the editing and managing tool tests share: a workspace with an `outside` sibling, one
 * `ToolSystem` over the file tools, a call through the executor, and byte-level checks.
 */
import { Cause, Effect, Exit, Option, Result } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { PathTraversalError, ToolSystem, Workspace } from "../../../../src/index.js"
import type { ExecuteOptions, ToolExecutionResult } from "../../../../src/index.js"
import { editingTools } from "../../../../src/tools/ported/editing/index.js"
import { managingTools } from "../../../../src/tools/ported/managing/index.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"

/** A temp base with `ws` (holding `src/` and `plans/`) and `outside` beside it. */
export const makeWorkspace = (prefix: string) => {
  const base = makeTempDirSync(prefix)
  const ws = Path.join(base, "ws")
  const outside = Path.join(base, "outside")
  Fs.mkdirSync(Path.join(ws, "src"), { recursive: true })
  Fs.mkdirSync(Path.join(ws, "plans"))
  Fs.mkdirSync(outside)
  return { base, ws, outside, remove: () => Fs.rmSync(base, { recursive: true, force: true }) }
}

/** One tool system over the editing and managing tools, rooted at `ws`. */
export const systemFor = (ws: string) =>
  ToolSystem.layerNode({ builtins: false, tools: [...editingTools, ...managingTools], workspace: Workspace.layerFixed(ws) })

/** Runs one call through the executor (confirmed unless told otherwise). */
export const call = (
  name: string,
  args: Record<string, unknown>,
  options: ExecuteOptions = { confirm: true }
): Effect.Effect<ToolExecutionResult, never, ToolSystem> =>
  Effect.flatMap(ToolSystem, (tools) => tools.execute(name, args, options))

/** The `PathTraversalError` a call died with, if it did. */
export const traversalOf = (exit: Exit.Exit<unknown, unknown>): Option.Option<PathTraversalError> => {
  if (Exit.isSuccess(exit)) return Option.none()
  const defect = Cause.findDefect(exit.cause)
  return Result.isSuccess(defect) && defect.success instanceof PathTraversalError ? Option.some(defect.success) : Option.none()
}

/** A file's bytes and inode: equal before and after means it was not touched (not even rewritten). */
export const fingerprint = (file: string) => {
  const stats = Fs.statSync(file)
  return { bytes: Fs.readFileSync(file).toString("hex"), ino: stats.ino, mode: stats.mode }
}

/** Every path below `dir`, relative to it, sorted. */
export const tree = (dir: string): ReadonlyArray<string> => Fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).sort()

/** The text of a file. */
export const text = (file: string): string => Fs.readFileSync(file, "utf8")
