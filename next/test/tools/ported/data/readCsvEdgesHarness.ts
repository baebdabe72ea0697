/**
 * What `readCsvEdges.test.ts` and `readCsvEdges.slow.test.ts` share: read_csv through the
 * executor (a system for each call, or one for several), and files of 1 MiB lines.
 */
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { ToolSystem, Workspace } from "../../../../src/index.js"
import { dataTools } from "../../../../src/tools/ported/data/index.js"
import { runner } from "./harness.js"

export const MIB = 1024 * 1024

/** read_csv in the workspace `root()`: the result, its output as text, its error. */
export const readCsvIn = (root: () => string) => {
  const run = runner(dataTools, root)
  return {
    run,
    out: (args: Record<string, unknown>) => Effect.map(run("read_csv", args), (r) => String(r.output)),
    error: (args: Record<string, unknown>) => Effect.map(run("read_csv", args), (r) => r.error)
  }
}

/** A tool system with the data tools over the workspace `root`, for calls that share one (`errorHere`). */
export const dataSystem = (root: string) =>
  ToolSystem.layerNode({ builtins: false, tools: dataTools, workspace: Workspace.layerFixed(root) })

/** read_csv's error, in the tool system of the context (`dataSystem`). */
export const errorHere = (args: Record<string, unknown>) =>
  Effect.map(Effect.flatMap(ToolSystem, (system) => system.execute("read_csv", args)), (r) => r.error)

/** Writes `root/name`: the header "col", then `rows` rows of `body` (one 1 MiB line each, newline included). */
export const writeMiBRows = (root: string, name: string, rows: number, body: string) => {
  const fd = Fs.openSync(Path.join(root, name), "w")
  Fs.writeSync(fd, "col\n")
  for (let i = 0; i < rows; i++) Fs.writeSync(fd, body)
  Fs.closeSync(fd)
}
