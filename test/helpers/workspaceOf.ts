/**
 * A test file's temp workspace, made in that file's own hooks.
 */
import { afterAll, beforeAll } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { makeTempDirSync } from "./tempDir.js"

/**
 * A temp directory made in `beforeAll` (its `ws` filled by `fill`) and removed in `afterAll`:
 * call it at a test file's top level. With `inner`, the workspace is `base/ws`, else `base`.
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
