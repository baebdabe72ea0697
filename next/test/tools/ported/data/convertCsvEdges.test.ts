import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { convertCsvEdgesWorkspace } from "./convertCsvEdgesHarness.js"

const { convert } = convertCsvEdgesWorkspace()

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
