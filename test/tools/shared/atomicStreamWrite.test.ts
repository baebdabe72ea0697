/**
 * `atomicStreamWrite.ts` below the tools: the byte cap counts every chunk written so far, a
 * stream of exactly `maxBytes` is written whole, one byte more stops it with nothing left.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Result, Stream } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { StreamTooLarge, writeStreamAtomic } from "../../../src/tools/shared/atomicStreamWrite.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"

const root = makeTempDirSync("atomic-stream-write-")
afterAll(() => Fs.rmSync(root, { recursive: true, force: true }))

const chunks = (...texts: ReadonlyArray<string>) => Stream.fromIterable(texts.map((text) => Buffer.from(text, "utf8")))

describe("writeStreamAtomic", () => {
  it.effect("chunks that add up to exactly the cap are written whole, in order", () =>
    Effect.gen(function*() {
      const file = Path.join(root, "exact", "f.bin")
      expect(yield* writeStreamAtomic(root, file, chunks("abc", "def", "g"), 7)).toEqual({ replaced: false, bytes: 7 })
      expect(Fs.readFileSync(file, "utf8")).toBe("abcdefg")
    }))

  it.effect("a chunk that takes the total past the cap stops the stream: StreamTooLarge, the old file kept, no temp file", () =>
    Effect.gen(function*() {
      const dir = Path.join(root, "past")
      Fs.mkdirSync(dir)
      const file = Path.join(dir, "f.bin")
      Fs.writeFileSync(file, "old")
      // each chunk alone is under the cap; the second one takes the total to 6 > 5
      const result = yield* Effect.result(writeStreamAtomic(root, file, chunks("abc", "def"), 5))
      expect(result).toEqual(Result.fail(new StreamTooLarge({ maxBytes: 5 })))
      expect(Fs.readFileSync(file, "utf8")).toBe("old")
      expect(Fs.readdirSync(dir)).toEqual(["f.bin"])
    }))
})
