/**
 * `list_snapshots`'s order and notes, on a store written by hand: newest first by time and, at
 * the same time, by id; only `<id>.json` files with a valid id are listed (not other files, not
 * directories); one damaged metadata file is said in the singular; an offset past the end says
 * how many there are; past `LIST_READ_MAX` metadata files only the newest ids are read, and
 * that is said.
 */
import { afterAll, beforeEach, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { LIST_READ_MAX } from "../../../../src/tools/ported/managing/listSnapshots.js"
import { call, makeWorkspace, systemFor } from "../editing/harness.js"

const { remove, ws } = makeWorkspace("snapshots-order-")
afterAll(remove)

const store = Path.join(ws, ".snapshots")

/** A snapshot of `src/f.txt` written by hand, taken at `created_at`. */
const forge = (id: string, created_at: string, content = "x") => {
  Fs.writeFileSync(
    Path.join(store, `${id}.json`),
    JSON.stringify({ version: 1, id, source: "src/f.txt", created_at, mode: 420, size: Buffer.byteLength(content) })
  )
  Fs.writeFileSync(Path.join(store, `${id}.snap`), content)
}

const T1 = "2021-01-01T00:00:01.000Z"
const T2 = "2021-01-01T00:00:02.000Z"

/** The listed lines of a call, without the head line. */
const listed = (args: Record<string, unknown> = {}) =>
  Effect.map(call("list_snapshots", args), (r) => {
    expect(r.error).toBeNull()
    return String(r.output).split("\n")
  })

beforeEach(() => {
  Fs.rmSync(store, { recursive: true, force: true })
  Fs.mkdirSync(store, { recursive: true })
})

describe("list_snapshots order and notes", () => {
  layer(systemFor(ws))((it) => {
    it.effect("newest first by time; at the same time the larger id first", () =>
      Effect.gen(function*() {
        // ids in an order that is neither the time order nor its reverse
        forge("b", T1)
        forge("a", T2)
        forge("c", T2)
        forge("d", T1)
        forge("e", T2)
        expect(yield* listed()).toEqual([
          "Snapshots, newest first (1-5 of 5):",
          `e  src/f.txt  ${T2}  1 bytes`,
          `c  src/f.txt  ${T2}  1 bytes`,
          `a  src/f.txt  ${T2}  1 bytes`,
          `d  src/f.txt  ${T1}  1 bytes`,
          `b  src/f.txt  ${T1}  1 bytes`
        ])
      }))

    it.effect("only <id>.json files with a valid id are read: other files, directories and odd names are not", () =>
      Effect.gen(function*() {
        forge("kept", T1)
        Fs.mkdirSync(Path.join(store, "dir.json"))
        Fs.writeFileSync(Path.join(store, "notes.txt"), "{}")
        Fs.writeFileSync(Path.join(store, "bad.id.json"), "{ not even json")
        Fs.writeFileSync(Path.join(store, `${"x".repeat(65)}.json`), "{ not even json")
        expect(yield* listed()).toEqual(["Snapshots, newest first (1-1 of 1):", `kept  src/f.txt  ${T1}  1 bytes`])
      }))

    it.effect("one damaged metadata file is said in the singular; with nothing else, after 'No snapshots.'", () =>
      Effect.gen(function*() {
        Fs.writeFileSync(Path.join(store, "broken.json"), "{ not json")
        expect(yield* listed()).toEqual(["No snapshots.", "(1 snapshot with damaged metadata skipped)"])
        forge("kept", T1)
        expect(yield* listed()).toEqual([
          "Snapshots, newest first (1-1 of 1):",
          `kept  src/f.txt  ${T1}  1 bytes`,
          "(1 snapshot with damaged metadata skipped)"
        ])
      }))

    it.effect("an offset past the end says how many there are", () =>
      Effect.gen(function*() {
        forge("a", T1)
        forge("b", T2)
        expect(yield* listed({ offset: 2 })).toEqual(["No snapshots past offset 2 (there are 2)."])
        expect(yield* listed({ offset: 7, filepath: "src/f.txt" })).toEqual([
          "No snapshots of src/f.txt past offset 7 (there are 2)."
        ])
        expect(yield* listed({ offset: 1 })).toEqual(["Snapshots, newest first (2-2 of 2):", `a  src/f.txt  ${T1}  1 bytes`])
      }))

    it.effect(`at most ${LIST_READ_MAX} metadata files are read, those of the largest ids, and that is said`, () =>
      Effect.gen(function*() {
        // the smallest id is the newest by time: it is not read, so it is not listed
        forge("id-00000", "2030-01-01T00:00:00.000Z")
        for (let i = 1; i <= LIST_READ_MAX; i++) forge(`id-${String(i).padStart(5, "0")}`, T1)
        const lines = yield* listed()
        expect(lines[0]).toBe(`Snapshots, newest first (1-100 of ${LIST_READ_MAX}):`)
        expect(lines[1]).toBe(`id-${String(LIST_READ_MAX).padStart(5, "0")}  src/f.txt  ${T1}  1 bytes`)
        expect(lines.slice(-2)).toEqual([
          `... ${LIST_READ_MAX - 100} older: call again with offset 100`,
          `(only the newest ${LIST_READ_MAX} of ${LIST_READ_MAX + 1} snapshots in .snapshots were read)`
        ])
        expect(lines.join("\n")).not.toContain("id-00000")
      }), 60_000)
  })
})
