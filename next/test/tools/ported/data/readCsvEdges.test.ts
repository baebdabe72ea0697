import { beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { writeIn } from "./harness.js"
import { PEOPLE_COLUMNS, readCsvEdgesWorkspace } from "./readCsvEdgesHarness.js"

const { dirs, error, out } = readCsvEdgesWorkspace()
let ws: string
beforeAll(() => {
  ws = dirs.ws
})

describe("read_csv cells", () => {
  it.effect("a cell is one line: backslash doubled, pipe escaped, each line break \\n, control characters spaces", () =>
    Effect.gen(function*() {
      expect(yield* out({ filepath: "escapes.csv" })).toBe([
        "escapes.csv: delimiter \",\", header row detected, 2 columns, 6 rows",
        "| k | v |",
        "| --- | --- |",
        "| back | a\\\\b |",
        "| pipe | a\\|b |",
        "| crlf | a\\nb |",
        "| cr | a\\nb |",
        "| lf | a\\nb |",
        "| ctl | a b c d |"
      ].join("\n"))
    }))

  it.effect("a cell of exactly 200 characters is whole; 201 are cut to 200 and \"…\"", () =>
    Effect.gen(function*() {
      const table = (yield* out({ filepath: "cells.csv" })).split("\n")
      expect(table[3]).toBe(`| x | ${"y".repeat(200)} |`)
      expect(table[4]).toBe(`| z | ${"y".repeat(200)}… |`)
    }))
})

describe("read_csv delimiter by extension", () => {
  it.effect("a file without any delimiter: tab for .tsv, comma otherwise", () =>
    Effect.gen(function*() {
      expect(yield* out({ filepath: "single.tsv" })).toBe(
        "single.tsv: delimiter tab, header row detected, 1 columns, 1 rows\n| name |\n| --- |\n| Alice |"
      )
      expect(yield* out({ filepath: "single.csv" })).toBe(
        "single.csv: delimiter \",\", header row detected, 1 columns, 1 rows\n| name |\n| --- |\n| Alice |"
      )
    }))

  it.effect("a header row and no data rows", () =>
    Effect.gen(function*() {
      expect(yield* out({ filepath: "header-only.csv" })).toBe(
        "header-only.csv: delimiter \",\", header row detected, 2 columns, no data rows\n| a | b |\n| --- | --- |"
      )
    }))
})

describe("read_csv columns", () => {
  it.effect("an empty columns list shows the first columns, as when it is omitted", () =>
    Effect.gen(function*() {
      expect(yield* out({ filepath: "people.csv", columns: [] })).toBe(yield* out({ filepath: "people.csv" }))
      expect((yield* out({ filepath: "w51.csv", columns: [] })).split("\n")[0]).toBe(
        "w51.csv: delimiter \",\", header row detected, 51 columns (50 shown; pick others with columns), 1 rows"
      )
    }))

  it.effect("1-based numbers pick columns of a file with a header, up to the last one", () =>
    Effect.gen(function*() {
      expect(yield* out({ filepath: "people.csv", columns: ["2"] })).toBe(
        "people.csv: delimiter \",\", header row detected, 3 columns (1 shown), 2 rows\n| age |\n| --- |\n| 30 |\n| 25 |"
      )
      expect(yield* out({ filepath: "people.csv", columns: ["3", "1"] })).toContain("| city | name |\n| --- | --- |\n| Paris | Alice |")
      expect(yield* out({ filepath: "w51.csv", columns: ["12"] })).toContain("| c12 |\n| --- |\n| v12 |")
      expect(yield* error({ filepath: "people.csv", columns: ["4"] })).toBe(`no column "4"; ${PEOPLE_COLUMNS}`)
    }))

  it.effect("names ignoring case only when that finds one column; an exact name always wins", () =>
    Effect.gen(function*() {
      expect(yield* error({ filepath: "cases.csv", columns: ["name"] })).toBe(
        "no column \"name\"; the columns are \"Name\", \"NAME\", \"x\" (or give 1-based column numbers)"
      )
      expect(yield* out({ filepath: "cases.csv", columns: ["NAME", "X", "Name"] })).toContain("| NAME | x | Name |\n| --- | --- | --- |\n| 2 | 3 | 1 |")
    }))

  it.effect("the \"no column\" message lists at most 50 columns, and says when there are more; names cut at 60", () =>
    Effect.gen(function*() {
      const list = (n: number) => Array.from({ length: n }, (_, i) => `"c${i + 1}"`).join(", ")
      expect(yield* error({ filepath: "w50.csv", columns: ["nope"] })).toBe(
        `no column "nope"; the columns are ${list(50)} (or give 1-based column numbers)`
      )
      expect(yield* error({ filepath: "w51.csv", columns: ["nope"] })).toBe(
        `no column "nope"; the columns are ${list(50)}, ... (or give 1-based column numbers)`
      )
      expect(yield* error({ filepath: "long-names.csv", columns: ["m".repeat(70)] })).toBe(
        `no column "${"m".repeat(60)}"; the columns are "${"n".repeat(60)}", "b" (or give 1-based column numbers)`
      )
    }))
})

describe("read_csv output size", () => {
  it.effect("rows stop once the table is over 256 KiB characters, and the answer is cut after a whole line", () =>
    Effect.gen(function*() {
      // header line: 200 + 200 + 134 + 10 = 544 characters; each row line 200 + 200 + 189 + 10 = 599, 600 with its
      // newline. Before each row the size so far (544 + 600 per row) is checked against 262144: after 436 rows it is
      // exactly 262144, not over, so a 437th row comes, then no more.
      const header = ["A".repeat(200), "B".repeat(200), "C".repeat(134)].join(",")
      const row = ["x".repeat(200), "y".repeat(200), "z".repeat(189)].join(",")
      writeIn(ws)("big.csv", `${header}\n${Array.from({ length: 1000 }, () => row).join("\n")}\n`)
      const text = yield* out({ filepath: "big.csv", limit: 1000 })
      const summary = "big.csv: delimiter \",\", header row detected, 3 columns, 1000 rows"
      // summary 65 + 1, header 544 + 1, separator 19 + 1, 437 rows of 600 less the last newline
      const total = 66 + 545 + 20 + 437 * 600 - 1
      expect(total).toBe(262830)
      // the first 262144 characters end inside row 436: the answer ends after row 435's line
      const kept = 66 + 545 + 19 + 435 * 600
      const lines = text.split("\n")
      expect(lines[0]).toBe(summary)
      expect(lines.length).toBe(3 + 435 + 1)
      expect(lines[3 + 434]).toBe(`| ${"x".repeat(200)} | ${"y".repeat(200)} | ${"z".repeat(189)} |`)
      expect(lines[3 + 435]).toBe(`... (cut after ${kept} of ${total} characters; lower limit or pick fewer columns)`)
    }))
})
