/**
 * What `readCsvEdges.test.ts` and `readCsvEdges.slow.test.ts` share: read_csv through the
 * executor (a system for each call, or one for several), and files of 1 MiB lines; with
 * `readCsvEdges.columns.slow.test.ts`, also the workspace of small CSV files.
 */
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { ToolSystem, Workspace } from "../../../../src/index.js"
import { dataTools } from "../../../../src/tools/ported/data/index.js"
import { workspaceOf } from "../../../helpers/workspaceOf.js"
import { runner, writeIn } from "./harness.js"

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

export const PEOPLE_COLUMNS = "the columns are \"name\", \"age\", \"city\" (or give 1-based column numbers)"

/** A CSV of `n` columns c1..cn and one row v1..vn. */
const wide = (n: number) => {
  const cols = Array.from({ length: n }, (_, i) => i + 1)
  return `${cols.map((i) => `c${i}`).join(",")}\n${cols.map((i) => `v${i}`).join(",")}\n`
}

/**
 * The test file's workspace of small CSV files and one with a quote left open past the read limit
 * (`workspaceOf`: call it at the file's top level), and read_csv there (`readCsvIn`).
 */
export const readCsvEdgesWorkspace = () => {
  const dirs = workspaceOf("ported-csv-edges-", (ws) => {
    const write = writeIn(ws)
    write("people.csv", "name,age,city\nAlice,30,Paris\nBob,25,Rome\n")
    write("escapes.csv", "k,v\nback,\"a\\b\"\npipe,\"a|b\"\ncrlf,\"a\r\nb\"\ncr,\"a\rb\"\nlf,\"a\nb\"\nctl,\"a\u0001b\u007fc\td\"\n")
    write("cells.csv", `k,v\nx,${"y".repeat(200)}\nz,${"y".repeat(201)}\n`)
    write("single.tsv", "name\nAlice\n")
    write("single.csv", "name\nAlice\n")
    write("header-only.csv", "a,b\n")
    write("unclosed.csv", "a,b\n\"x,1\n")
    write("cases.csv", "Name,NAME,x\n1,2,3\n")
    write("w50.csv", wide(50))
    write("w51.csv", wide(51))
    write("long-names.csv", `${"n".repeat(70)},b\n1,2\n`)
    // a quote opened on the 2nd line and closed past the read limit
    writeMiBRows(ws, "open-quote.csv", 1, `"${"q".repeat(11 * MIB)}"\n`)
  }, false)
  return { dirs, ...readCsvIn(() => dirs.ws) }
}
