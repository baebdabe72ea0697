/**
 * `safeFsRead.ts` across its first block (64 KiB, the one binary detection looks at) and the
 * chunks after it: a character cut by the block's end is still text, a NUL byte after the first
 * block does not make a file binary, and the lines after the ones asked for are counted to the
 * last byte read.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { openFile } from "../../../src/tools/shared/safeFs.js"
import { FIRST_BLOCK_BYTES, readFirstLines, readText } from "../../../src/tools/shared/safeFsRead.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"

const base = makeTempDirSync("safe-fs-read-blocks-")
afterAll(() => Fs.rmSync(base, { recursive: true, force: true }))

const fileWith = (name: string, content: string | Buffer) => {
  const path = Path.join(base, name)
  Fs.writeFileSync(path, content)
  return path
}

const firstLines = (path: string, maxLines: number, maxBytes = 1000) =>
  Effect.flatMap(openFile(path), (file) => readFirstLines(file, { maxLines, maxBytes, readBytes: 1 << 20 }))

describe("the first block and the chunks after it", () => {
  it.effect("reads as text a file whose first block ends inside a two-byte character", () =>
    Effect.gen(function*() {
      // "é" is 2 bytes: its first at the block's last byte, its second after it
      const text = `${"a".repeat(FIRST_BLOCK_BYTES - 1)}é${"b\n".repeat(1000)}`
      const path = fileWith("cut-char.txt", text)
      expect(yield* Effect.flatMap(openFile(path), (file) => readText(file, 1 << 20))).toBe(text)
      const head = yield* firstLines(path, 1)
      expect(head).toMatchObject({ _tag: "Capped", line: 1 })
    }))

  it.effect("looks for binary content in the first block only: a NUL byte after it is read as text", () =>
    Effect.gen(function*() {
      const text = `first\n${"x".repeat(FIRST_BLOCK_BYTES)}\n\u0000late\n`
      const path = fileWith("late-nul.txt", text)
      expect(yield* Effect.flatMap(openFile(path), (file) => readText(file, 1 << 20))).toBe(text)
      expect(yield* firstLines(path, 1)).toEqual({ _tag: "Head", text: "first", moreLines: 2, exact: true })
      // the lines asked for go on past the first block, to the NUL's line
      expect(yield* firstLines(path, 3, 1 << 20)).toEqual({ _tag: "Whole", text })
    }))

  it.effect("refuses a file with a NUL byte in its first block when reading its first lines", () =>
    Effect.gen(function*() {
      const path = fileWith("early-nul.bin", Buffer.from("one\ntwo\u0000\nthree\n"))
      const error = yield* Effect.flip(firstLines(path, 1))
      expect(error._tag).toBe("BinaryFile")
    }))

  it.effect("counts the lines after the first ones to the last byte read, with or without a final newline", () =>
    Effect.gen(function*() {
      // 8-byte lines, more than a first block of them, so the count goes on in a second read
      const lines = FIRST_BLOCK_BYTES / 8 + 100
      const withNewline = fileWith("lines-nl.txt", "abcdefg\n".repeat(lines))
      expect(yield* firstLines(withNewline, 1)).toEqual({ _tag: "Head", text: "abcdefg", moreLines: lines - 1, exact: true })
      const without = fileWith("lines-no-nl.txt", `${"abcdefg\n".repeat(lines)}abcdef`)
      expect(yield* firstLines(without, 1)).toEqual({ _tag: "Head", text: "abcdefg", moreLines: lines, exact: true })
      const withoutAndLonger = fileWith("lines-no-nl-7.txt", `${"abcdefg\n".repeat(lines)}abcdefg`)
      expect(yield* firstLines(withoutAndLonger, 1)).toEqual({ _tag: "Head", text: "abcdefg", moreLines: lines, exact: true })
    }))
})
