/**
 * The tests of `readCsvEdges.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet machine:
 * real processes, worker starts, large inputs), kept in the slow lane so that the fast lane's
 * tests stay well under its 1 s CPU bound even on a loaded machine.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import { DATA_FILE_MAX_BYTES } from "../../../../src/tools/ported/data/files.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"
import { writeIn } from "./harness.js"
import { dataSystem, errorHere, MIB, readCsvIn, writeMiBRows } from "./readCsvEdgesHarness.js"

let ws: string
const { run } = readCsvIn(() => ws)

const PEOPLE_COLUMNS = "the columns are \"name\", \"age\", \"city\" (or give 1-based column numbers)"

/** A CSV of `n` columns c1..cn and one row v1..vn. */
const wide = (n: number) => {
  const cols = Array.from({ length: n }, (_, i) => i + 1)
  return `${cols.map((i) => `c${i}`).join(",")}\n${cols.map((i) => `v${i}`).join(",")}\n`
}

beforeAll(() => {
  ws = makeTempDirSync("ported-csv-edges-")
  const write = writeIn(ws)
  write("people.csv", "name,age,city\nAlice,30,Paris\nBob,25,Rome\n")
  write("escapes.csv", "k,v\nback,\"a\\b\"\npipe,\"a|b\"\ncrlf,\"a\r\nb\"\ncr,\"a\rb\"\nlf,\"a\nb\"\nctl,\"a\u0001b\u007fc\td\"\n")
  write("cells.csv", `k,v\nx,${"y".repeat(200)}\nz,${"y".repeat(201)}\n`)
  write("single.tsv", "name\nAlice\n")
  write("single.csv", "name\nAlice\n")
  write("header-only.csv", "a,b\n")
  write("unclosed.csv", "a,b\n\"x,1\n")
  write("cases.csv", "Name,NAME,x\n1,2,3\n")
  write("w50.csv", wide(50))
  write("w51.csv", wide(51))
  write("long-names.csv", `${"n".repeat(70)},b\n1,2\n`)
  // a quote opened on the 2nd line and closed past the read limit
  writeMiBRows(ws, "open-quote.csv", 1, `"${"q".repeat(11 * MIB)}"\n`)
})

afterAll(() => {
  Fs.rmSync(ws, { recursive: true, force: true })
})

describe("read_csv columns", () => {

  // its calls share one tool system: one of its own for each costs about a quarter more CPU
  it.effect("only plain numbers count: no sign, leading zero, space, decimal point or exponent", () =>
    Effect.gen(function*() {
      for (const name of [" 2", "2 ", "02", "2.0", "1e0", "+2", "0", "-1", "x2"]) {
        expect(yield* errorHere({ filepath: "people.csv", columns: [name] })).toBe(`no column ${JSON.stringify(name)}; ${PEOPLE_COLUMNS}`)
      }
    }).pipe(Effect.provide(dataSystem(ws))))
})

describe("read_csv over the read limit", () => {
  it.effect("a quote left open at the read limit: the error says only part of the file was read", () =>
    Effect.gen(function*() {
      const r = yield* run("read_csv", { filepath: "open-quote.csv" })
      expect(r.errorCode).toBe("TOOL_ERROR")
      // refused before parsing: the open quote makes the record longer than a record may be
      expect(r.error).toMatch(/^the record on line 2 is longer than 1048576 characters \(or a quote is left open\)/)
      expect(r.error).toMatch(new RegExp(` \\(only the first ${DATA_FILE_MAX_BYTES} bytes of the file were read\\)$`))
      // a file read whole: the parser's message alone
      expect((yield* run("read_csv", { filepath: "unclosed.csv" })).error).toBe(
        "not valid CSV: Quote Not Closed: the parsing is finished with an opening quote at line 2"
      )
    }))
})
