/**
 * read_csv at its 10 MiB read limit: the record the limit cuts is dropped, also when exactly as
 * many records as asked for were read, and the limit is named. In the slow lane: each of its
 * three reads takes in the whole 10 MiB, about 2-3 s of CPU. The rest of read_csv's edges are in
 * `readCsvEdges.test.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import { makeTempDirSync } from "../../../helpers/tempDir.js"
import { MIB, readCsvIn, writeMiBRows } from "./readCsvEdgesHarness.js"

let ws: string
const { out } = readCsvIn(() => ws)

beforeAll(() => {
  ws = makeTempDirSync("ported-csv-limit-")
  // 12 rows of 1 MiB: the 10 MiB read ends inside the 10th
  writeMiBRows(ws, "mib-rows.csv", 12, `${"z".repeat(MIB - 1)}\n`)
})

afterAll(() => {
  Fs.rmSync(ws, { recursive: true, force: true })
})

describe("read_csv over the read limit", () => {
  it.effect("the record cut by the 10 MiB limit is dropped, and the limit is named", () =>
    Effect.gen(function*() {
      const row = `| ${"z".repeat(200)}… |`
      const table = (n: number) => ["| col |", "| --- |", ...Array.from({ length: n }, () => row)].join("\n")
      const reached = "then the 10 MiB read limit was reached (use read_lines for the rest)"
      // 9 whole rows and a cut 10th were read
      expect(yield* out({ filepath: "mib-rows.csv" })).toBe(
        `mib-rows.csv: delimiter ",", header row detected, 1 columns, rows 1-9 shown, ${reached}\n${table(9)}`
      )
      // exactly as many records as asked for: the cut one is still dropped
      expect(yield* out({ filepath: "mib-rows.csv", limit: 10 })).toBe(
        `mib-rows.csv: delimiter ",", header row detected, 1 columns, rows 1-9 shown, ${reached}\n${table(9)}`
      )
      expect(yield* out({ filepath: "mib-rows.csv", limit: 9 })).toBe(
        "mib-rows.csv: delimiter \",\", header row detected, 1 columns, rows 1-9 shown, more follow (raise limit, at most " +
          `1000, or use read_lines for the rest)\n${table(9)}`
      )
    }))
})
