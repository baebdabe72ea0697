/**
 * `searchTree`'s own limits, on a real tree: `maxFiles` stops the walk at the first directory
 * that finds the count reached (the files of a directory are given to the search together),
 * and `limit` keeps the first matching lines in walk order. The tool's tests use limits far
 * above their trees.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { SearchResult } from "../../../../src/tools/ported/reading/searchTree.js"
import { makeWorkspace, searchWorkspace } from "./harness.js"

let fixture: ReturnType<typeof makeWorkspace>

beforeAll(() => {
  fixture = makeWorkspace("search-tree-")
  // 4 folders of 50 files; every file holds one match
  for (let d = 0; d < 4; d++) {
    for (let f = 0; f < 50; f++) fixture.write(`d${d}/f${String(f).padStart(2, "0")}.txt`, `x\nhit ${d}-${f}\n`)
  }
})
afterAll(() => fixture.remove())

const search = (options: { readonly maxFiles: number; readonly limit?: number }): Effect.Effect<SearchResult> =>
  searchWorkspace(fixture.ws, "hit", options)

/** The folders the lines come from. */
const folders = (result: SearchResult) => [...new Set(result.lines.map((line) => line.split("/")[0]))]

describe("searchTree", () => {
  it.effect("searches every file under a maxFiles above the tree", () =>
    Effect.gen(function*() {
      const all = yield* search({ maxFiles: 1000 })
      expect(all.searched).toBe(200)
      expect(all.lines).toHaveLength(200)
      expect(folders(all)).toEqual(["d0", "d1", "d2", "d3"])
    }))

  it.effect("stops at the first folder that finds maxFiles reached; one at exactly the count is searched", () =>
    Effect.gen(function*() {
      // after d0 and d1, 100 files were given: the count is reached, d2 is not searched
      const hundred = yield* search({ maxFiles: 100 })
      expect(hundred.searched).toBe(100)
      expect(folders(hundred)).toEqual(["d0", "d1"])
      // a folder is searched whole once begun: 60 gives d0 and d1 too
      const sixty = yield* search({ maxFiles: 60 })
      expect(sixty.searched).toBe(100)
      expect(sixty.lines).toHaveLength(100)
      const fifty = yield* search({ maxFiles: 50 })
      expect(fifty.searched).toBe(50)
      expect(folders(fifty)).toEqual(["d0"])
    }))

  it.effect("keeps the first matching lines in walk order", () =>
    Effect.gen(function*() {
      const three = yield* search({ maxFiles: 1000, limit: 3 })
      expect(three.lines).toEqual(["d0/f00.txt:2: hit 0-0", "d0/f01.txt:2: hit 0-1", "d0/f02.txt:2: hit 0-2"])
    }))
})
