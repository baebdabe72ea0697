/**
 * `readChunks` and `countNewlines` (`reading/chunks.ts`) on real files: the whole file in
 * order, in chunks of at most 1 MiB after a first block of 64 KiB; a budget that stops the
 * read where it is reached; the callback stopping it; the first block checked for binary
 * content before any chunk is handed over.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { CHUNK_BYTES, countNewlines, readChunks } from "../../../../src/tools/ported/reading/chunks.js"
import { openFile } from "../../../../src/tools/shared/safeFs.js"
import { FIRST_BLOCK_BYTES } from "../../../../src/tools/shared/safeFsRead.js"
import { tempDir } from "../../../helpers/tempDir.js"

/** Reads `path` with `budget`, collecting the chunks' sizes and bytes; `stopAfter` chunks at most. */
const chunksOf = (path: string, budget: number, stopAfter = Infinity) =>
  Effect.scoped(Effect.gen(function*() {
    const file = yield* openFile(path)
    const sizes: Array<number> = []
    const parts: Array<Buffer> = []
    const read = yield* readChunks(file, budget, (bytes) => {
      sizes.push(bytes.length)
      parts.push(Buffer.from(bytes))
      return sizes.length < stopAfter
    })
    return { read, sizes, bytes: Buffer.concat(parts) }
  }))

describe("readChunks", () => {
  it.effect("hands over the whole file in order: a first block of 64 KiB, then chunks of at most 1 MiB", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("chunks-")
      const size = FIRST_BLOCK_BYTES + 2 * CHUNK_BYTES + 123
      const content = Buffer.alloc(size)
      for (let i = 0; i < size; i++) content[i] = 97 + (i % 26)
      const path = Path.join(dir, "big.txt")
      Fs.writeFileSync(path, content)
      const all = yield* chunksOf(path, Infinity)
      expect(all.read).toEqual({ read: size, complete: true })
      expect(all.sizes).toEqual([FIRST_BLOCK_BYTES, CHUNK_BYTES, CHUNK_BYTES, 123])
      expect(all.bytes.equals(content)).toBe(true)
      // a budget stops the read once it is reached, the last read cut to it
      const budgeted = yield* chunksOf(path, FIRST_BLOCK_BYTES + 1000)
      expect(budgeted.read).toEqual({ read: FIRST_BLOCK_BYTES + 1000, complete: false })
      expect(budgeted.sizes).toEqual([FIRST_BLOCK_BYTES, 1000])
      // a budget of exactly the file's size reads it whole; one byte less does not
      const exact = yield* chunksOf(path, size)
      expect(exact.read).toEqual({ read: size, complete: true })
      expect((yield* chunksOf(path, size - 1)).read).toEqual({ read: size - 1, complete: false })
      // the callback stops it
      const stopped = yield* chunksOf(path, Infinity, 2)
      expect(stopped.read).toEqual({ read: FIRST_BLOCK_BYTES + CHUNK_BYTES, complete: false })
      expect(stopped.sizes).toHaveLength(2)
    }))

  it.effect("a small file is one chunk; an empty one none, complete", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("chunks-small-")
      Fs.writeFileSync(Path.join(dir, "small.txt"), "a\nb\n")
      Fs.writeFileSync(Path.join(dir, "empty.txt"), "")
      const small = yield* chunksOf(Path.join(dir, "small.txt"), Infinity)
      expect(small).toMatchObject({ read: { read: 4, complete: true }, sizes: [4] })
      const empty = yield* chunksOf(Path.join(dir, "empty.txt"), Infinity)
      expect(empty).toMatchObject({ read: { read: 0, complete: true }, sizes: [] })
    }))

  it.effect("a binary first block is refused before any chunk is handed over, however it ends", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("chunks-binary-")
      Fs.writeFileSync(Path.join(dir, "nul.bin"), Buffer.concat([Buffer.from("text"), Buffer.from([0]), Buffer.from("more")]))
      // a file longer than the first block whose block ends inside a UTF-8 character is text
      const euro = Buffer.from("€")
      const text = Buffer.concat([Buffer.alloc(FIRST_BLOCK_BYTES - 1, 0x61), euro, Buffer.from("tail")])
      Fs.writeFileSync(Path.join(dir, "cut.txt"), text)
      const refused = yield* Effect.flip(chunksOf(Path.join(dir, "nul.bin"), Infinity))
      expect(refused._tag).toBe("BinaryFile")
      const cut = yield* chunksOf(Path.join(dir, "cut.txt"), Infinity)
      expect(cut.bytes.equals(text)).toBe(true)
    }))
})

describe("countNewlines", () => {
  it("counts line feeds only", () => {
    expect(countNewlines(Buffer.from(""))).toBe(0)
    expect(countNewlines(Buffer.from("no newline"))).toBe(0)
    expect(countNewlines(Buffer.from("\n"))).toBe(1)
    expect(countNewlines(Buffer.from("a\r\nb\rc\n\n"))).toBe(3)
  })
})
