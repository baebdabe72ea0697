import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { FILE_INFO_COUNT_BYTES } from "../../../../src/tools/ported/reading/fileInfo.js"
import { FIRST_BLOCK_BYTES } from "../../../../src/tools/shared/safeFsRead.js"
import { call, makeWorkspace, outputOf } from "./harness.js"

let fixture: ReturnType<typeof makeWorkspace>
const MTIME = new Date("2023-01-02T03:04:05.000Z")
const iso = MTIME.toISOString()

/** Sets the mode and the modification time of a workspace path. */
const pin = (rel: string, mode: number) => {
  const path = Path.join(fixture.ws, rel)
  Fs.chmodSync(path, mode)
  Fs.utimesSync(path, MTIME, MTIME)
}

/** A file of `size` bytes: a first block of text lines ("line\n"), then zero bytes (sparse). */
const textThenZeros = (rel: string, size: number) => {
  const path = Path.join(fixture.ws, rel)
  Fs.writeFileSync(path, "line\n".repeat(Math.floor(FIRST_BLOCK_BYTES / 5)))
  Fs.truncateSync(path, size)
}

beforeAll(() => {
  fixture = makeWorkspace("file-info-edges-")
  const { write, ws } = fixture
  write("tree/one/a.txt", "a\n")
  write("tree/two/b.txt", "b\n")
  write("tree/c.txt", "c\n")
  write("many.txt", "x\n".repeat(100_000))
  write("no-final.txt", "a\nb")
  write("flat/one.txt", "only\n")
  write("flat/empty.txt", "")
  write("bin.dat", Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x01, 0x0a]))
  ChildProcess.execFileSync("mkfifo", [Path.join(ws, "pipe")])
  pin("tree", 0o751)
  pin("pipe", 0o604)
  pin("many.txt", 0o400)
  pin("no-final.txt", 0o777)
  pin("bin.dat", 0o000)
})

afterAll(() => fixture.remove())

const info = (filepath: string) => call(fixture.ws, "file_info", { filepath })

/** The whole output for a regular file. */
const fileOutput = (path: string, size: number, permissions: string, content: string) =>
  [`path: ${path}`, "type: file", `size: ${size} bytes`, `modified: ${iso}`, `permissions: ${permissions}`, `content: ${content}`]
    .join("\n")

describe("file_info: whole outputs", () => {
  it.effect("a directory: no size line, its entries counted by kind", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* info("tree"))).toBe([
        "path: tree",
        "type: directory",
        `modified: ${iso}`,
        "permissions: 751 (rwxr-x--x)",
        "entries: 3 (2 directories, 1 other entry)"
      ].join("\n"))
    }))

  it.effect("a directory of files only; a file of one line and an empty one", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* info("flat")).split("\n").at(-1)).toBe("entries: 2 (0 directories, 2 other entries)")
      expect(outputOf(yield* info("flat/one.txt")).split("\n").at(-1)).toBe("content: text, 1 line")
      expect(outputOf(yield* info("flat/empty.txt")).split("\n").at(-1)).toBe("content: text, 0 lines")
    }))

  it.effect("a FIFO: no size line, not opened", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* info("pipe").pipe(Effect.timeout("5 seconds")))).toBe([
        "path: pipe",
        "type: FIFO",
        `modified: ${iso}`,
        "permissions: 604 (rw----r--)",
        "content: not a regular file; not opened"
      ].join("\n"))
    }))

  it.effect("text files: lines past the first chunk are counted; a last line without a line feed counts", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* info("many.txt"))).toBe(fileOutput("many.txt", 200000, "400 (r--------)", "text, 100000 lines"))
      expect(outputOf(yield* info("no-final.txt"))).toBe(fileOutput("no-final.txt", 3, "777 (rwxrwxrwx)", "text, 2 lines"))
    }))

  it.effect("a small binary file", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* info("bin.dat"))).toBe(fileOutput("bin.dat", 8, "000 (---------)", "binary"))
    }))
})

describe("file_info: the counting limit", () => {
  it.effect("a file of exactly the limit is still counted", () =>
    Effect.gen(function*() {
      textThenZeros("at-limit.txt", FILE_INFO_COUNT_BYTES)
      const out = outputOf(yield* info("at-limit.txt"))
      Fs.rmSync(Path.join(fixture.ws, "at-limit.txt"))
      // the text lines, and the zeros after them as one last line without a line feed
      expect(out.split("\n").slice(2, 3)).toEqual([`size: ${FILE_INFO_COUNT_BYTES} bytes`])
      expect(out.split("\n").at(-1)).toBe(`content: text, ${Math.floor(FIRST_BLOCK_BYTES / 5) + 1} lines`)
    }))

  it.effect("a larger file is judged by its first block: text, or binary", () =>
    Effect.gen(function*() {
      textThenZeros("over.txt", FILE_INFO_COUNT_BYTES + 1)
      pin("over.txt", 0o644)
      const text = outputOf(yield* info("over.txt"))
      Fs.rmSync(Path.join(fixture.ws, "over.txt"))
      expect(text).toBe(fileOutput(
        "over.txt",
        FILE_INFO_COUNT_BYTES + 1,
        "644 (rw-r--r--)",
        `text (lines not counted above ${FILE_INFO_COUNT_BYTES} bytes; count_lines counts them)`
      ))
      const zeros = Path.join(fixture.ws, "zeros.bin")
      Fs.writeFileSync(zeros, "")
      Fs.truncateSync(zeros, FILE_INFO_COUNT_BYTES + 1)
      pin("zeros.bin", 0o644)
      const binary = outputOf(yield* info("zeros.bin"))
      Fs.rmSync(zeros)
      expect(binary.split("\n").slice(2)).toEqual([
        `size: ${FILE_INFO_COUNT_BYTES + 1} bytes`,
        `modified: ${iso}`,
        "permissions: 644 (rw-r--r--)",
        "content: binary"
      ])
    }))
})

describe("file_info: errors", () => {
  it.effect("a path below a missing directory or below a file: the error names the whole path", () =>
    Effect.gen(function*() {
      expect((yield* info("nodir/x.txt")).error).toBe("\"nodir/x.txt\" does not exist")
      expect((yield* info("tree/c.txt/x")).error).toBe("\"tree/c.txt/x\" is not a directory")
    }))
})
