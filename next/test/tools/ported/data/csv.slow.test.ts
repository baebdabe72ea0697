/**
 * The tests of `csv.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet machine:
 * real processes, worker starts, large inputs), kept in the slow lane so that the fast lane's
 * tests stay well under its 1 s CPU bound even on a loaded machine.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { DATA_FILE_MAX_BYTES } from "../../../../src/tools/ported/data/files.js"
import { csvWorkspace } from "./csvHarness.js"
import { writeIn } from "./harness.js"

const { dirs, run } = csvWorkspace()
let ws: string
beforeAll(() => {
  ws = dirs.ws
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
