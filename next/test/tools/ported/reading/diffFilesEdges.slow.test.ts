import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { MAX_OUTPUT_BYTES } from "../../../../src/tools/ported/reading/common.js"
import { DIFF_TIMEOUT_MS } from "../../../../src/tools/ported/reading/diffFiles.js"
import { call, makeWorkspace, outputOf } from "./harness.js"

let fixture: ReturnType<typeof makeWorkspace>

beforeAll(() => {
  fixture = makeWorkspace("diff-files-edges-")
})

afterAll(() => fixture.remove())

const diff = (args: Record<string, unknown>) => call(fixture.ws, "diff_files", args)

/**
 * Two hunks (context 0): "old" -> "new" at line 1, a line of `long` x -> "n" at line 3. The hunks are
 * budgeted at the names + 10, then 40 a hunk plus each line and its line feed: 28 + 50 + (long + 45).
 */
const twoHunks = (a: string, b: string, long: number) => {
  fixture.write(a, `old\nsame\n${"x".repeat(long)}\n`)
  fixture.write(b, "new\nsame\nn\n")
  return diff({ file_a: a, file_b: b, context_lines: 0 })
}

describe("diff_files: the output cap", () => {
  it.effect("a second hunk that fits the budget exactly is shown", () =>
    Effect.gen(function*() {
      const long = MAX_OUTPUT_BYTES - 123
      const out = outputOf(yield* twoHunks("fit-a.txt", "fit-b.txt", long))
      expect(out).toBe(
        `--- fit-a.txt\n+++ fit-b.txt\n@@ -1,1 +1,1 @@\n-old\n+new\n@@ -3,1 +3,1 @@\n-${"x".repeat(long)}\n+n`
      )
    }))

  it.effect("one byte more and the diff stops before it, saying where it begins", () =>
    Effect.gen(function*() {
      const out = outputOf(yield* twoHunks("over-a.txt", "over-b.txt", MAX_OUTPUT_BYTES - 122))
      expect(out).toBe(
        "--- over-a.txt\n+++ over-b.txt\n@@ -1,1 +1,1 @@\n-old\n+new\n" +
          `(the diff stops after 1 of 2 hunks, at ${MAX_OUTPUT_BYTES} bytes; the rest begins at line 3 of over-a.txt and ` +
          "line 3 of over-b.txt: read those parts with read_lines, or lower context_lines)"
      )
    }))

  it.effect("a single hunk of exactly the cap is shown whole", () =>
    Effect.gen(function*() {
      const long = MAX_OUTPUT_BYTES - 48
      fixture.write("one-a.txt", `${"x".repeat(long)}\n`)
      fixture.write("one-b.txt", "n\n")
      const expected = `--- one-a.txt\n+++ one-b.txt\n@@ -1,1 +1,1 @@\n-${"x".repeat(long)}\n+n`
      expect(expected).toHaveLength(MAX_OUTPUT_BYTES)
      expect(outputOf(yield* diff({ file_a: "one-a.txt", file_b: "one-b.txt" }))).toBe(expected)
    }))

  it.effect("a single hunk over the cap is cut after a whole line", () =>
    Effect.gen(function*() {
      const wide = (i: number, tag: string) => `${tag} ${String(i).padStart(5, "0")} ${"x".repeat(990)}\n`
      const lines = (tag: string) => Array.from({ length: 300 }, (_, i) => wide(i + 1, tag)).join("")
      fixture.write("huge-a.txt", lines("old"))
      fixture.write("huge-b.txt", lines("new"))
      const out = outputOf(yield* diff({ file_a: "huge-a.txt", file_b: "huge-b.txt" })).split("\n")
      expect(out.slice(0, 3)).toEqual(["--- huge-a.txt", "+++ huge-b.txt", "@@ -1,300 +1,300 @@"])
      const body = out.slice(3, -1)
      // 1002 bytes a line (with its line feed) after 50 bytes of headers: the lines whose line feed is within the cap
      expect(body).toHaveLength(Math.floor((MAX_OUTPUT_BYTES - 49) / 1002))
      for (const line of body) expect(line).toMatch(/^-old \d{5} x{990}$/)
      expect(out.at(-1)).toBe(
        `(the diff is cut at ${MAX_OUTPUT_BYTES} bytes inside its first hunk, which begins at line 1 of huge-a.txt and ` +
          "line 1 of huge-b.txt: compare smaller parts with read_lines)"
      )
    }))
})

describe("diff_files: the time limit", () => {
  it.live("files too different to diff in time are an error that says what to do", () =>
    Effect.gen(function*() {
      fixture.write("far-a.txt", Array.from({ length: 40_000 }, (_, i) => `a${i}\n`).join(""))
      fixture.write("far-b.txt", Array.from({ length: 40_000 }, (_, i) => `b${i}\n`).join(""))
      const result = yield* diff({ file_a: "far-a.txt", file_b: "far-b.txt" })
      expect(result.errorCode).toBe("TOOL_ERROR")
      expect(result.error).toBe(
        `the files differ too much to diff within ${DIFF_TIMEOUT_MS / 1000} s; compare smaller parts (read_lines)`
      )
    }), 60_000)
})
