/**
 * The tests of `readCsvEdges.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet machine:
 * real processes, worker starts, large inputs), kept in the slow lane so that the fast lane's
 * tests stay well under its 1 s CPU bound even on a loaded machine.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { DATA_FILE_MAX_BYTES } from "../../../../src/tools/ported/data/files.js"
import { dataSystem, errorHere, PEOPLE_COLUMNS, readCsvEdgesWorkspace } from "./readCsvEdgesHarness.js"

const { dirs, run } = readCsvEdgesWorkspace()
let ws: string
beforeAll(() => {
  ws = dirs.ws
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
