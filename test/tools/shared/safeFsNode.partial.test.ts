/**
 * `safeFsNode.ts` where the system does less than asked: a `write` that takes only part of the
 * bytes (a pipe, a full disk's last blocks, a signal), and a `/proc` mount of another PID
 * namespace, where `/proc/PID/fd/` is not this process's and `/proc/self/fd/` must be used.
 */
import { afterAll, describe, expect, it, vi } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { writeAll } from "../../../src/tools/shared/safeFsNode.js"
import { replaceBuiltinExport } from "../../helpers/replaceBuiltin.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"

const base = makeTempDirSync("safe-fs-node-partial-")
afterAll(() => Fs.rmSync(base, { recursive: true, force: true }))

type WriteCall = (fd: number, buffer: Uint8Array, offset: number, length: number, position: number, done: unknown) => void

describe("writeAll", () => {
  it.live("writes every byte at its place when each write takes at most 3 bytes", () =>
    Effect.gen(function*() {
      const path = Path.join(base, "short-writes.txt")
      Fs.writeFileSync(path, "0123456789abcdefghij")
      const fd = Fs.openSync(path, "r+")
      const lengths: Array<number> = []
      const restore = replaceBuiltinExport<WriteCall>("node:fs", "write", (original) => (fd, buffer, offset, length, position, done) => {
        lengths.push(length)
        original(fd, buffer, offset, Math.min(length, 3), position, done)
      })
      try {
        yield* writeAll(fd, path, Buffer.from("HELLO, WORLD"), 4)
      } finally {
        restore()
        Fs.closeSync(fd)
      }
      expect(Fs.readFileSync(path, "utf8")).toBe("0123HELLO, WORLDghij")
      // each call asked for what was left
      expect(lengths).toEqual([12, 9, 6, 3])
    }))
})

describe("fdDir", () => {
  it("is /proc/self/fd/ where /proc/self is not this process's PID (a /proc of another namespace)", async () => {
    const restore = replaceBuiltinExport<(...args: Array<unknown>) => unknown>("node:fs", "readlinkSync", (original) => (...args) =>
      args[0] === "/proc/self" ? "1" : original(...args))
    try {
      vi.resetModules()
      const fresh = await import("../../../src/tools/shared/safeFsNode.js")
      expect(fresh.fdDir()).toBe("/proc/self/fd/")
      // and an entry of an open directory is read through it
      Fs.writeFileSync(Path.join(base, "entry.txt"), "through /proc/self")
      const dir = Fs.openSync(base, "r")
      try {
        const name = fresh.childOf(dir, base, "entry.txt")
        expect(name).toBe(`/proc/self/fd/${dir}/entry.txt`)
        expect(Fs.readFileSync(name, "utf8")).toBe("through /proc/self")
      } finally {
        Fs.closeSync(dir)
      }
    } finally {
      restore()
      vi.resetModules()
    }
  })
})
