/**
 * `find_files`' cap on the entries one call looks at (`makeFindFiles`, with a cap of 3 instead of
 * `FIND_MAX_ENTRIES`): the walk stops at the first directory that finds the cap reached, and
 * the output says how far it got and how to narrow it.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ToolSystem, Workspace } from "../../../../src/index.js"
import { makeFindFiles } from "../../../../src/tools/ported/reading/findFiles.js"
import { makeWorkspace, outputOf } from "./harness.js"

let fixture: ReturnType<typeof makeWorkspace>

beforeAll(() => {
  fixture = makeWorkspace("find-files-cap-")
  // breadth first: the top level (3 entries), then b (2), then c (1)
  fixture.write("a.md", "a")
  fixture.write("b/x.md", "x")
  fixture.write("b/y.md", "y")
  fixture.write("c/z.md", "z")
})

afterAll(() => fixture.remove())

/** One find_files call with an entry cap of `maxEntries`. */
const find = (maxEntries: number, args: Record<string, unknown>) =>
  Effect.flatMap(ToolSystem, (tools) => tools.execute("find_files", args)).pipe(
    Effect.provide(ToolSystem.layerNode({
      builtins: false,
      tools: [makeFindFiles(maxEntries)],
      workspace: Workspace.layerFixed(fixture.ws)
    }))
  )

const stoppedAfter = (entries: number) =>
  `(the search stopped after ${entries} entries; there may be more: narrow it with directory or name_pattern)`

describe("find_files: the entry cap", () => {
  it.effect("stops at the next directory once the cap is reached, and says after how many entries", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* find(3, { name_pattern: "*.md" }))).toBe(["a.md", stoppedAfter(3)].join("\n"))
      // exactly max_results found when it stops: there may still be more
      expect(outputOf(yield* find(3, { name_pattern: "*.md", max_results: 1 }))).toBe(["a.md", stoppedAfter(3)].join("\n"))
      // a directory begun is looked at whole: past the cap inside b, the walk stops before c
      expect(outputOf(yield* find(4, { name_pattern: "*.md" }))).toBe(["a.md", "b/x.md", "b/y.md", stoppedAfter(5)].join("\n"))
    }))

  it.effect("a walk within the cap is whole, without the note", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* find(6, { name_pattern: "*.md" }))).toBe(["a.md", "b/x.md", "b/y.md", "c/z.md"].join("\n"))
    }))
})
