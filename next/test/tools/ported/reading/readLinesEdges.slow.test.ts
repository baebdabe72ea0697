/**
 * The tests of `readLinesEdges.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet machine:
 * real processes, worker starts, large inputs), kept in the slow lane so that the fast lane's
 * tests stay well under its 1 s CPU bound even on a loaded machine.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { READ_LINES_COUNT_BYTES, READ_LINES_MAX_BYTES } from "../../../../src/tools/ported/reading/readLines.js"
import { FIRST_BLOCK_BYTES } from "../../../../src/tools/shared/safeFsRead.js"
import { outputOf } from "./harness.js"
import { fixedLines, readLinesEdgesWorkspace } from "./readLinesEdgesHarness.js"

const { fixture, note, read } = readLinesEdgesWorkspace()

describe("read_lines: lines cut at the byte cap", () => {
  it.effect("a line cut inside the range starts the counting, even before the range ends", () =>
    Effect.gen(function*() {
      // line 1 is cut in the second chunk; lines 2-2000 (1 KiB each, still in the range) end two chunks later;
      // the file is the budget plus the first block, so counting from the second chunk on reaches the budget
      const head = Buffer.alloc(300_000, "a")
      head[head.length - 1] = 10
      fixture.write("cut-then-budget.txt", Buffer.concat([head, fixedLines(READ_LINES_COUNT_BYTES + FIRST_BLOCK_BYTES - head.length, 1024)]))
      const out = outputOf(yield* read({ filepath: "cut-then-budget.txt", start_line: 1, end_line: 2000 }))
      expect(note(out)).toBe(
        `(lines 1-1: line 1 is cut, a call returns at most ${READ_LINES_MAX_BYTES} bytes; continue with start_line=2)`
      )
      Fs.rmSync(Path.join(fixture.ws, "cut-then-budget.txt"))
    }))
})
