/**
 * `safeFsNode.ts`, the system calls under the bound file operations: each failure is a
 * `SafeFsError` whose reason a caller acts on (a missing file, a directory, a link swapped
 * in, a socket) and whose message names the operation that failed and the path it was for.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Path from "node:path"
import { link } from "../../../src/tools/shared/safeFsEntry.js"
import * as Node from "../../../src/tools/shared/safeFsNode.js"
import { reasonAndMessage } from "../../helpers/reasonAndMessage.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"

const dir = makeTempDirSync("safe-fs-node-")
afterAll(() => Fs.rmSync(dir, { recursive: true, force: true }))

const failure = reasonAndMessage

describe("safeFsNode: what a failed system call says", () => {
  it.effect("each descriptor operation names itself when the descriptor is not open", () =>
    Effect.gen(function*() {
      const fd = Fs.openSync(Path.join(dir, "closed.txt"), "w")
      Fs.closeSync(fd)
      const shown = "closed.txt"
      expect(yield* failure(Node.close(fd, shown))).toEqual(["Io", "cannot close \"closed.txt\": EBADF"])
      expect(yield* failure(Node.fstat(fd, shown))).toEqual(["Io", "cannot stat \"closed.txt\": EBADF"])
      expect(yield* failure(Node.read(fd, shown, Buffer.alloc(4), 4, 0))).toEqual(["Io", "cannot read \"closed.txt\": EBADF"])
      expect(yield* failure(Node.writeAll(fd, shown, Buffer.from("x"), 0))).toEqual(["Io", "cannot write \"closed.txt\": EBADF"])
      expect(yield* failure(Node.fsync(fd, shown))).toEqual(["Io", "cannot sync \"closed.txt\": EBADF"])
      expect(yield* failure(Node.fchmod(fd, shown, 0o644))).toEqual(["Io", "cannot chmod \"closed.txt\": EBADF"])
    }))

  it.effect.skipIf(process.platform !== "linux")("asking where a descriptor is names the check when its path is too long to tell", () =>
    Effect.gen(function*() {
      // a directory whose path is longer than a page (the kernel cannot give it), made a level
      // at a time through the last level's descriptor, as no path that long can be walked
      const names = Array.from({ length: 18 }, (_, level) => `${level}`.padEnd(250, "d"))
      const fds = [Fs.openSync(dir, "r")]
      try {
        for (const name of names) {
          const level = Node.childOf(fds[fds.length - 1] ?? -1, dir, name)
          Fs.mkdirSync(level)
          fds.push(Fs.openSync(level, "r"))
        }
        expect(yield* failure(Node.fdPath(fds[fds.length - 1] ?? -1, "deep"))).toEqual(["Io", "cannot check \"deep\": ENAMETOOLONG"])
      } finally {
        // removed from the bottom up, each through its parent's descriptor (rmSync cannot walk it)
        for (let level = fds.length - 1; level > 0; level--) {
          Fs.closeSync(fds[level] ?? -1)
          Fs.rmdirSync(Node.childOf(fds[level - 1] ?? -1, dir, names[level - 1] ?? ""))
        }
        Fs.closeSync(fds[0] ?? -1)
      }
    }))

  it.effect("each path operation names itself on a name too long for the file system", () =>
    Effect.gen(function*() {
      const long = Path.join(dir, "n".repeat(300))
      const says = (operation: string) => ["Io", `cannot ${operation} "${long}": ENAMETOOLONG`]
      expect(yield* failure(Node.open(long, Node.READ_FLAGS, 0))).toEqual(says("open"))
      expect(yield* failure(Node.lstat(long))).toEqual(says("stat"))
      expect(yield* failure(Node.stat(long))).toEqual(says("stat"))
      expect(yield* failure(Node.realPath(long))).toEqual(says("resolve"))
      expect(yield* failure(Node.mkdir(long))).toEqual(says("create the directory"))
      expect(yield* failure(Node.rename(long, Path.join(dir, "x"), long))).toEqual(says("rename"))
      expect(yield* failure(Node.unlink(long))).toEqual(says("remove"))
      expect(yield* failure(Node.rmdir(long))).toEqual(says("remove"))
      expect(yield* failure(Node.readDirectory(long))).toEqual(says("list"))
      expect(yield* failure(link(long, Path.join(dir, "y"), long))).toEqual(says("link"))
    }))

  it.effect("a directory opened for writing, a link met where none may be, a socket: each its reason", () =>
    Effect.gen(function*() {
      const sub = Path.join(dir, "sub")
      Fs.mkdirSync(sub)
      expect(yield* failure(Node.open(sub, Fs.constants.O_WRONLY, 0))).toEqual(["IsDirectory", `"${sub}" is a directory`])
      const link = Path.join(dir, "link")
      Fs.symlinkSync("sub", link)
      expect(yield* failure(Node.open(link, Node.READ_FLAGS, 0))).toEqual([
        "Changed",
        `"${link}" changed while it was being opened (a symbolic link or a move replaced part of it); try again`
      ])
      const socketPath = Path.join(dir, "s.sock")
      const server = Net.createServer()
      yield* Effect.acquireRelease(
        Effect.callback<void>((resume) => {
          server.listen(socketPath, () => resume(Effect.void))
        }),
        () =>
          Effect.callback<void>((resume) => {
            server.close(() => resume(Effect.void))
          })
      )
      const socket = yield* Effect.result(Node.open(socketPath, Node.READ_FLAGS, 0))
      expect(Result.isFailure(socket) && [socket.failure.reason, socket.failure.kind, socket.failure.message]).toEqual([
        "NotRegularFile",
        "socket",
        `"${socketPath}" is a socket, not a regular file`
      ])
      const missing = Path.join(dir, "missing")
      expect(yield* failure(Node.lstat(missing))).toEqual(["NotFound", `"${missing}" does not exist`])
      const plain = Path.join(dir, "plain.txt")
      Fs.writeFileSync(plain, "text")
      expect(yield* failure(Node.readDirectory(plain))).toEqual(["NotDirectory", `"${plain}" is not a directory`])
      // only a socket's failure names a kind
      const gone = yield* Effect.result(Node.lstat(missing))
      expect(Result.isFailure(gone) && gone.failure.kind).toBeUndefined()
    }).pipe(Effect.scoped))
})

describe.skipIf(process.platform !== "linux")("safeFsNode: kindOf", () => {
  it("names each kind of file fstat or lstat can find", () => {
    const sub = Path.join(dir, "kinds")
    Fs.mkdirSync(sub)
    Fs.writeFileSync(Path.join(sub, "f.txt"), "f")
    Fs.symlinkSync("f.txt", Path.join(sub, "link"))
    const kinds = [
      Fs.statSync("/dev/null", { bigint: true }),
      Fs.statSync(sub, { bigint: true }),
      Fs.lstatSync(Path.join(sub, "link"), { bigint: true }),
      Fs.statSync(Path.join(sub, "f.txt"), { bigint: true })
    ].map(Node.kindOf)
    expect(kinds).toEqual(["character device", "directory", "symbolic link", "file"])
  })

  const blockDevice = Fs.readdirSync("/dev").map((name) => Path.join("/dev", name))
    .find((path) => Fs.lstatSync(path).isBlockDevice())
  it.skipIf(blockDevice === undefined)("names a block device (where /dev has one)", () => {
    expect(Node.kindOf(Fs.statSync(blockDevice ?? "", { bigint: true }))).toBe("block device")
  })
})

/**
 * Two roots of different file systems with one inode number (procfs' root is always 1, and so
 * is sysfs' or devpts' here), for `sameFile`'s device check; `undefined` where none is mounted.
 */
const sameInodeRoots = ((): readonly [string, string] | undefined => {
  const roots = ["/proc", "/sys", "/dev/pts", "/dev", "/sys/fs/cgroup"].flatMap((path) => {
    try {
      return [{ path, stats: Fs.lstatSync(path, { bigint: true }) }]
    } catch {
      return []
    }
  })
  for (const a of roots) {
    const b = roots.find((other) => other.stats.ino === a.stats.ino && other.stats.dev !== a.stats.dev)
    if (b !== undefined) return [a.path, b.path]
  }
  return undefined
})()

describe.skipIf(process.platform !== "linux")("safeFsNode: sameFile", () => {
  const stats = (path: string) => Fs.lstatSync(path, { bigint: true })

  it("is true of two names of one file", () => {
    const file = Path.join(dir, "same.txt")
    Fs.writeFileSync(file, "same")
    Fs.linkSync(file, Path.join(dir, "same-link.txt"))
    expect(Node.sameFile(stats(file), stats(Path.join(dir, "same-link.txt")))).toBe(true)
    expect(Node.sameFile(stats(file), stats(dir))).toBe(false)
  })

  it.skipIf(sameInodeRoots === undefined)("is false of two file systems' roots with one inode number", () => {
    const [a, b] = sameInodeRoots ?? ["", ""]
    expect(stats(a).ino).toBe(stats(b).ino)
    expect(Node.sameFile(stats(a), stats(b))).toBe(false)
  })
})
