/**
 * What `convertFormat.test.ts` and `convertFormat.yaml.slow.test.ts` share: convert_format in a
 * workspace of JSON, YAML and CSV files (good, bad and hostile), with `outside.json` beside it.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { dataTools } from "../../../../src/tools/ported/data/index.js"
import { workspaceOf } from "../../../helpers/workspaceOf.js"
import { runner, writeIn } from "./harness.js"

export const PEOPLE = [{ name: "Alice", age: 30, tags: ["a", "b"] }, { name: "Bob, Jr.", age: null, note: "said \"hi\"" }]

/**
 * The test file's workspace (`workspaceOf`: call it at the file's top level) and
 * `convert(filepath, to)`, convert_format there.
 */
export const convertFormatWorkspace = () => {
  const dirs = workspaceOf("ported-convert-", (ws, base) => {
    const write = writeIn(ws)
    write("people.json", JSON.stringify(PEOPLE))
    write("config.yaml", "server:\n  host: localhost\n  ports: [80, 443]\nname: Zürich 東京\n")
    write("multi.yml", "a: 1\n---\nb: 2\n")
    write("table.csv", "id,label\r\n1,\"one, uno\"\r\n2,two\r\n")
    write("nohead.csv", "1,2\n3,4\n")
    write("object.json", "{\"a\": 1, \"b\": 2}")
    write("bad.yaml", "a: [1, 2\nb: c\n")
    write("dup.yaml", "a: 1\na: 2\n")
    write("bad.json", "{\"a\": }")
    write("notes.txt", "hello")
    write("raw", "[1, 2]")
    write("empty.json", "")
    write("deep-block.yaml", `${"- ".repeat(100_000)}x\n`)
    write("deep-flow.yaml", `${"[".repeat(100_000)}${"]".repeat(100_000)}\n`)
    write("quoted-flow.yaml", `a: it's\n${"[".repeat(100_000)}\n`)
    write("laughs.yaml", [
      "a: &a [x, x, x, x, x, x, x, x, x, x]",
      "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]",
      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]",
      "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]",
      "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]",
      "f: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]"
    ].join("\n"))
    write("self.yaml", "a: &x\n  b: *x\n")
    write("proto.yaml", "__proto__:\n  polluted: true\n")
    write("bin.json", Buffer.from([0x5b, 0x00, 0x5d]))
    Fs.mkdirSync(Path.join(ws, "dir.json"))
    writeIn(base)("outside.json", "[]")
  })
  const run = runner(dataTools, () => dirs.ws)
  return { dirs, convert: (filepath: string, to: string) => run("convert_format", { filepath, to }) }
}
