/**
 * What `json.test.ts` and `json.slow.test.ts` share: read_json and query_json in a workspace of
 * JSON files (`doc.json` is `DOC`), with `outside.json` beside it and a link to it inside.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { dataTools } from "../../../../src/tools/ported/data/index.js"
import { workspaceOf } from "../../../helpers/workspaceOf.js"
import { runner, writeIn } from "./harness.js"

export const DOC = { name: "demo", "a/b": 1, "m~n": 2, items: [{ id: 1, tags: ["x"] }, { id: 2 }], "": "empty key", nested: { deep: null } }

/**
 * The test file's workspace (`workspaceOf`: call it at the file's top level) and `run`, the data
 * tools there.
 */
export const jsonWorkspace = () => {
  const dirs = workspaceOf("ported-json-", (ws, base) => {
    const write = writeIn(ws)
    write("doc.json", JSON.stringify(DOC))
    write("crlf.json", "{\r\n  \"a\": 1,\r\n  \"b\": [true, null]\r\n}\r\n")
    write("unicode.json", "\uFEFF{\"städte\": [\"Zürich\", \"東京\", \"😀\"]}")
    write("empty.json", "")
    write("bad.json", "{\n  \"a\": 1,\n  \"b\": x\n}\n")
    write("trailing.json", "[1, 2,]")
    write("bin.json", Buffer.from([0x7b, 0x00, 0x01, 0x7d]))
    write("deep.json", `${"[".repeat(300)}${"]".repeat(300)}`)
    write("big.json", JSON.stringify(Array.from({ length: 20_000 }, (_, i) => ({ i, text: "lorem ipsum dolor sit amet" }))))
    write("proto.json", "{\"__proto__\": {\"polluted\": true}, \"constructor\": 1}")
    Fs.mkdirSync(Path.join(ws, "dir.json"))
    writeIn(base)("outside.json", "{\"secret\": 1}")
    Fs.symlinkSync(Path.join(base, "outside.json"), Path.join(ws, "link-out.json"))
  })
  return { dirs, run: runner(dataTools, () => dirs.ws) }
}
