/**
 * What `convertCsvEdges.test.ts` and `convertCsvEdges.slow.test.ts` share: convert_format in a
 * workspace of files without an extension, rows of mixed kinds, plain values and many keys.
 */
import { dataTools } from "../../../../src/tools/ported/data/index.js"
import { workspaceOf } from "../../../helpers/workspaceOf.js"
import { runner, writeIn } from "./harness.js"

/** `n` keys k<from>..k<from+n-1>, each with the value 1. */
const keys = (from: number, n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${from + i}`, 1]))

/**
 * The test file's workspace (`workspaceOf`: call it at the file's top level) and
 * `convert(filepath, to)`, convert_format there.
 */
export const convertCsvEdgesWorkspace = () => {
  const dirs = workspaceOf("ported-convert-edges-", (ws) => {
    const write = writeIn(ws)
    write("note", "see [1]")
    write("spaced", "\n  [1, 2]")
    write("late", `${" ".repeat(2000)}[1]`)
    write("lines.json", JSON.stringify(Array.from({ length: 30_000 }, () => "xxxxxxxxxx")))
    // no delimiter in the first 10 lines: the extension decides, and the 12th line has one
    write("later.tsv", `name\n${"v\n".repeat(10)}x\ty\n`)
    write("later.csv", `name\n${"v\n".repeat(10)}x,y\n`)
    write("ragged.csv", "a,b\n1\n")
    write("arrays.json", JSON.stringify([[1, "a"], [2, null], [true, { k: 1 }]]))
    write("scalars.json", JSON.stringify([1, "a", null, true]))
    write("nulls.json", JSON.stringify([{ a: null, b: 1 }, { b: [] }]))
    write("mixed1.json", JSON.stringify([{ a: 1 }, [1]]))
    write("mixed2.json", JSON.stringify([{ a: 1 }, 2]))
    write("mixed3.json", JSON.stringify([[1], 2]))
    write("mixed4.json", JSON.stringify([{ a: 1 }, null]))
    write("mixed5.json", JSON.stringify([[1], null, { a: 1 }]))
    write("string.json", "\"hello\"")
    write("number.json", "42")
    write("null.json", "null")
    write("boolean.json", "true")
    write("keys.json", JSON.stringify(keys(0, 12)))
    write("k1000.json", JSON.stringify([keys(0, 1000)]))
    write("k1001.json", JSON.stringify([keys(0, 501), keys(501, 500)]))
    write("k1000b.json", JSON.stringify([keys(0, 600), keys(200, 800)]))
    write("inf.yaml", "- {a: .inf, b: -.inf, c: 1.5}\n")
  }, false)
  const run = runner(dataTools, () => dirs.ws)
  return { convert: (filepath: string, to: string) => run("convert_format", { filepath, to }) }
}
