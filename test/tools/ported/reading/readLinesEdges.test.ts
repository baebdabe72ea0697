import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { READ_LINES_COUNT_BYTES, READ_LINES_MAX_BYTES } from "../../../../src/tools/ported/reading/readLines.js"
import { FIRST_BLOCK_BYTES } from "../../../../src/tools/shared/safeFsRead.js"
import { call, makeWorkspace, outputOf } from "./harness.js"

let fixture: ReturnType<typeof makeWorkspace>

/** Lines of 64 bytes (63 "x" and a line feed): the first block holds exactly `FIRST_BLOCK_BYTES / 64` of them. */
const LINE_BYTES = 64
const BLOCK_LINES = FIRST_BLOCK_BYTES / LINE_BYTES
const BUDGET_LINES = READ_LINES_COUNT_BYTES / LINE_BYTES

const fixedLines = (bytes: number, lineBytes = LINE_BYTES): Buffer => {
  const buffer = Buffer.alloc(bytes, "x")
  for (let i = lineBytes - 1; i < bytes; i += lineBytes) buffer[i] = 10
  return buffer
}

beforeAll(() => {
  fixture = makeWorkspace("read-lines-edges-")
  const { write } = fixture
  // exactly the counting budget, and one byte less (its last line without a line feed)
  const budget = fixedLines(READ_LINES_COUNT_BYTES)
  write("budget.txt", budget)
  write("budget-less-one.txt", budget.subarray(0, READ_LINES_COUNT_BYTES - 1))
  write("one-line.txt", "only\n")
  write("crlf.txt", "ab\r\ncd\r\n")
})

afterAll(() => fixture.remove())

const read = (args: Record<string, unknown>) => call(fixture.ws, "read_lines", args)
const note = (out: string) => out.split("\n").at(-1)

describe("read_lines: counting the lines after the range", () => {
  it.effect("counting starts with the chunk in which the range ends, and stops at the budget", () =>
    Effect.gen(function*() {
      // the range ends with the first block: counted from the first block on, the whole file is the budget
      const atBlockEnd = outputOf(yield* read({ filepath: "budget.txt", start_line: BLOCK_LINES, end_line: BLOCK_LINES }))
      expect(note(atBlockEnd)).toBe(
        `(lines ${BLOCK_LINES}-${BLOCK_LINES}; the file has at least ${BUDGET_LINES} lines; continue with start_line=${
          BLOCK_LINES + 1
        })`
      )
      // the range ends in the second chunk: the first block is not counted, the rest fits in the budget
      const afterBlock = outputOf(yield* read({ filepath: "budget.txt", start_line: BLOCK_LINES + 1, end_line: BLOCK_LINES + 1 }))
      expect(afterBlock).toBe(
        `${BLOCK_LINES + 1}: ${"x".repeat(63)}\n(lines ${BLOCK_LINES + 1}-${BLOCK_LINES + 1} of ${BUDGET_LINES}; continue with ` +
          `start_line=${BLOCK_LINES + 2})`
      )
    }))

  it.effect("a file one byte under the budget is counted whole", () =>
    Effect.gen(function*() {
      const out = outputOf(yield* read({ filepath: "budget-less-one.txt", start_line: 1, end_line: 1 }))
      expect(out).toBe(`1: ${"x".repeat(63)}\n(lines 1-1 of ${BUDGET_LINES}; continue with start_line=2)`)
      // its last line has no line feed and is still a line
      const last = outputOf(yield* read({ filepath: "budget-less-one.txt", start_line: BUDGET_LINES }))
      expect(last).toBe(`${BUDGET_LINES}: ${"x".repeat(63)}`)
    }))
})

describe("read_lines: lines cut at the byte cap", () => {

  it.effect("the cut keeps exactly the cap's bytes, counted from the start of the range", () =>
    Effect.gen(function*() {
      fixture.write("cap.txt", `short\n${"a".repeat(READ_LINES_MAX_BYTES + 100)}\nafter\n`)
      const out = outputOf(yield* read({ filepath: "cap.txt", start_line: 1 }))
      expect(out).toBe(
        `1: short\n2: ${"a".repeat(READ_LINES_MAX_BYTES - 6)}…\n(lines 1-2 of 3: line 2 is cut, a call returns at most ` +
          `${READ_LINES_MAX_BYTES} bytes; continue with start_line=3)`
      )
      const alone = outputOf(yield* read({ filepath: "cap.txt", start_line: 2, end_line: 2 }))
      expect(alone.startsWith(`2: ${"a".repeat(READ_LINES_MAX_BYTES)}…\n(lines 2-2 of 3: line 2 is cut`)).toBe(true)
    }))

  it.effect("a cut inside a character drops the character, not a replacement sign", () =>
    Effect.gen(function*() {
      // 5 bytes before the 2-byte characters: the cap falls inside one
      fixture.write("odd-cut.txt", `shrt\n${"é".repeat(READ_LINES_MAX_BYTES)}\n`)
      const out = outputOf(yield* read({ filepath: "odd-cut.txt", start_line: 1 }))
      expect(out).toBe(
        `1: shrt\n2: ${"é".repeat((READ_LINES_MAX_BYTES - 6) / 2)}…\n(lines 1-2 of 2: line 2 is cut, a call returns at most ` +
          `${READ_LINES_MAX_BYTES} bytes)`
      )
    }))

  it.effect("a cut in the last line says nothing about continuing", () =>
    Effect.gen(function*() {
      fixture.write("last-cut.txt", `x\n${"b".repeat(READ_LINES_MAX_BYTES)}`)
      const out = outputOf(yield* read({ filepath: "last-cut.txt", start_line: 1 }))
      expect(note(out)).toBe(`(lines 1-2 of 2: line 2 is cut, a call returns at most ${READ_LINES_MAX_BYTES} bytes)`)
    }))
})

describe("read_lines: small cases", () => {
  it.effect("invalid UTF-8 after the first block is shown as a replacement sign", () =>
    Effect.gen(function*() {
      fixture.write(
        "late-invalid.txt",
        Buffer.concat([fixedLines(FIRST_BLOCK_BYTES), Buffer.from([0x74, 0x61, 0x69, 0x6c, 0xc3])])
      )
      const out = outputOf(yield* read({ filepath: "late-invalid.txt", start_line: BLOCK_LINES + 1 }))
      expect(out).toBe(`${BLOCK_LINES + 1}: tail\uFFFD`)
    }))

  it.effect("CRLF endings are dropped whole, one line says \"line\"", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* read({ filepath: "crlf.txt", start_line: 1 }))).toBe("1: ab\n2: cd")
      const past = yield* read({ filepath: "one-line.txt", start_line: 2 })
      expect(past.error).toBe("start_line 2 is past the end of the file: \"one-line.txt\" has 1 line")
      expect(outputOf(yield* read({ filepath: "one-line.txt", start_line: 1, end_line: 3 }))).toBe(
        "1: only\n(the file ends at line 1)"
      )
    }))
})
