/**
 * `readSmallChildSync` when closing the file fails (`EIO` from `close`, a failing disk or
 * network file system): it answers `undefined`, so that the caller takes the long way, which
 * reports the failure, rather than using bytes from a file it could not close cleanly.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Sync from "../../../src/tools/shared/safeFsSync.js"
import { replaceBuiltinExport } from "../../helpers/replaceBuiltin.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"

const base = makeTempDirSync("safe-fs-sync-close-")
afterAll(() => Fs.rmSync(base, { recursive: true, force: true }))

describe("readSmallChildSync", () => {
  it.skipIf(process.platform !== "linux")("answers undefined when the file read cannot be closed, and the file when it can", () => {
    Fs.writeFileSync(Path.join(base, "small.txt"), "hello")
    const dir = Sync.openDirectorySync(base)
    const buffer = new Uint8Array(64)
    try {
      expect(Sync.readSmallChildSync(dir, "small.txt", buffer, 64)).toBe(5)
      const restore = replaceBuiltinExport<(fd: number) => void>("node:fs", "closeSync", (original) => (fd) => {
        original(fd)
        throw Object.assign(new Error("EIO: i/o error, close"), { code: "EIO", syscall: "close" })
      })
      let answer: number | undefined
      try {
        answer = Sync.readSmallChildSync(dir, "small.txt", buffer, 64)
      } finally {
        restore()
      }
      expect(answer).toBeUndefined()
    } finally {
      Sync.closeSync(dir.fd, dir.path)
    }
  })
})
