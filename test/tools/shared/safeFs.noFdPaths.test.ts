/**
 * The bound file operations on a system whose descriptors have no paths (no `/proc/self/fd`, as
 * on macOS): played here by a fresh copy of the modules loaded while `node:fs` says there is no
 * `/proc/self/fd` and cannot read a link under `/proc`. A descriptor is then checked by device
 * and inode at its expected path, whose directory must be real; an entry of an open directory
 * is opened by its joined path and checked afterwards.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { replaceBuiltinExport } from "../../helpers/replaceBuiltin.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"

type SafeFs = typeof import("../../../src/tools/shared/safeFs.js")
type SafeFsSync = typeof import("../../../src/tools/shared/safeFsSync.js")
type SafeFsNode = typeof import("../../../src/tools/shared/safeFsNode.js")

let base: string
let safeFs: SafeFs
let sync: SafeFsSync
let node: SafeFsNode
const restores: Array<() => void> = []

const noProc = (path: unknown) => typeof path === "string" && path.startsWith("/proc/")
const enoent = (path: string) => Object.assign(new Error(`ENOENT: no such file or directory, '${path}'`), { code: "ENOENT" })

beforeAll(async () => {
  base = makeTempDirSync("safe-fs-no-fd-paths-")
  Fs.mkdirSync(Path.join(base, "real"))
  Fs.writeFileSync(Path.join(base, "real", "f.txt"), "inside")
  Fs.symlinkSync("real", Path.join(base, "link"))
  restores.push(
    replaceBuiltinExport<(path: Fs.PathLike) => boolean>("node:fs", "existsSync", (original) => (path) =>
      noProc(path) ? false : original(path)),
    replaceBuiltinExport<(...args: Array<unknown>) => unknown>("node:fs", "readlinkSync", (original) => (...args) => {
      if (noProc(args[0])) throw enoent(String(args[0]))
      return original(...args)
    })
  )
  vi.resetModules()
  node = await import("../../../src/tools/shared/safeFsNode.js")
  safeFs = await import("../../../src/tools/shared/safeFs.js")
  sync = await import("../../../src/tools/shared/safeFsSync.js")
})

afterAll(() => {
  for (const restore of restores.reverse()) restore()
  vi.resetModules()
  Fs.rmSync(base, { recursive: true, force: true })
})

const at = (...parts: Array<string>) => Path.join(base, ...parts)

/** What a synchronous call threw (its `reason`), or `"ok"`. */
const reasonOf = (run: () => unknown): string => {
  try {
    run()
    return "ok"
  } catch (error) {
    return error instanceof Error && "reason" in error ? String(error.reason) : String(error)
  }
}

describe("where descriptors have no paths", () => {
  it("is such a system: no descriptor paths, and an entry is named by its joined path", () => {
    expect(node.hasFdPaths()).toBe(false)
    expect(node.childOf(3, at("real"), "f.txt")).toBe(at("real", "f.txt"))
  })

  it.effect("isAt: true for the file at its path, false once another file or nothing is there", () =>
    Effect.gen(function*() {
      const path = at("real", "at.txt")
      Fs.writeFileSync(path, "first")
      const file = yield* safeFs.openFile(path)
      expect(yield* safeFs.isAt(file.fd, path)).toBe(true)
      // another file put at the path: same directory, other inode
      Fs.renameSync(path, at("real", "at-moved.txt"))
      Fs.writeFileSync(path, "second")
      expect(yield* safeFs.isAt(file.fd, path)).toBe(false)
      // nothing at the path
      Fs.rmSync(path)
      expect(yield* safeFs.isAt(file.fd, path)).toBe(false)
      // the file's new place is where it is
      expect(yield* safeFs.isAt(file.fd, at("real", "at-moved.txt"))).toBe(true)
    }))

  it.effect("isAt: false for the right file reached through a symbolic link in its directory's path", () =>
    Effect.gen(function*() {
      const file = yield* safeFs.openFile(at("real", "f.txt"))
      expect(yield* safeFs.isAt(file.fd, at("real", "f.txt"))).toBe(true)
      expect(yield* safeFs.isAt(file.fd, at("link", "f.txt"))).toBe(false)
    }))

  it("openDirectorySync: opens a real directory, refuses one reached through a linked parent (and closes it)", () => {
    Fs.mkdirSync(at("real", "sub"), { recursive: true })
    const dir = sync.openDirectorySync(at("real", "sub"))
    sync.closeSync(dir.fd, dir.path)
    expect(dir.path).toBe(at("real", "sub"))
    expect(reasonOf(() => sync.openDirectorySync(at("link", "sub")))).toBe("Changed")
    // the same directory at its own path is still fine
    const again = sync.reopenDirectorySync({ fd: -1, path: at("real", "sub") })
    sync.closeSync(again.fd, again.path)
  })

  it.effect("openDirectory: a directory whose path now names another directory is not at it any more", () =>
    Effect.gen(function*() {
      const path = at("real", "swap")
      Fs.mkdirSync(path)
      const dir = yield* safeFs.openDirectory(path)
      expect(yield* safeFs.isAt(dir.fd, path)).toBe(true)
      Fs.renameSync(path, at("real", "swap-old"))
      Fs.mkdirSync(path)
      expect(yield* safeFs.isAt(dir.fd, path)).toBe(false)
      // a second descriptor, opened at the path and checked there, is the new directory
      const again = sync.reopenDirectorySync(dir)
      try {
        expect(Fs.fstatSync(again.fd).ino).toBe(Fs.statSync(path).ino)
        expect(Fs.fstatSync(again.fd).ino).not.toBe(Fs.fstatSync(dir.fd).ino)
      } finally {
        sync.closeSync(again.fd, again.path)
      }
    }))

  it("openDirectorySync: refuses a directory swapped for another one between its open and its check (and closes it)", () => {
    const path = at("real", "raced")
    Fs.mkdirSync(path)
    let opened: number | undefined
    const restore = replaceBuiltinExport<(...args: Array<unknown>) => number>("node:fs", "openSync", (original) => (...args) => {
      const fd = original(...args)
      if (args[0] === path && opened === undefined) {
        opened = fd
        // another process moves the directory away and puts a new one at its path
        Fs.renameSync(path, at("real", "raced-old"))
        Fs.mkdirSync(path)
      }
      return fd
    })
    try {
      expect(reasonOf(() => sync.openDirectorySync(path))).toBe("Changed")
    } finally {
      restore()
    }
    expect(opened).toBeDefined()
    expect(() => Fs.fstatSync(opened ?? -1)).toThrow(/EBADF/)
    // the new directory, opened now, is at its path
    const dir = sync.openDirectorySync(path)
    sync.closeSync(dir.fd, dir.path)
  })

  it("openChildFileSync: refuses an entry once the open directory's path leads elsewhere", () => {
    Fs.mkdirSync(at("moving"))
    Fs.writeFileSync(at("moving", "g.txt"), "inside")
    Fs.mkdirSync(at("elsewhere"))
    Fs.writeFileSync(at("elsewhere", "g.txt"), "SECRET")
    const dir = sync.openDirectorySync(at("moving"))
    try {
      const fd = sync.openChildFileSync(dir, "g.txt")
      sync.closeSync(fd, "g.txt")
      Fs.renameSync(at("moving"), at("moved"))
      Fs.symlinkSync(at("elsewhere"), at("moving"))
      expect(reasonOf(() => sync.openChildFileSync(dir, "g.txt"))).toBe("Changed")
    } finally {
      sync.closeSync(dir.fd, dir.path)
    }
  })

  it("readSmallChildSync: leaves every file to the long way (undefined), which checks where it is", () => {
    const dir = sync.openDirectorySync(at("real"))
    try {
      const buffer = new Uint8Array(64)
      expect(sync.readSmallChildSync(dir, "f.txt", buffer, 64)).toBeUndefined()
      const fd = sync.openChildFileSync(dir, "f.txt")
      try {
        expect(sync.readSync(fd, "f.txt", buffer, 0, 64, 0)).toBe(6)
      } finally {
        sync.closeSync(fd, "f.txt")
      }
    } finally {
      sync.closeSync(dir.fd, dir.path)
    }
  })
})
