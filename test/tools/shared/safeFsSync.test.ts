/**
 * `safeFsSync.ts`, the synchronous operations the search walks use: a directory opened at a
 * path that is not its own real path is refused (and its descriptor closed), an entry is opened
 * through its directory's descriptor, and each failure is a `SafeFsError` naming what failed.
 * These run where descriptors have paths (`/proc/self/fd`); the device-and-inode check of other
 * systems is not reached here.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import type { SafeFsError } from "../../../src/tools/shared/safeFsError.js"
import * as Sync from "../../../src/tools/shared/safeFsSync.js"
import { failingSyncFor } from "../../helpers/fsCalls.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"

const base = Fs.realpathSync(makeTempDirSync("safe-fs-sync-"))
afterAll(() => Fs.rmSync(base, { recursive: true, force: true }))

Fs.mkdirSync(Path.join(base, "dir"))
Fs.writeFileSync(Path.join(base, "dir", "small.txt"), "hello")
Fs.writeFileSync(Path.join(base, "dir", "eight.txt"), "12345678")
Fs.mkdirSync(Path.join(base, "dir", "sub"))
Fs.symlinkSync(Path.join(base, "dir", "small.txt"), Path.join(base, "dir", "link.txt"))
Fs.symlinkSync(Path.join(base, "dir", "sub"), Path.join(base, "dir", "linkdir"))

/** What a synchronous call threw, as `[reason, message]`, or what it returned. */
const outcome = <A>(run: () => A): A | readonly [string, string] => {
  try {
    return run()
  } catch (error) {
    const failure = error as SafeFsError
    return [failure.reason, failure.message]
  }
}

const openDescriptors = (): number => Fs.readdirSync("/proc/self/fd").length

const changed = (path: string) =>
  ["Changed", `"${path}" changed while it was being opened (a symbolic link or a move replaced part of it); try again`]

describe.skipIf(process.platform !== "linux")("safeFsSync", () => {
  it("opens a directory at its real path, lists it and opens its entries through it", () => {
    const dir = Sync.openDirectorySync(Path.join(base, "dir"))
    try {
      expect(dir.path).toBe(Path.join(base, "dir"))
      const names = Sync.listDirectorySync(dir).map((entry) => `${entry.name}:${entry.isFile() ? "f" : entry.isDirectory() ? "d" : "l"}`)
      expect(names.sort()).toEqual(["eight.txt:f", "link.txt:l", "linkdir:l", "small.txt:f", "sub:d"])
      const fd = Sync.openChildFileSync(dir, "small.txt")
      try {
        expect(Sync.fileSizeSync(fd, "small.txt")).toBe(5)
        const buffer = Buffer.alloc(16)
        expect(Sync.readSync(fd, "small.txt", buffer, 2, 3, 1)).toBe(3)
        expect(buffer.subarray(2, 5).toString()).toBe("ell")
        expect(Sync.readSync(fd, "small.txt", buffer, 0, 16, 5)).toBe(0)
      } finally {
        Sync.closeSync(fd, "small.txt")
      }
      const sub = Sync.openChildDirectorySync(dir, "sub")
      try {
        expect(sub.path).toBe(Path.join(base, "dir", "sub"))
        expect(Sync.fileSizeSync(sub.fd, sub.path)).toBeUndefined()
        expect(Sync.listDirectorySync(sub)).toEqual([])
      } finally {
        Sync.closeSync(sub.fd, sub.path)
      }
    } finally {
      Sync.closeSync(dir.fd, dir.path)
    }
  })

  it("refuses a directory whose path is not its real path, and closes what it opened", () => {
    const before = openDescriptors()
    // the same directory, named with a trailing slash: not the real path it is bound to
    for (let i = 0; i < 20; i++) {
      expect(outcome(() => Sync.openDirectorySync(`${base}/dir/`))).toEqual(changed(`${base}/dir/`))
    }
    expect(openDescriptors()).toBeLessThan(before + 20)
  })

  it.effect("a check that cannot be made refuses the directory with the check's own error, and closes what it opened", () =>
    Effect.gen(function*() {
      const dir = Path.join(base, "dir")
      // reading /proc/self/fd/N back fails, as it may where descriptors have no such links
      yield* failingSyncFor("readlinkSync", "EIO")
      const before = openDescriptors()
      for (let i = 0; i < 20; i++) {
        expect(outcome(() => Sync.openDirectorySync(dir))).toEqual(["Io", `cannot check "${dir}": EIO`])
      }
      expect(openDescriptors()).toBeLessThan(before + 20)
    }))

  it.effect("a directory that cannot be listed or opened again names what failed", () =>
    Effect.gen(function*() {
      const dir = Sync.openDirectorySync(Path.join(base, "dir"))
      yield* Effect.addFinalizer(() => Effect.sync(() => Sync.closeSync(dir.fd, dir.path)))
      yield* failingSyncFor("readdirSync", "EIO")
      // opened again through its descriptor (/proc/self/fd/N/.)
      yield* failingSyncFor("openSync", "EMFILE", ".")
      expect(outcome(() => Sync.listDirectorySync(dir))).toEqual(["Io", `cannot list "${dir.path}": EIO`])
      expect(outcome(() => Sync.reopenDirectorySync(dir))).toEqual(["Io", `cannot open "${dir.path}": EMFILE`])
    }))

  it("refuses a symbolic link, as a directory or as a file, without following it", () => {
    const dir = Sync.openDirectorySync(Path.join(base, "dir"))
    try {
      // O_DIRECTORY with O_NOFOLLOW: Linux says ENOTDIR for a link
      expect(outcome(() => Sync.openChildDirectorySync(dir, "linkdir")))
        .toEqual(["NotDirectory", `"${Path.join(base, "dir", "linkdir")}" is not a directory`])
      expect(outcome(() => Sync.openChildFileSync(dir, "link.txt"))).toEqual(changed(Path.join(base, "dir", "link.txt")))
      expect(outcome(() => Sync.openChildFileSync(dir, "missing.txt")))
        .toEqual(["NotFound", `"${Path.join(base, "dir", "missing.txt")}" does not exist`])
    } finally {
      Sync.closeSync(dir.fd, dir.path)
    }
  })

  it("opens an entry through the directory's descriptor, whatever path the directory is shown with", () => {
    const dir = Sync.openDirectorySync(Path.join(base, "dir"))
    try {
      // the shown path is only for messages: the entry is the open directory's, and not checked again
      const fd = Sync.openChildFileSync({ fd: dir.fd, path: "/shown/elsewhere" }, "small.txt")
      try {
        expect(Sync.fileSizeSync(fd, "small.txt")).toBe(5)
      } finally {
        Sync.closeSync(fd, "small.txt")
      }
    } finally {
      Sync.closeSync(dir.fd, dir.path)
    }
  })

  it("names the operation that failed", () => {
    const long = Path.join(base, "n".repeat(300))
    expect(outcome(() => Sync.openDirectorySync(long))).toEqual(["Io", `cannot open "${long}": ENAMETOOLONG`])
    const dir = Sync.openDirectorySync(Path.join(base, "dir"))
    try {
      const entry = Path.join(base, "dir", "n".repeat(300))
      expect(outcome(() => Sync.openChildFileSync(dir, "n".repeat(300)))).toEqual(["Io", `cannot open "${entry}": ENAMETOOLONG`])
    } finally {
      Sync.closeSync(dir.fd, dir.path)
    }
    const fd = Fs.openSync(Path.join(base, "dir", "small.txt"), "r")
    Fs.closeSync(fd)
    expect(outcome(() => Sync.closeSync(fd, "closed.txt"))).toEqual(["Io", "cannot close \"closed.txt\": EBADF"])
    expect(outcome(() => Sync.readSync(fd, "closed.txt", Buffer.alloc(4), 0, 4, 0))).toEqual(["Io", "cannot read \"closed.txt\": EBADF"])
    expect(outcome(() => Sync.fileSizeSync(fd, "closed.txt"))).toEqual(["Io", "cannot stat \"closed.txt\": EBADF"])
  })

  it("reads a small entry whole, and leaves the long way to a file that fills the buffer or fails", () => {
    const dir = Sync.openDirectorySync(Path.join(base, "dir"))
    const before = openDescriptors()
    try {
      const buffer = Buffer.alloc(8)
      expect(Sync.readSmallChildSync(dir, "small.txt", buffer, 8)).toBe(5)
      expect(buffer.subarray(0, 5).toString()).toBe("hello")
      // exactly the buffer's length: it may go on
      expect(Sync.readSmallChildSync(dir, "eight.txt", buffer, 8)).toBeUndefined()
      expect(Sync.readSmallChildSync(dir, "eight.txt", Buffer.alloc(9), 9)).toBe(8)
      expect(Sync.readSmallChildSync(dir, "missing.txt", buffer, 8)).toBeUndefined()
      expect(Sync.readSmallChildSync(dir, "link.txt", buffer, 8)).toBeUndefined()
      // a directory opens but cannot be read
      expect(Sync.readSmallChildSync(dir, "sub", buffer, 8)).toBeUndefined()
      expect(openDescriptors()).toBe(before)
    } finally {
      Sync.closeSync(dir.fd, dir.path)
    }
  })
})
