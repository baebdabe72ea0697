import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import { dataTools } from "../../../../src/tools/ported/data/index.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"
import { runner, writeIn } from "./harness.js"

let ws: string
const run = runner(dataTools, () => ws)

/** `n` keys k<from>..k<from+n-1>, each with the value 1. */
const keys = (from: number, n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${from + i}`, 1]))

beforeAll(() => {
  ws = makeTempDirSync("ported-convert-edges-")
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
})

afterAll(() => {
  Fs.rmSync(ws, { recursive: true, force: true })
})

const convert = (filepath: string, to: string) => run("convert_format", { filepath, to })

describe("convert_format: the source format without an extension", () => {
  it.effect("JSON only when the text starts (after white space) with a bracket, in its first 1024 characters", () =>
    Effect.gen(function*() {
      expect((yield* convert("note", "json")).error).toBe(
        "cannot tell the format of \"note\" from its name: use a .json, .yaml, .yml, .csv or .tsv file"
      )
      expect((yield* convert("spaced", "yaml")).output).toBe("- 1\n- 2\n")
      expect((yield* convert("late", "yaml")).error).toBe(
        "cannot tell the format of \"late\" from its name: use a .json, .yaml, .yml, .csv or .tsv file"
      )
    }))
})

describe("convert_format: a long answer", () => {
  it.effect("is cut after a whole line, with a note on what to do", () =>
    Effect.gen(function*() {
      const full = JSON.stringify(Array.from({ length: 30_000 }, () => "xxxxxxxxxx"), null, 2)
      expect(full.length).toBe(480_002)
      // "[\n", then lines of 15 characters and a newline: the last newline within 262144 characters is at 262129
      const r = yield* convert("lines.json", "json")
      expect(r.output).toBe(
        `${full.slice(0, 262_129)}\n... (cut after 262129 of 480002 characters; ` +
          "the whole conversion is too long for one answer; convert a smaller file)"
      )
    }))
})

describe("convert_format: reading CSV", () => {
  it.effect("without a delimiter in the sampled lines: tab for .tsv, comma for .csv", () =>
    Effect.gen(function*() {
      const tsv: unknown = JSON.parse(String((yield* convert("later.tsv", "json")).output))
      expect(tsv).toEqual([...Array.from({ length: 10 }, () => ({ name: "v", 2: "" })), { name: "x", 2: "y" }])
      const csv: unknown = JSON.parse(String((yield* convert("later.csv", "json")).output))
      expect(csv).toEqual([...Array.from({ length: 10 }, () => ({ name: "v", 2: "" })), { name: "x", 2: "y" }])
    }))

  it.effect("a short row gets empty text for its missing fields", () =>
    Effect.gen(function*() {
      expect(JSON.parse(String((yield* convert("ragged.csv", "json")).output))).toEqual([{ a: "1", b: "" }])
    }))
})

describe("convert_format: writing CSV", () => {
  it.effect("arrays become rows as they are, plain values one-cell rows; null is empty, nested data JSON", () =>
    Effect.gen(function*() {
      expect((yield* convert("arrays.json", "csv")).output).toBe("1,a\n2,\ntrue,\"{\"\"k\"\":1}\"\n")
      expect((yield* convert("scalars.json", "csv")).output).toBe("1\na\n\ntrue\n")
      expect((yield* convert("nulls.json", "csv")).output).toBe("a,b\n,1\n,[]\n")
    }))

  it.effect("numbers are written as they are, infinities too", () =>
    Effect.gen(function*() {
      expect((yield* convert("inf.yaml", "csv")).output).toBe("a,b,c\nInfinity,-Infinity,1.5\n")
    }))
})
