import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { countLines } from "../../../../src/tools/ported/reading/countLines.js"
import { FILE_INFO_COUNT_BYTES, fileInfo } from "../../../../src/tools/ported/reading/fileInfo.js"
import { call, makeWorkspace, outputOf, traversalOf } from "./harness.js"

let fixture: ReturnType<typeof makeWorkspace>
const MTIME = new Date("2024-05-06T07:08:09.000Z")

beforeAll(() => {
  fixture = makeWorkspace("file-info-")
  const { outside, write, ws } = fixture
  write("notes.txt", "one two\nthree\n")
  write("no-final-newline.txt", "a\nb\nc")
  write("crlf.txt", "x y\r\nz\r\n")
  write("empty.txt", "")
  write("unicode.txt", "héllo 🙂\n漢字 ✓\n")
  write("bin.dat", Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x01, 0x0a]))
  write("src/a.ts", "a\n")
  write("src/deep/b.ts", "b\n")
  Fs.chmodSync(Path.join(ws, "notes.txt"), 0o640)
  Fs.utimesSync(Path.join(ws, "notes.txt"), MTIME, MTIME)
  ChildProcess.execFileSync("mkfifo", [Path.join(ws, "fifo")])
  Fs.writeFileSync(Path.join(outside, "secret.txt"), "top secret\n")
  Fs.symlinkSync(Path.join(outside, "secret.txt"), Path.join(ws, "out.txt"))
})

afterAll(() => fixture.remove())

const info = (filepath: string) => call(fixture.ws, "file_info", { filepath })
const count = (filepath: string) => call(fixture.ws, "count_lines", { filepath })

describe("file_info", () => {
  it.effect("a text file: type, size, time, permissions, lines", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* info("notes.txt"))).toBe([
        "path: notes.txt",
        "type: file",
        "size: 14 bytes",
        "modified: 2024-05-06T07:08:09.000Z",
        "permissions: 640 (rw-r-----)",
        "content: text, 2 lines"
      ].join("\n"))
      expect(outputOf(yield* info("no-final-newline.txt"))).toContain("content: text, 3 lines")
      expect(outputOf(yield* info("crlf.txt"))).toContain("content: text, 2 lines")
      expect(outputOf(yield* info("empty.txt"))).toContain("size: 0 bytes\n")
      expect(outputOf(yield* info("empty.txt"))).toContain("content: text, 0 lines")
    }))

  it.effect("a binary file, a directory, a FIFO (not opened)", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* info("bin.dat"))).toContain("content: binary")
      const dir = outputOf(yield* info("src"))
      expect(dir).toContain("path: src\ntype: directory\n")
      expect(dir).toContain("entries: 2 (1 directory, 1 other entry)")
      const root = outputOf(yield* info("."))
      expect(root).toContain("path: .\ntype: directory\n")
      const fifo = outputOf(yield* info("fifo").pipe(Effect.timeout("5 seconds")))
      expect(fifo).toContain("type: FIFO\n")
      expect(fifo).toContain("content: not a regular file; not opened")
    }))

  it.effect("a large file is judged by its first block, its lines left to count_lines", () =>
    Effect.gen(function*() {
      const file = Path.join(fixture.ws, "big.txt")
      Fs.writeFileSync(file, "text line\n".repeat(1000))
      Fs.truncateSync(file, FILE_INFO_COUNT_BYTES + 1)
      const out = outputOf(yield* info("big.txt"))
      Fs.rmSync(file)
      expect(out).toContain(`size: ${FILE_INFO_COUNT_BYTES + 1} bytes`)
      expect(out).toContain(`content: text (lines not counted above ${FILE_INFO_COUNT_BYTES} bytes; count_lines counts them)`)
    }))

  it.effect("a missing file is an error; a path leading out is a PathTraversalError defect", () =>
    Effect.gen(function*() {
      expect((yield* info("missing.txt")).error).toBe("\"missing.txt\" does not exist")
      for (const filepath of ["../outside/secret.txt", "out.txt"]) {
        expect(Option.isSome(traversalOf(yield* Effect.exit(info(filepath)))), filepath).toBe(true)
      }
    }))
})

describe("count_lines", () => {
  it.effect("lines, words, characters and bytes", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* count("notes.txt"))).toBe("lines: 2\nwords: 3\ncharacters: 14\nbytes: 14")
      expect(outputOf(yield* count("no-final-newline.txt"))).toBe("lines: 3\nwords: 3\ncharacters: 5\nbytes: 5")
      expect(outputOf(yield* count("crlf.txt"))).toBe("lines: 2\nwords: 3\ncharacters: 8\nbytes: 8")
      expect(outputOf(yield* count("empty.txt"))).toBe("lines: 0\nwords: 0\ncharacters: 0\nbytes: 0")
      // characters are code points (13), not bytes (23) nor UTF-16 units
      expect(outputOf(yield* count("unicode.txt"))).toBe("lines: 2\nwords: 4\ncharacters: 13\nbytes: 23")
    }))

  it.effect("words are split by each ASCII white space byte (tab to CR, and space), not by other characters", () =>
    Effect.gen(function*() {
      fixture.write("spaces.txt", "a\tb\u000bc\u000cd\re f\ng\u00a0h\u0008i  j")
      const out = outputOf(yield* count("spaces.txt"))
      Fs.rmSync(Path.join(fixture.ws, "spaces.txt"))
      // a..f are six words, "g\u00a0h\u0008i" one (no-break space and backspace are not white space), "j" one
      expect(out).toBe("lines: 2\nwords: 8\ncharacters: 20\nbytes: 21")
    }))

  it.effect("counts across chunk boundaries, streaming", () =>
    Effect.gen(function*() {
      // 3 MiB of a 16-byte line: every chunk boundary falls somewhere in a line
      fixture.write("chunks.txt", "word1 word2 é\n".repeat(3 * 65536))
      const out = outputOf(yield* count("chunks.txt"))
      Fs.rmSync(Path.join(fixture.ws, "chunks.txt"))
      expect(out).toBe(`lines: ${3 * 65536}\nwords: ${9 * 65536}\ncharacters: ${14 * 3 * 65536}\nbytes: ${15 * 3 * 65536}`)
    }))

  it.effect("a binary file, a directory, a missing file are errors", () =>
    Effect.gen(function*() {
      expect((yield* count("bin.dat")).error).toBe("\"bin.dat\" is a binary file (8 bytes), not UTF-8 text")
      expect((yield* count("src")).error).toBe("\"src\" is a directory, not a file")
      expect((yield* count("missing.txt")).error).toBe("\"missing.txt\" does not exist")
      expect(Option.isSome(traversalOf(yield* Effect.exit(count("out.txt"))))).toBe(true)
    }))

  it.effect("both are read-only ported file tools", () =>
    Effect.sync(() => {
      for (const tool of [fileInfo, countLines]) {
        expect(tool.spec.readOnly).toBe(true)
        expect(tool.tags).toEqual(["files", "ported"])
        expect(tool.pathFields).toEqual(["filepath"])
      }
    }))
})
