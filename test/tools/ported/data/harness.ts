/**
 * Running ported data, text and system tools through the real executor, in a temp workspace.
 */
import { afterAll, beforeAll } from "@effect/vitest"
import { Cause, Effect, Exit, Option } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { PathTraversalError, ToolSystem, Workspace } from "../../../../src/index.js"
import type { Tool } from "../../../../src/tools/define.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"

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
export const traversalOf = (exit: Exit.Exit<unknown, unknown>): Option.Option<PathTraversalError> =>
  Exit.isFailure(exit)
    ? Option.filter(Cause.dieOption(exit.cause), (d): d is PathTraversalError => d instanceof PathTraversalError)
    : Option.none()

/**
 * A test file's workspace: a temp dir `base` with the workspace `ws` in it (`ws` is `base` itself
 * with `inner` false), filled by `fill(ws, base)` before the file's tests and removed after them.
 * Call it at a test file's top level, so that its hooks are that file's (a hook at a shared
 * module's top level would run once for all the files of a module graph); `ws` and `base` are
 * set from the file's first `beforeAll` on.
 */
export const workspaceOf = (prefix: string, fill: (ws: string, base: string) => void, inner = true) => {
  const dirs = { base: "", ws: "" }
  beforeAll(() => {
    dirs.base = makeTempDirSync(prefix)
    dirs.ws = inner ? Path.join(dirs.base, "ws") : dirs.base
    Fs.mkdirSync(dirs.ws, { recursive: true })
    fill(dirs.ws, dirs.base)
  })
  afterAll(() => {
    Fs.rmSync(dirs.base, { recursive: true, force: true })
  })
  return dirs
}
