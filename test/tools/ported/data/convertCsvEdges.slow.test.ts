/**
 * The tests of `convertCsvEdges.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet machine:
 * real processes, worker starts, large inputs), kept in the slow lane so that the fast lane's
 * tests stay well under its 1 s CPU bound even on a loaded machine.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import { dataTools } from "../../../../src/tools/ported/data/index.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"
import { runner, writeIn } from "./harness.js"

let ws: string
const run = runner(dataTools, () => ws)

const MIXED = "CSV needs rows of one kind: all objects, all arrays or all plain values; this array mixes them"
const NOT_ROWS = "CSV needs a list of rows (an array of objects or of arrays); this document is"
const INSIDE = "convert the array inside it instead (read_json with a pointer shows it)"

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

describe("convert_format: writing CSV", () => {

  it.effect("rows of different kinds are refused", () =>
    Effect.gen(function*() {
      for (const file of ["mixed1.json", "mixed2.json", "mixed3.json", "mixed4.json", "mixed5.json"]) {
        const r = yield* convert(file, "csv")
        expect(r.errorCode).toBe("TOOL_ERROR")
        expect(r.error).toBe(`cannot convert "${file}" to csv: ${MIXED}`)
      }
    }))

  it.effect("a document that is not a list says what it is, with \"a\" or \"an\", and at most 10 keys", () =>
    Effect.gen(function*() {
      const kinds: ReadonlyArray<readonly [string, string]> = [
        ["string.json", "a string"],
        ["number.json", "a number"],
        ["null.json", "a null"],
        ["boolean.json", "a boolean"]
      ]
      for (const [file, kind] of kinds) {
        expect((yield* convert(file, "csv")).error).toBe(`cannot convert "${file}" to csv: ${NOT_ROWS} ${kind}: ${INSIDE}`)
      }
      expect((yield* convert("keys.json", "csv")).error).toBe(
        `cannot convert "keys.json" to csv: ${NOT_ROWS} an object (keys: k0, k1, k2, k3, k4, k5, k6, k7, k8, k9): ${INSIDE}`
      )
    }))

  it.effect("at most 1000 distinct keys over all the rows", () =>
    Effect.gen(function*() {
      const header = Array.from({ length: 1000 }, (_, i) => `k${i}`).join(",")
      expect((yield* convert("k1000.json", "csv")).output).toBe(`${header}\n${Array.from({ length: 1000 }, () => "1").join(",")}\n`)
      // 600 and 800 keys, 1000 distinct: the second row has no k0..k199
      const second = [...Array.from({ length: 200 }, () => ""), ...Array.from({ length: 800 }, () => "1")].join(",")
      expect((yield* convert("k1000b.json", "csv")).output).toBe(
        `${header}\n${Array.from({ length: 600 }, () => "1").join(",")}${",".repeat(400)}\n${second}\n`
      )
      expect((yield* convert("k1001.json", "csv")).error).toBe(
        "cannot convert \"k1001.json\" to csv: the rows have more than 1000 distinct keys"
      )
    }))
})
