import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import { DATA_FILE_MAX_BYTES } from "../../../../src/tools/ported/data/files.js"
import { dataTools } from "../../../../src/tools/ported/data/index.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"
import { runner, writeIn } from "./harness.js"

let ws: string
const run = runner(dataTools, () => ws)

beforeAll(() => {
  ws = makeTempDirSync("ported-data-messages-")
  const write = writeIn(ws)
  write("lines.json", JSON.stringify(Array.from({ length: 30_000 }, () => "xxxxxxxxxx")))
  write("over.json", `[${" ".repeat(DATA_FILE_MAX_BYTES)}]`)
  write("bad.yaml", "a: [1, 2\nb: c\n")
})

afterAll(() => {
  Fs.rmSync(ws, { recursive: true, force: true })
})

describe("read_json and query_json messages", () => {
  it.effect("a long answer is cut after a whole line", () =>
    Effect.gen(function*() {
      const full = JSON.stringify(Array.from({ length: 30_000 }, () => "xxxxxxxxxx"), null, 2)
      // "[\n", then lines of 15 characters and a newline: the last newline within 262144 characters is at 262129
      const cut = `${full.slice(0, 262_129)}\n... (cut after 262129 of 480002 characters; ` +
        "pass a pointer to select a smaller part, e.g. \"/items/0\")"
      expect((yield* run("read_json", { filepath: "lines.json" })).output).toBe(cut)
      expect((yield* run("query_json", { json: full, pointer: "" })).output).toBe(cut)
    }))

  it.effect("a file over 10 MiB: the error says to read it in parts", () =>
    Effect.gen(function*() {
      const r = yield* run("read_json", { filepath: "over.json" })
      expect(r.errorCode).toBe("TOOL_ERROR")
      expect(r.error).toMatch(/^"over\.json" is .*10485760-byte limit.*; use read_lines to read it in parts$/)
    }))

  it.effect("the place where a pointer stops is written with \"~\" and \"/\" escaped again", () =>
    Effect.gen(function*() {
      const json = JSON.stringify({ "a/b": { "m~n": {} } })
      expect((yield* run("query_json", { json, pointer: "/a~1b/m~0n/x" })).error).toBe(
        "no value at \"/a~1b/m~0n/x\": the object at \"/a~1b/m~0n\" is empty"
      )
    }))
})

describe("hash_file and YAML messages", () => {
  it.effect("a file that cannot be read is a plain tool error, without details", () =>
    Effect.gen(function*() {
      const r = yield* run("hash_file", { filepath: "nope" })
      expect(r.errorCode).toBe("TOOL_ERROR")
      expect(r.error).toBe("\"nope\" does not exist")
      expect("details" in r).toBe(false)
    }))

  it.effect("a YAML syntax error ends with its pointer line, without trailing white space", () =>
    Effect.gen(function*() {
      const r = yield* run("convert_format", { filepath: "bad.yaml", to: "json" })
      expect(r.error).toBe(
        "\"bad.yaml\": not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ] " +
          "at line 2, column 1:\n\na: [1, 2\nb: c\n^"
      )
    }))
})
