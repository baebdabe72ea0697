/**
 * The tests of `convertCsvEdges.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet machine:
 * real processes, worker starts, large inputs), kept in the slow lane so that the fast lane's
 * tests stay well under its 1 s CPU bound even on a loaded machine.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { convertCsvEdgesWorkspace } from "./convertCsvEdgesHarness.js"

const MIXED = "CSV needs rows of one kind: all objects, all arrays or all plain values; this array mixes them"
const NOT_ROWS = "CSV needs a list of rows (an array of objects or of arrays); this document is"
const INSIDE = "convert the array inside it instead (read_json with a pointer shows it)"

const { convert } = convertCsvEdgesWorkspace()

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
