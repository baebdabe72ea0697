/**
 * One file searched by `search_files`, on real files, without the walk or the workers around
 * it: `searchWhole`'s binary judgement for each kind of matcher, `searchSmallSync`'s first
 * block, the file that fills the buffer, and `searchStreamed`'s lines across chunk boundaries,
 * a line longer than the piece it is searched in, a last line without a line feed and the hit
 * limit. The tool's tests search trees, where most files are small text and these edges hide.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { openDirectory } from "../../../../src/tools/shared/safeFs.js"
import { FIRST_BLOCK_BYTES } from "../../../../src/tools/shared/safeFsRead.js"
import {
  type Outcome,
  searchSmallSync,
  searchStreamed,
  searchWhole,
  SYNC_MAX_BYTES
} from "../../../../src/tools/ported/reading/searchFile.js"
import { compileMatcher, type Matcher } from "../../../../src/tools/ported/reading/searchMatch.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"

const base = makeTempDirSync("search-file-")
afterAll(() => fs.rmSync(base, { recursive: true, force: true }))

const matcher = (pattern: string, options: { regex?: boolean; caseSensitive?: boolean } = {}): Matcher => {
  const compiled = compileMatcher(pattern, { regex: options.regex ?? false, caseSensitive: options.caseSensitive ?? true })
  if (Result.isFailure(compiled)) throw new Error(compiled.failure)
  return compiled.success
}
const literal = matcher("needle")
const regex = matcher("nee+dle", { regex: true })
const caseless = matcher("NEEDLE", { caseSensitive: false })

const write = (name: string, data: string | Buffer): string => {
  const file = path.join(base, name)
  fs.writeFileSync(file, data)
  return file
}

/** `searchSmallSync` of `name` in `base`, with a buffer of `SYNC_MAX_BYTES`. */
const small = (name: string, m: Matcher, limit = 100) =>
  Effect.scoped(Effect.map(openDirectory(base), (dir) => searchSmallSync(dir, name, m, limit, Buffer.alloc(SYNC_MAX_BYTES))))

const lines = (outcome: Outcome): Array<number> => {
  if (outcome._tag !== "Searched") throw new Error(`expected hits, got ${outcome._tag}`)
  return outcome.hits.map((hit) => hit.line)
}

const binaryBytes = Buffer.concat([Buffer.from("a needle here\n"), Buffer.from([0, 1, 2, 0]), Buffer.from("\nneedle again\n")])
const binaryWithout = Buffer.concat([Buffer.from("nothing here\n"), Buffer.from([0, 1, 2, 0])])

describe("searchWhole", () => {
  it("judges binary content before searching for an expression or a caseless literal", () => {
    expect(searchWhole(binaryWithout, false, regex, 10)).toEqual({ _tag: "Binary" })
    expect(searchWhole(binaryWithout, false, caseless, 10)).toEqual({ _tag: "Binary" })
    expect(searchWhole(binaryBytes, false, regex, 10)).toEqual({ _tag: "Binary" })
  })

  it("a case-sensitive literal judges only bytes where it was found", () => {
    expect(searchWhole(binaryWithout, false, literal, 10)).toEqual({ _tag: "Searched", hits: [], partial: false })
    expect(searchWhole(binaryBytes, false, literal, 10)).toEqual({ _tag: "Binary" })
  })

  it("judges nothing when the caller has judged the bytes", () => {
    expect(lines(searchWhole(binaryBytes, true, literal, 10))).toEqual([1, 3])
    expect(lines(searchWhole(binaryBytes, true, regex, 10))).toEqual([1, 3])
  })

  it("finds the lines of text, up to the limit", () => {
    const text = Buffer.from("needle\nno\nneedle\nneeedle\n")
    expect(searchWhole(text, false, literal, 10)).toEqual({
      _tag: "Searched",
      hits: [{ line: 1, text: "needle" }, { line: 3, text: "needle" }],
      partial: false
    })
    expect(lines(searchWhole(text, false, regex, 2))).toEqual([1, 3])
  })
})

describe("searchSmallSync", () => {
  it.effect("a small file is searched whole; a small binary file is judged binary", () =>
    Effect.gen(function*() {
      write("small.txt", "x\nneedle\n")
      expect(lines(yield* small("small.txt", literal))).toEqual([2])
      write("small.bin", binaryWithout)
      expect(yield* small("small.bin", regex)).toEqual({ _tag: "Binary" })
      write("small-hit.bin", binaryBytes)
      expect(yield* small("small-hit.bin", literal)).toEqual({ _tag: "Binary" })
      // the whole file is in hand: a character its end cuts in half is no text
      write("small-cut.txt", Buffer.concat([Buffer.from("needle\n"), Buffer.from([0xc3])]))
      expect(yield* small("small-cut.txt", regex)).toEqual({ _tag: "Binary" })
    }))

  it.effect("a file over one block is binary by its first block; one read to the end is searched whole", () =>
    Effect.gen(function*() {
      write("big.bin", Buffer.concat([Buffer.from([0]), Buffer.alloc(FIRST_BLOCK_BYTES * 2, 0x61), Buffer.from("\nneedle\n")]))
      expect(yield* small("big.bin", literal)).toEqual({ _tag: "Binary" })
      // text of 200 KiB: read on past the first block, a hit in its last line
      const body = "filler line\n".repeat(Math.floor((200 * 1024) / 12))
      write("big.txt", `needle first\n${body}needle last\n`)
      const hits = lines(yield* small("big.txt", literal))
      expect(hits).toEqual([1, body.split("\n").length + 1])
      // judged by its first block only: a byte that is no UTF-8 further on does not make it binary
      write("late-junk.txt", Buffer.concat([Buffer.from(`needle first\n${body}`), Buffer.from([0xff]), Buffer.from("\nneedle last\n")]))
      expect(lines(yield* small("late-junk.txt", literal))).toEqual([1, body.split("\n").length + 2])
    }))

  it.effect("a first block that ends inside a character is not binary: the file goes on", () =>
    Effect.gen(function*() {
      // one byte, then two-byte characters: the block's end cuts one in half
      const text = `a${"é".repeat(FIRST_BLOCK_BYTES)}\nneedle\n`
      expect(Buffer.byteLength(text)).toBeGreaterThan(FIRST_BLOCK_BYTES)
      write("cut.txt", text)
      expect(lines(yield* small("cut.txt", caseless))).toEqual([2])
    }))

  it.effect("a file as big as the buffer, or bigger, is left for streaming", () =>
    Effect.gen(function*() {
      write("fits.txt", `${"a".repeat(SYNC_MAX_BYTES - 8)}\nneedle`)
      expect(fs.statSync(path.join(base, "fits.txt")).size).toBe(SYNC_MAX_BYTES - 1)
      expect(lines(yield* small("fits.txt", literal))).toEqual([2])
      write("full.txt", `${"a".repeat(SYNC_MAX_BYTES - 7)}\nneedle`)
      expect(yield* small("full.txt", literal)).toEqual({ _tag: "Large" })
    }))

  it.effect.skipIf(process.platform !== "linux")("closes each file it opened, whatever it found in it", () =>
    Effect.gen(function*() {
      const openNow = () => fs.readdirSync("/proc/self/fd").length
      write("closed.txt", "needle\n")
      write("closed-large.txt", "needle\n".repeat(SYNC_MAX_BYTES / 4))
      write("closed.bin", binaryBytes)
      const before = openNow()
      for (let i = 0; i < 20; i++) {
        for (const name of ["closed.txt", "closed-large.txt", "closed.bin"]) yield* small(name, literal)
      }
      expect(openNow()).toBe(before)
    }))

  it.effect("an entry that is no regular file is unreadable, named by its path in the directory", () =>
    Effect.gen(function*() {
      fs.mkdirSync(path.join(base, "sub"), { recursive: true })
      const outcome = yield* small("sub", literal)
      expect(outcome._tag).toBe("Unreadable")
      if (outcome._tag === "Unreadable") expect(outcome.error.path).toBe(path.join(base, "sub"))
      const missing = yield* small("missing.txt", literal)
      expect(missing._tag).toBe("Unreadable")
      if (missing._tag === "Unreadable") expect(missing.error.path).toBe(path.join(base, "missing.txt"))
    }))
})

describe("searchStreamed", () => {
  it.effect("numbers lines right across chunk boundaries", () =>
    Effect.gen(function*() {
      // lines of many lengths, a needle every 997th line: some of them straddle a chunk's end
      const all: Array<string> = []
      const expected: Array<number> = []
      for (let i = 1; i <= 60_000; i++) {
        const filler = "x".repeat((i * 37) % 90)
        if (i % 997 === 0) {
          all.push(`${filler}needle ${i}`)
          expected.push(i)
        } else {
          all.push(filler)
        }
      }
      const file = write("streamed.txt", `${all.join("\n")}\n`)
      expect(fs.statSync(file).size).toBeGreaterThan(2 * 1024 * 1024)
      const outcome = yield* searchStreamed(file, literal, 1000)
      expect(outcome).toMatchObject({ _tag: "Searched", partial: false })
      expect(lines(outcome)).toEqual(expected)
      if (outcome._tag === "Searched") {
        for (const hit of outcome.hits) expect(hit.text.endsWith(`needle ${hit.line}`)).toBe(true)
      }
      // the same with a caseless literal (the text path) and with an expression
      expect(lines(yield* searchStreamed(file, caseless, 1000))).toEqual(expected)
      expect(lines(yield* searchStreamed(file, regex, 1000))).toEqual(expected)
    }))

  it.effect("finds a match that a chunk's end cuts in two, on short lines and on a line longer than a piece", () =>
    Effect.gen(function*() {
      // 100-byte lines; a needle across the end of the first block, of the next chunk, and of the one after
      const bytes = Buffer.alloc(3 * 1024 * 1024, "x".repeat(99) + "\n")
      const cuts = [FIRST_BLOCK_BYTES, FIRST_BLOCK_BYTES + 1024 * 1024, FIRST_BLOCK_BYTES + 2 * 1024 * 1024]
      for (const cut of cuts) bytes.write("needle", cut - 3)
      const file = write("cut-chunks.txt", bytes)
      expect(lines(yield* searchStreamed(file, literal, 10))).toEqual(cuts.map((cut) => Math.floor(cut / 100) + 1))
      expect(lines(yield* searchStreamed(file, regex, 10))).toEqual(cuts.map((cut) => Math.floor(cut / 100) + 1))

      // one line of 3 MiB: pieces of 1 MiB at most, but not cut at every chunk
      const long = Buffer.alloc(3 * 1024 * 1024, "y")
      long.write("needle", FIRST_BLOCK_BYTES - 3)
      const longFile = write("cut-long-line.txt", Buffer.concat([long, Buffer.from("\nneedle\n")]))
      expect(lines(yield* searchStreamed(longFile, literal, 10))).toEqual([1, 2])
    }))

  it.effect("stops at the limit", () =>
    Effect.gen(function*() {
      const file = path.join(base, "streamed.txt")
      const outcome = yield* searchStreamed(file, literal, 3)
      expect(lines(outcome)).toEqual([997, 1994, 2991])
      expect(outcome).toMatchObject({ partial: false })
    }))

  it.effect("a line longer than a piece is searched in pieces, and the lines after it keep their numbers", () =>
    Effect.gen(function*() {
      const long = `needle${"y".repeat(3 * 1024 * 1024)}`
      const file = write("long-line.txt", `${long}\nsecond\nneedle on three\n`)
      expect(lines(yield* searchStreamed(file, literal, 10))).toEqual([1, 3])
    }))

  it.effect("a line longer than a piece is never held whole, and put out once however many of its pieces match", () =>
    Effect.gen(function*() {
      // pieces of 1 MiB or more: the first block and the next chunk, then each chunk; a needle in each
      const long = Buffer.alloc(3 * 1024 * 1024, "y")
      for (const at of [0, FIRST_BLOCK_BYTES + 1024 * 1024 + 10, 3 * 1024 * 1024 - 10]) long.write("needle", at)
      const file = write("pieces.txt", Buffer.concat([long, Buffer.from("\nneedle\n")]))
      expect(lines(yield* searchStreamed(file, literal, 10))).toEqual([1, 2])
    }))

  it.effect("finds a match on a last line without a line feed", () =>
    Effect.gen(function*() {
      const file = write("no-final-newline.txt", `${"z\n".repeat(100_000)}last needle`)
      expect(lines(yield* searchStreamed(file, literal, 10))).toEqual([100_001])
      expect(lines(yield* searchStreamed(file, regex, 10))).toEqual([100_001])
    }))

  it.effect("a binary file is judged by its first block", () =>
    Effect.gen(function*() {
      const file = write("streamed.bin", Buffer.concat([Buffer.from([0]), Buffer.from("\nneedle\n".repeat(100_000))]))
      expect(yield* searchStreamed(file, literal, 10)).toEqual({ _tag: "Binary" })
    }))
})
