/**
 * What `csv.test.ts` and `csv.slow.test.ts` share: read_csv in a workspace of CSV and TSV files
 * (quoted, ragged, empty, binary, wide), with `outside.csv` beside it.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { dataTools } from "../../../../src/tools/ported/data/index.js"
import { workspaceOf } from "../../../helpers/workspaceOf.js"
import { runner, writeIn } from "./harness.js"

/**
 * The test file's workspace (`workspaceOf`: call it at the file's top level) and `run`, the data
 * tools there.
 */
export const csvWorkspace = () => {
  const dirs = workspaceOf("ported-csv-", (ws, base) => {
    const write = writeIn(ws)
    write("people.csv", "name,age,city\nAlice,30,Paris\nBob,25,\"New York, NY\"\n\"Carol \"\"CJ\"\" Jones\",41,\"Multi\nline\"\n")
    write("crlf.csv", "\uFEFFid;label\r\n1;one\r\n2;\"two; or three\"\r\n")
    write("numbers.csv", "1,2,3\n4,5,6\n")
    write("data.tsv", "a\tb\nx|y\tz\n")
    write("pipes.csv", "k|v\n\"a|b\"|c\n")
    write("ragged.csv", "a,b,c\n1,2\n3,4,5,6\n")
    write("unicode.csv", "ville,pays\nZürich,Schweiz\n東京,日本\n")
    write("empty.csv", "")
    write("blank.csv", "\n\n  \n")
    write("unclosed.csv", "a,b\n\"x,1\n")
    write("bin.csv", Buffer.from([0x61, 0x2c, 0x00, 0x62]))
    write("many.csv", `n,sq\n${Array.from({ length: 2000 }, (_, i) => `${i},${i * i}`).join("\n")}\n`)
    write("wide-cell.csv", `k,v\nx,${"y".repeat(500)}\n`)
    Fs.mkdirSync(Path.join(ws, "dir.csv"))
    writeIn(base)("outside.csv", "a\n1\n")
  })
  return { dirs, run: runner(dataTools, () => dirs.ws) }
}
