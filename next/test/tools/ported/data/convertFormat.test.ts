import { beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { formatOfPath, yamlNestingProblem } from "../../../../src/tools/ported/data/formats.js"
import { convertFormatWorkspace } from "./convertFormatHarness.js"
import { traversalOf, writeIn } from "./harness.js"

const { dirs, convert } = convertFormatWorkspace()
let ws: string
beforeAll(() => {
  ws = dirs.ws
})

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
