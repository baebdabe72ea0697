/**
 * The tests of `diffFiles.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet machine:
 * real processes, worker starts, large inputs), kept in the slow lane so that the fast lane's
 * tests stay well under its 1 s CPU bound even on a loaded machine.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { diffFilesWorkspace, lines } from "./diffFilesHarness.js"
import { outputOf } from "./harness.js"

const { diff, fixture } = diffFilesWorkspace()

describe("diff_files", () => {

  it.effect("a large diff is cut after a whole hunk, with where the rest begins", () =>
    Effect.gen(function*() {
      // 200 changed lines of 1000 bytes, every 10th: 200 hunks, far over the output cap
      const wide = (i: number, tag: string) => `${tag} ${String(i).padStart(5, "0")} ${"x".repeat(990)}`
      fixture.write("wide-a.txt", lines(2000, (i) => wide(i, "old")))
      fixture.write("wide-b.txt", lines(2000, (i) => (i % 10 === 0 ? wide(i, "new") : wide(i, "old"))))
      const out = outputOf(yield* diff({ file_a: "wide-a.txt", file_b: "wide-b.txt" }))
      const note = out.split("\n").at(-1) ?? ""
      expect(note).toMatch(
        /^\(the diff stops after \d+ of 200 hunks, at 262144 bytes; the rest begins at line \d+ of wide-a\.txt and line \d+ of wide-b\.txt: read those parts with read_lines, or lower context_lines\)$/
      )
      expect(out.length).toBeLessThan(262144 + 1000)
      // one hunk over the cap (300 lines replaced by 300 others): cut inside it
      fixture.write("huge-a.txt", lines(300, (i) => wide(i, "old")))
      fixture.write("huge-b.txt", lines(300, (i) => wide(i, "new")))
      const huge = outputOf(yield* diff({ file_a: "huge-a.txt", file_b: "huge-b.txt" }))
      expect(huge.split("\n").at(-1)).toBe(
        "(the diff is cut at 262144 bytes inside its first hunk, which begins at line 1 of huge-a.txt and line 1 of " +
          "huge-b.txt: compare smaller parts with read_lines)"
      )
      expect(huge.length).toBeLessThan(262144 + 1000)
    }))
})
