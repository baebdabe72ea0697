import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { DIRECTORY_TREE_MAX_ENTRIES } from "../../../../src/tools/ported/reading/directoryTree.js"
import { call, makeWorkspace, outputOf } from "./harness.js"

let fixture: ReturnType<typeof makeWorkspace>

const files = (dir: string, n: number) => {
  Fs.mkdirSync(Path.join(fixture.ws, dir), { recursive: true })
  for (let i = 0; i < n; i++) Fs.writeFileSync(Path.join(fixture.ws, dir, `f${String(i).padStart(4, "0")}`), "")
}

beforeAll(() => {
  fixture = makeWorkspace("directory-tree-cap-")
  // exactly the cap at the top level: two folders (with one file each) and the rest files
  files("exact", DIRECTORY_TREE_MAX_ENTRIES - 2)
  files("exact/d0", 1)
  files("exact/d1", 1)
  // one under the cap at the top level: one folder's single entry still fits
  files("under", DIRECTORY_TREE_MAX_ENTRIES - 2)
  files("under/d0", 1)
  files("under/d1", 1)
  Fs.rmSync(Path.join(fixture.ws, "under", "f0997"))
})

afterAll(() => fixture.remove())

const tree = (args: Record<string, unknown>) => call(fixture.ws, "directory_tree", args)

const STOP_NOTE = `(the tree stops at ${DIRECTORY_TREE_MAX_ENTRIES} entries; for what is cut or marked "…", run directory_tree ` +
  "on a subdirectory, or lower max_depth)"

describe("directory_tree: the entry cap", () => {
  it.effect("a level that fills the cap exactly stops the walk: the folders below are marked, not shown empty", () =>
    Effect.gen(function*() {
      const lines = outputOf(yield* tree({ directory: "exact" })).split("\n")
      expect(lines.slice(0, 4)).toEqual(["exact/", "  d0/ …", "  d1/ …", "  f0000"])
      expect(lines.filter((line) => line.startsWith("  "))).toHaveLength(DIRECTORY_TREE_MAX_ENTRIES)
      expect(lines.slice(-2)).toEqual([`2 directories, ${DIRECTORY_TREE_MAX_ENTRIES - 2} files`, STOP_NOTE])
    }))

  it.effect("one entry under the cap: the next folder is listed up to the cap, the one after is marked", () =>
    Effect.gen(function*() {
      const lines = outputOf(yield* tree({ directory: "under" })).split("\n")
      expect(lines.slice(0, 5)).toEqual(["under/", "  d0/", "    f0000", "  d1/ …", "  f0000"])
      expect(lines.filter((line) => line.startsWith("  "))).toHaveLength(DIRECTORY_TREE_MAX_ENTRIES)
      expect(lines.slice(-2)).toEqual([`2 directories, ${DIRECTORY_TREE_MAX_ENTRIES - 2} files`, STOP_NOTE])
    }))
})
