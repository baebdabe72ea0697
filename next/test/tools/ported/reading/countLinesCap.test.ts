/**
 * `count_lines`' cap on the bytes one call counts (`makeCountLines`, with a cap of one first block
 * instead of `COUNT_LINES_MAX_BYTES`; the first block is read whole whatever the cap): a larger
 * file is counted in its first part, the line cut at the cap not counted, and the output says so.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ToolSystem, Workspace } from "../../../../src/index.js"
import { makeCountLines } from "../../../../src/tools/ported/reading/countLines.js"
import { FIRST_BLOCK_BYTES } from "../../../../src/tools/shared/safeFsRead.js"
import { makeWorkspace, outputOf } from "./harness.js"

const CAP = FIRST_BLOCK_BYTES
const HALF = FIRST_BLOCK_BYTES / 2

let fixture: ReturnType<typeof makeWorkspace>

beforeAll(() => {
  fixture = makeWorkspace("count-lines-cap-")
  fixture.write("at-cap.txt", "a\n".repeat(HALF))
  // the cap falls inside the last line, after "xy"
  fixture.write("over.txt", `${"a\n".repeat(HALF - 1)}xyz\n`)
})

afterAll(() => fixture.remove())

/** One count_lines call counting at most `maxBytes`. */
const count = (maxBytes: number, filepath: string) =>
  Effect.flatMap(ToolSystem, (tools) => tools.execute("count_lines", { filepath })).pipe(
    Effect.provide(ToolSystem.layerNode({
      builtins: false,
      tools: [makeCountLines(maxBytes)],
      workspace: Workspace.layerFixed(fixture.ws)
    }))
  )

describe("count_lines: the byte cap", () => {
  it.effect("a file of exactly the cap is counted whole", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* count(CAP, "at-cap.txt"))).toBe(`lines: ${HALF}\nwords: ${HALF}\ncharacters: ${CAP}\nbytes: ${CAP}`)
    }))

  it.effect("a larger file is counted in its first part, the line cut there not counted, and says so", () =>
    Effect.gen(function*() {
      // the cut line "xy" is not counted as a line; its word is
      expect(outputOf(yield* count(CAP, "over.txt"))).toBe([
        `lines: ${HALF - 1}`,
        `words: ${HALF}`,
        `characters: ${CAP}`,
        `bytes: ${CAP}`,
        `(counted in the first ${CAP} bytes of ${CAP + 2}: a call counts at most ${CAP} bytes)`
      ].join("\n"))
    }))
})
