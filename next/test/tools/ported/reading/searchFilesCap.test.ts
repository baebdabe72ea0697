/**
 * `search_files`' cap on the files one call searches (`makeSearchFiles`, with a small cap
 * instead of `SEARCH_MAX_FILES`): the walk stops at the first directory that finds the cap
 * reached, and the output says after how many files; and the workers a call asks for.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ToolSystem, Workspace } from "../../../../src/index.js"
import { makeSearchFiles, SEARCH_MAX_WORKERS, searchParallelism } from "../../../../src/tools/ported/reading/searchFiles.js"
import { makeWorkspace, outputOf } from "./harness.js"

let fixture: ReturnType<typeof makeWorkspace>

beforeAll(() => {
  fixture = makeWorkspace("search-files-cap-")
  // breadth first: a.txt (two matching lines), then b's two files, then c's one
  fixture.write("a.txt", "x one\nx two\n")
  fixture.write("b/p.txt", "x p\n")
  fixture.write("b/q.txt", "x q\n")
  fixture.write("c/r.txt", "x r\n")
})

afterAll(() => fixture.remove())

/** One search_files call for "x" searching at most `maxFiles` files. */
const search = (maxFiles: number, args: Record<string, unknown> = {}) =>
  Effect.flatMap(ToolSystem, (tools) => tools.execute("search_files", { pattern: "x", ...args })).pipe(
    Effect.provide(ToolSystem.layerNode({
      builtins: false,
      tools: [makeSearchFiles(maxFiles)],
      workspace: Workspace.layerFixed(fixture.ws)
    }))
  )

const stoppedAfter = (files: number) =>
  `(the search stopped after ${files} files; there may be more matches: narrow it with directory or glob)`

describe("search_files: the file cap", () => {
  it.effect("stops at the next directory once the cap is reached, and says after how many files", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* search(1))).toBe(["a.txt:1: x one", "a.txt:2: x two", stoppedAfter(1)].join("\n"))
      // exactly max_results found when it stops: there may still be more
      expect(outputOf(yield* search(1, { max_results: 2 }))).toBe(["a.txt:1: x one", "a.txt:2: x two", stoppedAfter(1)].join("\n"))
      // a directory begun is searched whole: past the cap inside b, the walk stops before c
      expect(outputOf(yield* search(2))).toBe(["a.txt:1: x one", "a.txt:2: x two", "b/p.txt:1: x p", "b/q.txt:1: x q", stoppedAfter(3)].join("\n"))
    }))

  it.effect("more lines than max_results: only the note saying so, also when the cap was reached", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* search(1, { max_results: 1 }))).toBe([
        "a.txt:1: x one",
        "(showing the first 1 matching lines; there are more: raise max_results (at most 1000), or narrow the search with directory or glob)"
      ].join("\n"))
    }))

  it.effect("a search within the cap is whole, without the note", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* search(4))).toBe(["a.txt:1: x one", "a.txt:2: x two", "b/p.txt:1: x p", "b/q.txt:1: x q", "c/r.txt:1: x r"].join("\n"))
    }))
})

describe("searchParallelism", () => {
  it("one worker per free core (three quarters of one counts) besides the main thread's, at most SEARCH_MAX_WORKERS", () => {
    const workers = [0, 1, 1.25, 1.3, 2, 2.25, 2.3, 100].map((free) => searchParallelism(free).workers)
    expect(workers).toEqual([0, 0, 0, 1, 1, 1, 2, SEARCH_MAX_WORKERS])
    expect(SEARCH_MAX_WORKERS).toBeLessThan(99)
    expect(searchParallelism(2).minFiles).toBe(2000)
  })
})
