/**
 * The directory of this process's descriptors: `/proc/PID/fd/` when `/proc/self` is this
 * process (no `self` link to resolve at each open), and an entry named through it is the
 * entry of the open directory, whatever the directory's path leads to later; so is a second
 * descriptor of the directory opened through the first.
 */
import { describe, expect, it, vi } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { childOf, fdDir, hasFdPaths } from "../../../src/tools/shared/safeFsNode.js"
import { closeSync, openDirectorySync, reopenDirectorySync } from "../../../src/tools/shared/safeFsSync.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"

describe.skipIf(process.platform !== "linux")("fdDir", () => {
  it("is /proc/PID/fd/ here, where /proc/self is this process", () => {
    expect(hasFdPaths()).toBe(true)
    expect(Fs.readlinkSync("/proc/self")).toBe(String(process.pid))
    expect(fdDir()).toBe(`/proc/${process.pid}/fd/`)
  })

  it("is found so by a fresh copy of the module too (both answers are kept after the first call)", async () => {
    vi.resetModules()
    const fresh = await import("../../../src/tools/shared/safeFsNode.js")
    expect(fresh.hasFdPaths()).toBe(true)
    expect(fresh.fdDir()).toBe(`/proc/${process.pid}/fd/`)
  })

  it("names an entry of the open directory, not of what its path leads to now", () => {
    const base = makeTempDirSync("fd-dir-")
    try {
      Fs.mkdirSync(Path.join(base, "a"))
      Fs.writeFileSync(Path.join(base, "a", "f.txt"), "inside")
      Fs.mkdirSync(Path.join(base, "out"))
      Fs.writeFileSync(Path.join(base, "out", "f.txt"), "SECRET")
      const dir = openDirectorySync(Path.join(base, "a"))
      try {
        const name = childOf(dir.fd, dir.path, "f.txt")
        expect(name).toBe(`${fdDir()}${dir.fd}/f.txt`)
        // the directory's path now leads elsewhere
        Fs.renameSync(Path.join(base, "a"), Path.join(base, "moved"))
        Fs.symlinkSync(Path.join(base, "out"), Path.join(base, "a"))
        expect(Fs.readFileSync(name, "utf8")).toBe("inside")
        // a second descriptor of it is the same directory too
        const again = reopenDirectorySync(dir)
        try {
          expect(again).toMatchObject({ path: dir.path })
          expect(again.fd).not.toBe(dir.fd)
          expect(Fs.readFileSync(childOf(again.fd, again.path, "f.txt"), "utf8")).toBe("inside")
          expect(Fs.fstatSync(again.fd).ino).toBe(Fs.fstatSync(dir.fd).ino)
        } finally {
          closeSync(again.fd, again.path)
        }
      } finally {
        closeSync(dir.fd, dir.path)
      }
    } finally {
      Fs.rmSync(base, { recursive: true, force: true })
    }
  })
})
