import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { columnNames, delimiterName, guessDelimiter, hasHeader } from "../../../../src/tools/ported/data/csv.js"
import { csvWorkspace } from "./csvHarness.js"
import { traversalOf } from "./harness.js"

const { run } = csvWorkspace()

describe("read_csv", () => {
  it.effect("a header row, quoted fields with delimiters, doubled quotes and line breaks", () =>
    Effect.gen(function*() {
      const r = yield* run("read_csv", { filepath: "people.csv" })
      expect(r.success).toBe(true)
      expect(r.output).toBe([
        "people.csv: delimiter \",\", header row detected, 3 columns, 3 rows",
        "| name | age | city |",
        "| --- | --- | --- |",
        "| Alice | 30 | Paris |",
        "| Bob | 25 | New York, NY |",
        "| Carol \"CJ\" Jones | 41 | Multi\\nline |"
      ].join("\n"))
    }))

  it.effect("CRLF, a BOM, a semicolon delimiter; tabs for .tsv; pipes", () =>
    Effect.gen(function*() {
      expect((yield* run("read_csv", { filepath: "crlf.csv" })).output).toBe([
        "crlf.csv: delimiter \";\", header row detected, 2 columns, 2 rows",
        "| id | label |",
        "| --- | --- |",
        "| 1 | one |",
        "| 2 | two; or three |"
      ].join("\n"))
      const tsv = String((yield* run("read_csv", { filepath: "data.tsv" })).output)
      expect(tsv).toContain("delimiter tab")
      expect(tsv).toContain("| x\\|y | z |")
      expect(String((yield* run("read_csv", { filepath: "pipes.csv" })).output)).toContain("| a\\|b | c |")
    }))

  it.effect("no header when the first row has numbers; columns are then numbered", () =>
    Effect.gen(function*() {
      expect((yield* run("read_csv", { filepath: "numbers.csv" })).output).toBe([
        "numbers.csv: delimiter \",\", no header row (columns numbered from 1), 3 columns, 2 rows",
        "| 1 | 2 | 3 |",
        "| --- | --- | --- |",
        "| 1 | 2 | 3 |",
        "| 4 | 5 | 6 |"
      ].join("\n"))
      expect(String((yield* run("read_csv", { filepath: "numbers.csv", columns: ["3", "1"] })).output)).toContain("| 3 | 1 |\n| --- | --- |\n| 3 | 1 |\n| 6 | 4 |")
    }))

  it.effect("ragged rows are shown padded; unicode as it is", () =>
    Effect.gen(function*() {
      const ragged = String((yield* run("read_csv", { filepath: "ragged.csv" })).output)
      expect(ragged).toContain("4 columns")
      expect(ragged).toContain("| 1 | 2 |  |  |")
      expect(ragged).toContain("| 3 | 4 | 5 | 6 |")
      expect(String((yield* run("read_csv", { filepath: "unicode.csv" })).output)).toContain("| 東京 | 日本 |")
    }))

  it.effect("limit and columns; an unknown column lists the known ones", () =>
    Effect.gen(function*() {
      const r = String((yield* run("read_csv", { filepath: "many.csv", limit: 2 })).output)
      expect(r).toBe([
        "many.csv: delimiter \",\", header row detected, 2 columns, rows 1-2 shown, more follow (raise limit, at most 1000, or use read_lines for the rest)",
        "| n | sq |",
        "| --- | --- |",
        "| 0 | 0 |",
        "| 1 | 1 |"
      ].join("\n"))
      expect(String((yield* run("read_csv", { filepath: "people.csv", columns: ["CITY", "name"] })).output)).toContain(
        "3 columns (2 shown), 3 rows\n| city | name |"
      )
      expect((yield* run("read_csv", { filepath: "people.csv", columns: ["email"] })).error).toBe(
        "no column \"email\"; the columns are \"name\", \"age\", \"city\" (or give 1-based column numbers)"
      )
      expect((yield* run("read_csv", { filepath: "many.csv", limit: 1001 })).errorCode).toBe("INVALID_ARGUMENTS")
      expect((yield* run("read_csv", { filepath: "many.csv", limit: 0 })).errorCode).toBe("INVALID_ARGUMENTS")
    }))

  it.effect("empty, blank, unclosed quote, binary, missing, directory: clear answers", () =>
    Effect.gen(function*() {
      expect((yield* run("read_csv", { filepath: "empty.csv" })).output).toBe("empty.csv: the file is empty (no rows)")
      expect((yield* run("read_csv", { filepath: "blank.csv" })).output).toBe("blank.csv: the file is empty (no rows)")
      const unclosed = yield* run("read_csv", { filepath: "unclosed.csv" })
      expect(unclosed.errorCode).toBe("TOOL_ERROR")
      expect(unclosed.error).toMatch(/^not valid CSV: Quote Not Closed/)
      expect((yield* run("read_csv", { filepath: "bin.csv" })).error).toBe("\"bin.csv\" is a binary file (4 bytes), not UTF-8 text")
      expect((yield* run("read_csv", { filepath: "missing.csv" })).error).toBe("\"missing.csv\" does not exist")
      expect((yield* run("read_csv", { filepath: "dir.csv" })).error).toBe("\"dir.csv\" is a directory, not a file")
      const exit = yield* Effect.exit(run("read_csv", { filepath: "../outside.csv" }))
      expect(Option.isSome(traversalOf(exit))).toBe(true)
    }))
})

describe("CSV helpers", () => {
  it("guess the delimiter from consistent counts, quotes skipped", () => {
    expect(guessDelimiter("a,b,c\n1,2,3\n")).toBe(",")
    expect(guessDelimiter("a;b\n\"1,5\";2\n\"3,5\";4\n")).toBe(";")
    expect(guessDelimiter("a\tb\n1\t2\n")).toBe("\t")
    expect(guessDelimiter("single\ncolumn\n")).toBe(",")
    expect(guessDelimiter("single\ncolumn\n", "\t")).toBe("\t")
  })

  it("guess: a consistent count beats a larger inconsistent one; ties go to the first; the sample is bounded", () => {
    // ";" 2 per line every line; "," more in all but uneven
    expect(guessDelimiter("a;b;c,x,y,z\n1;2;3\n4;5;6,q\n")).toBe(";")
    // both consistent: the higher count wins
    expect(guessDelimiter("a|b;c;d\n1|2;3;4\n")).toBe(";")
    // both consistent with the same count: the first of , tab ; |
    expect(guessDelimiter("a;b|c\n1;2|3\n")).toBe(";")
    expect(guessDelimiter("a|b,c\n1|2,3\n")).toBe(",")
    // none consistent: the most frequent
    expect(guessDelimiter("a|b|c|d\n1\n2;3\n")).toBe("|")
    // a line with none of a delimiter makes it inconsistent (the first line has none: not consistent)
    expect(guessDelimiter("title\na;b\n1;2\n", "\t")).toBe(";")
    // only the first 10 lines count: "|" is consistent there, what follows does not matter
    expect(guessDelimiter(`${"a|b\n".repeat(10)}${"x,y,z,w\n".repeat(50)}`)).toBe("|")
    // only the first 64 KiB count, and a line cut by that end is not counted
    const long = `a;b\n${"x".repeat(64 * 1024)},,,,\n`
    expect(guessDelimiter(long)).toBe(";")
    // a line cut by the sample's end: what it had so far does not make ";" inconsistent
    expect(guessDelimiter(`a;b;c,d\n1;2;3,4\n5,6;${"x".repeat(70_000)};7\n`)).toBe(";")
    // delimiters inside quotes do not count: the commas here are all quoted
    expect(guessDelimiter("\"x,y\";1\n\"p,q\";2\n")).toBe(";")
    // a quoted newline does not end the line
    expect(guessDelimiter("a;\"b\nc\";d\n1;2;3\n")).toBe(";")
    expect(delimiterName("\t")).toBe("tab")
    expect(delimiterName(";")).toBe("\";\"")
  })

  it("column names: the header's (trimmed) or 1, 2, 3...; as wide as the widest row", () => {
    expect(columnNames([[" name ", " age "], ["x", "1", "extra"]], true)).toEqual(["name", "age", "3"])
    expect(columnNames([["1", "2"], ["3", "4", "5"]], false)).toEqual(["1", "2", "3"])
    expect(columnNames([], false)).toEqual([])
  })

  it("a header: numbers in any form are data, a blank or repeated name is data, an empty first row is none", () => {
    expect(hasHeader([["name", "-1.5e3"]])).toBe(false)
    expect(hasHeader([["name", ".5"]])).toBe(false)
    expect(hasHeader([["name", "+7"]])).toBe(false)
    expect(hasHeader([["name", "1e"]])).toBe(true)
    expect(hasHeader([["a ", " a"]])).toBe(false)
    expect(hasHeader([["a", "  "]])).toBe(false)
    expect(hasHeader([[]])).toBe(false)
    expect(hasHeader([])).toBe(false)
  })

  it("detect a header only when the first row looks like names", () => {
    expect(hasHeader([["name", "age"], ["x", "1"]])).toBe(true)
    expect(hasHeader([["1", "2"], ["3", "4"]])).toBe(false)
    expect(hasHeader([["a", "a"], ["1", "2"]])).toBe(false)
    expect(hasHeader([["a", ""], ["1", "2"]])).toBe(false)
  })
})
