/**
 * The tests of `csv.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet machine:
 * real processes, worker starts, large inputs), kept in the slow lane so that the fast lane's
 * tests stay well under its 1 s CPU bound even on a loaded machine.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { DATA_FILE_MAX_BYTES } from "../../../../src/tools/ported/data/files.js"
import { dataTools } from "../../../../src/tools/ported/data/index.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"
import { runner, writeIn } from "./harness.js"

let base: string
let ws: string
const run = runner(dataTools, () => ws)

beforeAll(() => {
  base = makeTempDirSync("ported-csv-")
  ws = Path.join(base, "ws")
  Fs.mkdirSync(ws)
  const write = writeIn(ws)
  write("people.csv", "name,age,city\nAlice,30,Paris\nBob,25,\"New York, NY\"\n\"Carol \"\"CJ\"\" Jones\",41,\"Multi\nline\"\n")
  write("crlf.csv", "\uFEFFid;label\r\n1;one\r\n2;\"two; or three\"\r\n")
  write("numbers.csv", "1,2,3\n4,5,6\n")
  write("data.tsv", "a\tb\nx|y\tz\n")
  write("pipes.csv", "k|v\n\"a|b\"|c\n")
  write("ragged.csv", "a,b,c\n1,2\n3,4,5,6\n")
  write("unicode.csv", "ville,pays\nZürich,Schweiz\n東京,日本\n")
  write("empty.csv", "")
  write("blank.csv", "\n\n  \n")
  write("unclosed.csv", "a,b\n\"x,1\n")
  write("bin.csv", Buffer.from([0x61, 0x2c, 0x00, 0x62]))
  write("many.csv", `n,sq\n${Array.from({ length: 2000 }, (_, i) => `${i},${i * i}`).join("\n")}\n`)
  write("wide-cell.csv", `k,v\nx,${"y".repeat(500)}\n`)
  Fs.mkdirSync(Path.join(ws, "dir.csv"))
  writeIn(base)("outside.csv", "a\n1\n")
})

afterAll(() => {
  Fs.rmSync(base, { recursive: true, force: true })
})

describe("read_csv", () => {

  it.effect("long cells are cut; a wide file shows its first 50 columns; a huge table is cut", () =>
    Effect.gen(function*() {
      const r = String((yield* run("read_csv", { filepath: "wide-cell.csv" })).output)
      expect(r).toContain(`| x | ${"y".repeat(200)}… |`)
      const header = Array.from({ length: 5000 }, (_, i) => `c${i}`).join(",")
      // the first 50 cells long (cut to 200 characters in the table), the others short: ~1 MB in all
      const row = Array.from({ length: 5000 }, (_, i) => (i < 50 ? "v".repeat(250) : "w")).join(",")
      writeIn(ws)("wide.csv", `${header}\n${Array.from({ length: 40 }, () => row).join("\n")}\n`)
      const wide = String((yield* run("read_csv", { filepath: "wide.csv", limit: 40 })).output)
      expect(wide.split("\n")[0]).toBe(
        "wide.csv: delimiter \",\", header row detected, 5000 columns (50 shown; pick others with columns), 40 rows"
      )
      expect(wide.split("\n")[1]).toBe(`| ${Array.from({ length: 50 }, (_, i) => `c${i}`).join(" | ")} |`)
      expect(wide).toMatch(/\.\.\. \(cut after \d+ of \d+ characters; lower limit or pick fewer columns\)$/)
      const picked = String((yield* run("read_csv", { filepath: "wide.csv", limit: 1, columns: ["c4999"] })).output)
      expect(picked).toContain("5000 columns (1 shown), rows 1-1 shown, more follow")
    }))

  it.effect("a file over the read limit: its first rows at once, and more are announced", () =>
    Effect.gen(function*() {
      const row = `${"z".repeat(1000)}\n`
      const fd = Fs.openSync(Path.join(ws, "huge.csv"), "w")
      Fs.writeSync(fd, "col\n")
      const chunk = row.repeat(1024)
      for (let written = 0; written < DATA_FILE_MAX_BYTES + 2 * 1024 * 1024; written += chunk.length) Fs.writeSync(fd, chunk)
      Fs.closeSync(fd)
      const head = String((yield* run("read_csv", { filepath: "huge.csv", limit: 3 })).output)
      expect(head).toContain("rows 1-3 shown, more follow")
      const all = String((yield* run("read_csv", { filepath: "huge.csv", limit: 1000 })).output)
      expect(all).toContain("rows 1-1000 shown, more follow")
    }))
})
