/**
 * The tests of `json.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet machine:
 * real processes, worker starts, large inputs), kept in the slow lane so that the fast lane's
 * tests stay well under its 1 s CPU bound even on a loaded machine.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { dataTools } from "../../../../src/tools/ported/data/index.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"
import { runner, writeIn } from "./harness.js"

let base: string
let ws: string
const run = runner(dataTools, () => ws)

const DOC = { name: "demo", "a/b": 1, "m~n": 2, items: [{ id: 1, tags: ["x"] }, { id: 2 }], "": "empty key", nested: { deep: null } }

beforeAll(() => {
  base = makeTempDirSync("ported-json-")
  ws = Path.join(base, "ws")
  Fs.mkdirSync(ws)
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

afterAll(() => {
  Fs.rmSync(base, { recursive: true, force: true })
})

describe("query_json", () => {

  it.effect("hostile input: deep nesting is refused before any recursion; a huge string is linear", () =>
    Effect.gen(function*() {
      const deep = "[".repeat(1_000_000)
      const r = yield* run("query_json", { json: deep, pointer: "" })
      expect(r.error).toBe("the JSON is nested deeper than 256 levels")
      const long = JSON.stringify({ text: "x".repeat(8 * 1024 * 1024) })
      const started = performance.now()
      const big = yield* run("query_json", { json: long, pointer: "/text" })
      expect(String(big.output)).toContain("... (cut after")
      expect(performance.now() - started).toBeLessThan(5000)
      const ctrl = yield* run("query_json", { json: "{\"a\":\"\u0001\"}", pointer: "" })
      expect(ctrl.error).toContain("line 1, column 7: expected a closing quote (a control character must be escaped), found U+0001")
    }))
})
