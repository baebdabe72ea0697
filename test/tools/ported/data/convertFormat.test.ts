import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as YAML from "yaml"
import { convertInWorker } from "../../../../src/tools/ported/data/convertWorker.js"
import { convertJob, formatOfPath, yamlNestingProblem } from "../../../../src/tools/ported/data/formats.js"
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
  it.effect("JSON to YAML and CSV (and JSON again)", () =>
    Effect.gen(function*() {
      const yaml = yield* convert("people.json", "yaml")
      expect(YAML.parse(String(yaml.output))).toEqual(PEOPLE)
      expect((yield* convert("people.json", "csv")).output).toBe(
        [
          "name,age,tags,note",
          "Alice,30,\"[\"\"a\"\",\"\"b\"\"]\",",
          "\"Bob, Jr.\",,,\"said \"\"hi\"\"\"",
          ""
        ].join("\n")
      )
      expect((yield* convert("people.json", "json")).output).toBe(JSON.stringify(PEOPLE, null, 2))
    }))

  it.effect("YAML to JSON, unicode kept; several documents become a list", () =>
    Effect.gen(function*() {
      expect(JSON.parse(String((yield* convert("config.yaml", "json")).output))).toEqual({
        server: { host: "localhost", ports: [80, 443] },
        name: "Zürich 東京"
      })
      expect(JSON.parse(String((yield* convert("multi.yml", "json")).output))).toEqual([{ a: 1 }, { b: 2 }])
    }))

  it.effect("CSV (CRLF, quoted) to JSON objects by header, or arrays without one; and to YAML", () =>
    Effect.gen(function*() {
      expect(JSON.parse(String((yield* convert("table.csv", "json")).output))).toEqual([
        { id: "1", label: "one, uno" },
        { id: "2", label: "two" }
      ])
      expect(JSON.parse(String((yield* convert("nohead.csv", "json")).output))).toEqual([["1", "2"], ["3", "4"]])
      expect(YAML.parse(String((yield* convert("table.csv", "yaml")).output))).toEqual([
        { id: "1", label: "one, uno" },
        { id: "2", label: "two" }
      ])
    }))

  it.effect("CSV needs rows; the error says what the document is", () =>
    Effect.gen(function*() {
      expect((yield* convert("object.json", "csv")).error).toBe(
        "cannot convert \"object.json\" to csv: CSV needs a list of rows (an array of objects or of arrays); this document " +
          "is an object (keys: a, b): convert the array inside it instead (read_json with a pointer shows it)"
      )
    }))

  it.effect("syntax errors name the place; a duplicate YAML key keeps its last value", () =>
    Effect.gen(function*() {
      expect((yield* convert("bad.json", "yaml")).error).toContain("\"bad.json\": not valid JSON: line 1, column 7")
      const yaml = yield* convert("bad.yaml", "json")
      expect(yaml.errorCode).toBe("TOOL_ERROR")
      expect(yaml.error).toMatch(/^"bad\.yaml": not valid YAML: .*line \d+, column \d+/s)
      // duplicate keys: the last wins, as with JSON.parse (the duplicate check is quadratic in the yaml package)
      expect(JSON.parse(String((yield* convert("dup.yaml", "json")).output))).toEqual({ a: 2 })
      expect((yield* convert("empty.json", "yaml")).error).toContain("found the end of the text")
    }))

  it.effect("the source format comes from the extension, or from a leading bracket", () =>
    Effect.gen(function*() {
      expect((yield* convert("notes.txt", "json")).error).toBe(
        "cannot tell the format of \"notes.txt\" from its name: use a .json, .yaml, .yml, .csv or .tsv file"
      )
      expect((yield* convert("raw", "yaml")).output).toBe("- 1\n- 2\n")
      expect((yield* convert("people.json", "xml")).errorCode).toBe("INVALID_ARGUMENTS")
    }))

  it.effect("hostile YAML: deep nesting refused before parsing, alias bombs refused, __proto__ is data", () =>
    Effect.gen(function*() {
      const started = performance.now()
      expect((yield* convert("deep-block.yaml", "json")).error).toBe(
        "\"deep-block.yaml\": the YAML is nested too deeply: a line is indented or nested more than 512 columns deep"
      )
      expect((yield* convert("deep-flow.yaml", "json")).error).toBe(
        "\"deep-flow.yaml\": the YAML is nested too deeply: brackets are nested more than 256 deep"
      )
      expect((yield* convert("quoted-flow.yaml", "json")).error).toContain("brackets are nested more than 256 deep")
      expect(performance.now() - started).toBeLessThan(3000)
      const laughs = yield* convert("laughs.yaml", "json")
      expect(laughs.errorCode).toBe("TOOL_ERROR")
      expect(laughs.error).toBe("\"laughs.yaml\": not valid YAML: Excessive alias count indicates a resource exhaustion attack")
      expect((yield* convert("self.yaml", "json")).error).toBe(
        "\"self.yaml\": the document is nested more than 256 deep (or an alias refers to its own anchor)"
      )
      expect(JSON.parse(String((yield* convert("proto.yaml", "json")).output))).toEqual(JSON.parse("{\"__proto__\":{\"polluted\":true}}"))
      expect(({} as Record<string, unknown>).polluted).toBeUndefined()
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

  // live clock: real time is the point, the host's 10 ms timer firing while the worker parses (the
  // deadline alone is driven on the TestClock in dataEdges.test.ts and scriptWorker.test.ts)
  it.live("the YAML parser runs in the conversion's worker with a deadline: a quadratic input is stopped, the host keeps running", () =>
    Effect.gen(function*() {
      // anchors and aliases: quadratic in the yaml package (900 KB took 106 s here)
      const anchors = Array.from({ length: 20_000 }, (_, i) => `a${i}: &x${i} v`).join("\n")
      const aliases = Array.from({ length: 20_000 }, (_, i) => `b${i}: *x${i % 1000}`).join("\n")
      let ticks = 0
      const timer = setInterval(() => ticks++, 10)
      const failed = yield* Effect.flip(convertInWorker(convertJob("yaml", "json", `${anchors}\n${aliases}`, ",", 100), "300 millis"))
      clearInterval(timer)
      expect(failed).toBe("the conversion did not finish within 300ms")
      expect(ticks).toBeGreaterThan(10)
      const json = JSON.stringify({ a: [1, 2], b: { c: "d" } }, null, 2)
      expect(yield* convertInWorker(convertJob("yaml", "json", "a: [1, 2]\nb: {c: d}\n", ",", 100))).toEqual({
        ok: true,
        head: json,
        length: json.length
      })
    }))

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
