import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { READ_LINES_MAX_BYTES, readLines } from "../../../../src/tools/ported/reading/readLines.js"
import { call, makeWorkspace, outputOf, traversalOf } from "./harness.js"

let fixture: ReturnType<typeof makeWorkspace>

const numbered = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `${String(from + i).padStart(String(to).length)}: line ${from + i}`)

beforeAll(() => {
  fixture = makeWorkspace("read-lines-")
  const { outside, write, ws } = fixture
  write("notes.txt", "one\ntwo\nthree\n")
  write("no-final-newline.txt", "a\nb\nc")
  write("crlf.txt", "x\r\ny\r\nz\r\n")
  write("empty.txt", "")
  write("unicode.txt", "héllo 🙂\n漢字 ✓\n")
  write("long.txt", Array.from({ length: 2500 }, (_, i) => `line ${i + 1}\n`).join(""))
  write("bin.dat", Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x01, 0x0a]))
  write("src/index.ts", "export {}\n")
  Fs.writeFileSync(Path.join(outside, "secret.txt"), "top secret\n")
  Fs.symlinkSync(Path.join(outside, "secret.txt"), Path.join(ws, "out.txt"))
})

afterAll(() => fixture.remove())

const read = (args: Record<string, unknown>) => call(fixture.ws, "read_lines", args)

describe("read_lines", () => {
  it.effect("numbers the lines of a range", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* read({ filepath: "notes.txt", start_line: 2, end_line: 3 }))).toBe("2: two\n3: three")
      expect(outputOf(yield* read({ filepath: "notes.txt", start_line: 1, end_line: 1 }))).toBe(
        "1: one\n(lines 1-1 of 3; continue with start_line=2)"
      )
      // numbers padded to the widest one shown
      expect(outputOf(yield* read({ filepath: "long.txt", start_line: 9, end_line: 10 }))).toBe(
        " 9: line 9\n10: line 10\n(lines 9-10 of 2500; continue with start_line=11)"
      )
    }))

  it.effect("without end_line shows 200 lines and says where to continue", () =>
    Effect.gen(function*() {
      const out = outputOf(yield* read({ filepath: "long.txt", start_line: 1 }))
      expect(out).toBe([...numbered(1, 200), "(lines 1-200 of 2500; continue with start_line=201)"].join("\n"))
    }))

  it.effect("at most 2000 lines a call, with the note", () =>
    Effect.gen(function*() {
      const out = outputOf(yield* read({ filepath: "long.txt", start_line: 1, end_line: 2500 }))
      const lines = out.split("\n")
      expect(lines).toHaveLength(2001)
      expect(lines.at(-2)).toBe("2000: line 2000")
      expect(lines.at(-1)).toBe(
        "(lines 1-2000 of 2500; a call shows at most 2000 lines; continue with start_line=2001)"
      )
    }))

  it.effect("past the end: the last lines and where the file ends; a start past the end is an error", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* read({ filepath: "notes.txt", start_line: 2, end_line: 10 }))).toBe(
        "2: two\n3: three\n(the file ends at line 3)"
      )
      const past = yield* read({ filepath: "notes.txt", start_line: 4 })
      expect(past.errorCode).toBe("TOOL_ERROR")
      expect(past.error).toBe("start_line 4 is past the end of the file: \"notes.txt\" has 3 lines")
      const backwards = yield* read({ filepath: "notes.txt", start_line: 3, end_line: 2 })
      expect(backwards.error).toBe("end_line (2) is before start_line (3)")
      expect((yield* read({ filepath: "notes.txt", start_line: 0 })).errorCode).toBe("INVALID_ARGUMENTS")
    }))

  it.effect("no final newline, CRLF, an empty file, unicode", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* read({ filepath: "no-final-newline.txt", start_line: 3 }))).toBe("3: c")
      expect(outputOf(yield* read({ filepath: "no-final-newline.txt", start_line: 1 }))).toBe("1: a\n2: b\n3: c")
      expect(outputOf(yield* read({ filepath: "crlf.txt", start_line: 1 }))).toBe("1: x\n2: y\n3: z")
      expect(outputOf(yield* read({ filepath: "empty.txt", start_line: 1 }))).toBe("(the file is empty)")
      expect(outputOf(yield* read({ filepath: "unicode.txt", start_line: 1 }))).toBe("1: héllo 🙂\n2: 漢字 ✓")
    }))

  it.effect("a binary file, a missing file and a directory are clear errors", () =>
    Effect.gen(function*() {
      const binary = yield* read({ filepath: "bin.dat", start_line: 1 })
      expect(binary.error).toBe("\"bin.dat\" is a binary file (8 bytes), not UTF-8 text")
      expect((yield* read({ filepath: "missing.txt", start_line: 1 })).error).toBe("\"missing.txt\" does not exist")
      expect((yield* read({ filepath: "src", start_line: 1 })).error).toBe("\"src\" is a directory, not a file")
    }))

  it.effect("a path leading out of the workspace is a PathTraversalError defect", () =>
    Effect.gen(function*() {
      for (const filepath of ["../outside/secret.txt", "out.txt", Path.join(fixture.outside, "secret.txt")]) {
        const exit = yield* Effect.exit(read({ filepath, start_line: 1 }))
        expect(Option.isSome(traversalOf(exit)), filepath).toBe(true)
      }
    }))

  it.effect("a line longer than the output cap is cut with a note", () =>
    Effect.gen(function*() {
      fixture.write("wide.txt", `short\n${"é".repeat(READ_LINES_MAX_BYTES)}\nafter\n`)
      const out = outputOf(yield* read({ filepath: "wide.txt", start_line: 1 }))
      expect(out.startsWith("1: short\n2: éé")).toBe(true)
      expect(out).not.toContain("\uFFFD")
      expect(out.endsWith(
        `…\n(lines 1-2 of 3: line 2 is cut, a call returns at most ${READ_LINES_MAX_BYTES} bytes; continue with start_line=3)`
      )).toBe(true)
      expect(outputOf(yield* read({ filepath: "wide.txt", start_line: 3 }))).toBe("3: after")
    }))

  it.effect("is read-only and tagged as a ported file tool", () =>
    Effect.sync(() => {
      expect(readLines.spec.readOnly).toBe(true)
      expect(readLines.requiresConfirmation).toBe(false)
      expect(readLines.tags).toEqual(["files", "ported"])
      expect(readLines.pathFields).toEqual(["filepath"])
      expect(readLines.spec.required).toEqual(["filepath", "start_line"])
    }))
})
