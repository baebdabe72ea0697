import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { formatOfPath, yamlNestingProblem } from "../../../../src/tools/ported/data/formats.js"
import { dataTools } from "../../../../src/tools/ported/data/index.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"
import { runner, traversalOf, writeIn } from "./harness.js"

let base: string
let ws: string
const run = runner(dataTools, () => ws)

const PEOPLE = [{ name: "Alice", age: 30, tags: ["a", "b"] }, { name: "Bob, Jr.", age: null, note: "said \"hi\"" }]

beforeAll(() => {
  base = makeTempDirSync("ported-convert-")
  ws = Path.join(base, "ws")
  Fs.mkdirSync(ws)
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

afterAll(() => {
  Fs.rmSync(base, { recursive: true, force: true })
})

const convert = (filepath: string, to: string) => run("convert_format", { filepath, to })

describe("convert_format", () => {

  it.effect("YAML to JSON, unicode kept; several documents become a list", () =>
    Effect.gen(function*() {
      expect(JSON.parse(String((yield* convert("config.yaml", "json")).output))).toEqual({
        server: { host: "localhost", ports: [80, 443] },
        name: "Zürich 東京"
      })
      expect(JSON.parse(String((yield* convert("multi.yml", "json")).output))).toEqual([{ a: 1 }, { b: 2 }])
    }))

  it.effect("CSV needs rows; the error says what the document is", () =>
    Effect.gen(function*() {
      expect((yield* convert("object.json", "csv")).error).toBe(
        "cannot convert \"object.json\" to csv: CSV needs a list of rows (an array of objects or of arrays); this document " +
          "is an object (keys: a, b): convert the array inside it instead (read_json with a pointer shows it)"
      )
    }))

  it.effect("the source format comes from the extension, or from a leading bracket", () =>
    Effect.gen(function*() {
      expect((yield* convert("notes.txt", "json")).error).toBe(
        "cannot tell the format of \"notes.txt\" from its name: use a .json, .yaml, .yml, .csv or .tsv file"
      )
      expect((yield* convert("raw", "yaml")).output).toBe("- 1\n- 2\n")
      expect((yield* convert("people.json", "xml")).errorCode).toBe("INVALID_ARGUMENTS")
    }))

  it("the YAML nesting check counts indentation and brackets, linearly", () => {
    expect(yamlNestingProblem("a:\n  b:\n    c: [1, {d: 2}]\n")).toBeUndefined()
    expect(yamlNestingProblem(`${" ".repeat(600)}x`)).toContain("512 columns")
    expect(yamlNestingProblem("[".repeat(257))).toContain("256 deep")
    expect(yamlNestingProblem("[]".repeat(10_000))).toBeUndefined()
  })

  it("the YAML nesting check's bounds exactly: 512 columns of indentation and indicators, 256 brackets, per line", () => {
    expect(yamlNestingProblem(`${" ".repeat(512)}x`)).toBeUndefined()
    expect(yamlNestingProblem(`${" ".repeat(513)}x`)).toBe("a line is indented or nested more than 512 columns deep")
    // "- ", "? ", ": " and tabs count as indentation; a new line starts again from zero
    expect(yamlNestingProblem(`${"- ".repeat(256)}\t`)).toBe("a line is indented or nested more than 512 columns deep")
    expect(yamlNestingProblem(`${"? ".repeat(128)}${": ".repeat(128)}x`)).toBeUndefined()
    expect(yamlNestingProblem(`${" ".repeat(400)}x\n${" ".repeat(400)}y`)).toBeUndefined()
    // indentation past the first other character is text
    expect(yamlNestingProblem(`x${" ".repeat(1000)}`)).toBeUndefined()
    expect(yamlNestingProblem("{".repeat(256))).toBeUndefined()
    expect(yamlNestingProblem("{".repeat(257))).toBe("brackets are nested more than 256 deep")
    expect(yamlNestingProblem(`${"[".repeat(256)}${"]".repeat(256)}[`)).toBeUndefined()
    // closing brackets never go below zero: the extra ones do not make room for more openings
    expect(yamlNestingProblem(`${"]".repeat(10)}${"[".repeat(257)}`)).toBe("brackets are nested more than 256 deep")
    expect(yamlNestingProblem(`${"}".repeat(10)}${"{".repeat(256)}`)).toBeUndefined()
  })

  it("formats by extension, in any case", () => {
    expect(["a.json", "b.YAML", "c.yml", "d.Csv", "e.tsv", "f.txt", "json", ".json"].map(formatOfPath)).toEqual([
      "json",
      "yaml",
      "yaml",
      "csv",
      "csv",
      undefined,
      undefined,
      undefined
    ])
  })

  it.effect("missing, directory, binary, too large, outside", () =>
    Effect.gen(function*() {
      expect((yield* convert("missing.json", "yaml")).error).toBe("\"missing.json\" does not exist")
      expect((yield* convert("dir.json", "yaml")).error).toBe("\"dir.json\" is a directory, not a file")
      expect((yield* convert("bin.json", "yaml")).error).toContain("is a binary file")
      writeIn(ws)("large.json", `[${"1,".repeat(600_000)}1]`)
      expect((yield* convert("large.json", "yaml")).error).toMatch(/over the 1048576-byte limit .*convert_format reads files up to 1 MiB/)
      const exit = yield* Effect.exit(convert("../outside.json", "yaml"))
      expect(Option.isSome(traversalOf(exit))).toBe(true)
    }))
})
