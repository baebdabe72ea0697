/**
 * What the reading tool tests share: a workspace with an `outside` sibling, a call through the
 * executor over the reading tools, and the `PathTraversalError` a call died with.
 */
import { Cause, Effect, Exit, Option } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { PathTraversalError, ToolSystem, Workspace } from "../../../../src/index.js"
import type { ToolExecutionResult } from "../../../../src/index.js"
import { readingTools } from "../../../../src/tools/ported/reading/index.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"

/** A temp base with `ws` and `outside` beside it; `write` puts a file in `ws`. */
export const makeWorkspace = (prefix: string) => {
  const base = makeTempDirSync(prefix)
  const ws = Path.join(base, "ws")
  const outside = Path.join(base, "outside")
  Fs.mkdirSync(ws)
  Fs.mkdirSync(outside)
  const write = (rel: string, content: string | Uint8Array) => {
    const file = Path.join(ws, rel)
    Fs.mkdirSync(Path.dirname(file), { recursive: true })
    Fs.writeFileSync(file, content)
  }
  return { base, ws, outside, write, remove: () => Fs.rmSync(base, { recursive: true, force: true }) }
}

/** Runs one call of a reading tool through the executor, in a workspace rooted at `ws`. */
export const call = (ws: string, name: string, args: Record<string, unknown>) =>
  Effect.flatMap(ToolSystem, (tools) => tools.execute(name, args)).pipe(
    Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [...readingTools], workspace: Workspace.layerFixed(ws) }))
  )

/** The `PathTraversalError` a call died with, if it did. */
export const traversalOf = (exit: Exit.Exit<unknown, unknown>): Option.Option<PathTraversalError> =>
  Exit.isFailure(exit)
    ? Option.filter(Cause.dieOption(exit.cause), (d): d is PathTraversalError => d instanceof PathTraversalError)
    : Option.none()

/** The output of a successful call (fails the test with the error otherwise). */
export const outputOf = (result: ToolExecutionResult): string => {
  if (!result.success) throw new Error(`expected success, got ${result.errorCode}: ${result.error}`)
  return String(result.output)
}
