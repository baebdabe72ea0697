/**
 * The messages of the bound file operations' failures, which a tool passes on to the model as
 * they are: each names the path and says what was found there.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { openFile } from "../../../src/tools/shared/safeFs.js"
import { readText } from "../../../src/tools/shared/safeFsRead.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"

const base = makeTempDirSync("safe-fs-messages-")
afterAll(() => Fs.rmSync(base, { recursive: true, force: true }))
const at = (name: string) => Path.join(base, name)

describe("failure messages", () => {
  it.effect("a directory opened as a file", () =>
    Effect.gen(function*() {
      Fs.mkdirSync(at("dir"))
      const error = yield* Effect.flip(openFile(at("dir")))
      expect(error.reason).toBe("IsDirectory")
      expect(error.message).toBe(`"${at("dir")}" is a directory, not a file`)
    }))

  it.effect("a FIFO opened as a file", () =>
    Effect.gen(function*() {
      ChildProcess.execFileSync("mkfifo", [at("fifo")])
      const error = yield* Effect.flip(openFile(at("fifo")))
      expect(error.reason).toBe("NotRegularFile")
      expect(error.message).toBe(`"${at("fifo")}" is a FIFO, not a regular file; it was not read`)
    }))

  it.effect("a file over the whole-file limit", () =>
    Effect.gen(function*() {
      Fs.writeFileSync(at("big.txt"), "x".repeat(100))
      const error = yield* Effect.flip(Effect.flatMap(openFile(at("big.txt")), (file) => readText(file, 10)))
      expect(error._tag).toBe("FileTooLarge")
      expect(error.message).toBe(`"${at("big.txt")}" is 100 bytes, over the 10-byte limit of a whole-file read`)
    }))

  it.effect("a binary file read as text", () =>
    Effect.gen(function*() {
      Fs.writeFileSync(at("bin"), Buffer.from([0x68, 0x00, 0x69, 0x00]))
      const error = yield* Effect.flip(Effect.flatMap(openFile(at("bin")), (file) => readText(file, 1000)))
      expect(error._tag).toBe("BinaryFile")
      expect(error.message).toBe(`"${at("bin")}" is a binary file (4 bytes), not UTF-8 text`)
    }))
})
