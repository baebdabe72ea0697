/**
 * `atomicWrite.ts` below the tools: the temp file's name, the permission bits carried over
 * (never a set-user-ID bit), and a fill that fails leaving the target and its directory as they
 * were, with no temp file.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { tempNameOf, writeAtomicWith, writeFileAtomic } from "../../../src/tools/shared/atomicWrite.js"
import { reasonAndMessage } from "../../helpers/reasonAndMessage.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"

const root = makeTempDirSync("atomic-write-")
afterAll(() => Fs.rmSync(root, { recursive: true, force: true }))

describe("tempNameOf", () => {
  it("a hidden name: the target's name cut at 64 bytes on a whole character, 16 random hex digits", () => {
    expect(tempNameOf("a.txt")).toMatch(/^\.a\.txt\.[0-9a-f]{16}\.tmp$/)
    expect(tempNameOf("x".repeat(100))).toMatch(new RegExp(`^\\.${"x".repeat(64)}\\.[0-9a-f]{16}\\.tmp$`))
    // "é" is 2 bytes: 32 of them fill 64 bytes
    expect(tempNameOf("é".repeat(40))).toMatch(new RegExp(`^\\.${"é".repeat(32)}\\.[0-9a-f]{16}\\.tmp$`))
    // a 4-byte character that would pass 64 bytes is left out whole
    expect(tempNameOf(`${"y".repeat(62)}😀z`)).toMatch(new RegExp(`^\\.${"y".repeat(62)}\\.[0-9a-f]{16}\\.tmp$`))
    expect(tempNameOf("same")).not.toBe(tempNameOf("same"))
  })
})

describe("writeFileAtomic", () => {
  it.effect("keeps the permission bits of the file it replaces, without a set-user-ID bit", () =>
    Effect.gen(function*() {
      const file = Path.join(root, "tool.sh")
      Fs.writeFileSync(file, "old")
      Fs.chmodSync(file, 0o4750)
      const outcome = yield* writeFileAtomic(root, file, "new content")
      expect(outcome).toEqual({ replaced: true, bytes: 11 })
      expect(Fs.statSync(file).mode & 0o7777).toBe(0o750)
      expect(Fs.readFileSync(file, "utf8")).toBe("new content")
    }))

  it.effect("counts bytes, not characters; creates missing directories; refuses the root itself", () =>
    Effect.gen(function*() {
      const file = Path.join(root, "new", "deeper", "u.txt")
      expect(yield* writeFileAtomic(root, file, "✓")).toEqual({ replaced: false, bytes: 3 })
      expect(Fs.readFileSync(file, "utf8")).toBe("✓")
      expect(yield* reasonAndMessage(writeFileAtomic(root, root, "x"))).toEqual(["IsDirectory", `"${root}" is a directory`])
    }))

  it.effect("writes at once into the same missing directories: each creates what is missing or finds it made", () =>
    Effect.gen(function*() {
      const n = 16
      const outcomes = yield* Effect.all(
        Array.from({ length: n }, (_, i) => writeFileAtomic(root, Path.join(root, "burst", "a", "b", `f${i}.txt`), `${i}`)),
        { concurrency: "unbounded" }
      )
      expect(outcomes).toEqual(Array.from({ length: n }, (_, i) => ({ replaced: false, bytes: String(i).length })))
      expect(Fs.readdirSync(Path.join(root, "burst", "a", "b")).sort())
        .toEqual(Array.from({ length: n }, (_, i) => `f${i}.txt`).sort())
    }))

  it.effect("a fill that fails leaves the old file byte for byte and no temp file", () =>
    Effect.gen(function*() {
      const dir = Path.join(root, "failing")
      Fs.mkdirSync(dir)
      const file = Path.join(dir, "keep.txt")
      Fs.writeFileSync(file, "original")
      const failed = yield* Effect.result(writeAtomicWith(root, file, () => Effect.fail("disk on fire" as const)))
      expect(failed).toEqual(Result.fail("disk on fire"))
      expect(Fs.readFileSync(file, "utf8")).toBe("original")
      expect(Fs.readdirSync(dir)).toEqual(["keep.txt"])
    }))

  it.effect("a directory moved away while the content is written: the file is taken back out of it, the write refused", () =>
    Effect.gen(function*() {
      const dir = Path.join(root, "moving")
      const moved = Path.join(root, "moved")
      Fs.mkdirSync(dir)
      const file = Path.join(dir, "late.txt")
      // the fill runs between the temp file's creation and the rename: the directory is moved
      // away and another put in its place, as a concurrent process could
      const result = yield* reasonAndMessage(writeAtomicWith(root, file, (fd) =>
        Effect.sync(() => {
          Fs.writeSync(fd, "content")
          Fs.renameSync(dir, moved)
          Fs.mkdirSync(dir)
          return 7
        })))
      expect(result).toEqual([
        "Changed",
        `"${file}" changed while it was being written (a symbolic link or a move replaced part of it); try again`
      ])
      // nothing where the rename put it, nothing at the path
      expect(Fs.readdirSync(moved)).toEqual([])
      expect(Fs.readdirSync(dir)).toEqual([])
    }))

  it.effect("a directory or a FIFO at the target is refused before anything is created", () =>
    Effect.gen(function*() {
      const dir = Path.join(root, "kinds")
      Fs.mkdirSync(Path.join(dir, "sub"), { recursive: true })
      const sub = Path.join(dir, "sub")
      expect(yield* reasonAndMessage(writeFileAtomic(root, sub, "x"))).toEqual(["IsDirectory", `"${sub}" is a directory`])
      const fifo = Path.join(dir, "pipe")
      ChildProcess.execFileSync("mkfifo", [fifo])
      expect(yield* reasonAndMessage(writeFileAtomic(root, fifo, "x"))).toEqual([
        "NotRegularFile",
        `"${fifo}" is a FIFO, not a regular file`
      ])
      expect(Fs.readdirSync(dir).sort()).toEqual(["pipe", "sub"])
    }))

  it.effect("a missing directory outside the root is not created: the write is refused as a changed path", () =>
    Effect.gen(function*() {
      const outside = makeTempDirSync("atomic-write-outside-")
      yield* Effect.addFinalizer(() => Effect.sync(() => Fs.rmSync(outside, { recursive: true, force: true })))
      for (const file of [Path.join(outside, "new", "x.txt"), Path.join(Path.dirname(root), "atomic-write-missing", "x.txt")]) {
        const refused = yield* Effect.result(writeFileAtomic(root, file, "x"))
        expect(Result.isFailure(refused) && refused.failure.reason).toBe("Changed")
        expect(Result.isFailure(refused) && refused.failure.message).toContain("its directories were created")
        expect(Fs.existsSync(Path.dirname(file))).toBe(false)
      }
    }).pipe(Effect.scoped))

  it.effect("a symbolic link at the target is refused as a changed path; the link and what it names are kept", () =>
    Effect.gen(function*() {
      const dir = Path.join(root, "linked")
      Fs.mkdirSync(dir)
      const named = Path.join(dir, "named.txt")
      Fs.writeFileSync(named, "kept")
      const link = Path.join(dir, "link.txt")
      Fs.symlinkSync(named, link)
      expect(yield* reasonAndMessage(writeFileAtomic(root, link, "x"))).toEqual([
        "Changed",
        `"${link}" changed while it was being written (a symbolic link or a move replaced part of it); try again`
      ])
      expect(Fs.readlinkSync(link)).toBe(named)
      expect(Fs.readFileSync(named, "utf8")).toBe("kept")
      expect(Fs.readdirSync(dir).sort()).toEqual(["link.txt", "named.txt"])
    }))

  it.effect("a failed write removes its own temp file only: another file that took the temp file's name is kept", () =>
    Effect.gen(function*() {
      const dir = Path.join(root, "taken")
      Fs.mkdirSync(dir)
      const file = Path.join(dir, "t.txt")
      let tempName = ""
      const failed = yield* Effect.result(writeAtomicWith(root, file, (fd) =>
        Effect.suspend(() => {
          // a concurrent process moves the temp file away and puts its own file under that name
          const tempPath = Fs.readlinkSync(`/proc/self/fd/${fd}`)
          Fs.renameSync(tempPath, Path.join(dir, "moved-temp"))
          Fs.writeFileSync(tempPath, "someone else's")
          tempName = Path.basename(tempPath)
          return Effect.fail("disk on fire" as const)
        })))
      expect(failed).toEqual(Result.fail("disk on fire"))
      expect(tempName).toMatch(/^\.t\.txt\.[0-9a-f]{16}\.tmp$/)
      expect(Fs.readFileSync(Path.join(dir, tempName), "utf8")).toBe("someone else's")
      expect(Fs.readdirSync(dir).sort()).toEqual(["moved-temp", tempName].sort())
    }))

  it.effect("a file where a directory is expected: NotDirectory for the directory of the target, nothing created", () =>
    Effect.gen(function*() {
      const dir = Path.join(root, "plain")
      Fs.mkdirSync(dir)
      Fs.writeFileSync(Path.join(dir, "file.txt"), "a file")
      const sub = Path.join(dir, "file.txt", "sub")
      expect(yield* reasonAndMessage(writeFileAtomic(root, Path.join(sub, "x.txt"), "x"))).toEqual([
        "NotDirectory",
        `"${sub}" is not a directory`
      ])
      expect(Fs.readdirSync(dir)).toEqual(["file.txt"])
    }))

  it.effect("a workspace root that is gone: a write inside it is NotFound, one beside it is refused as a changed path", () =>
    Effect.gen(function*() {
      const base = makeTempDirSync("atomic-write-gone-")
      yield* Effect.addFinalizer(() => Effect.sync(() => Fs.rmSync(base, { recursive: true, force: true })))
      const gone = Path.join(base, "gone")
      const inside = Path.join(gone, "x.txt")
      expect(yield* reasonAndMessage(writeFileAtomic(gone, inside, "x"))).toEqual(["NotFound", `"${gone}" does not exist`])
      // the root's parent is missing too: creating it would create the root's parent, outside the root
      const beside = Path.join(gone, "y.txt")
      expect(yield* reasonAndMessage(writeFileAtomic(Path.join(gone, "root"), beside, "x"))).toEqual([
        "Changed",
        `"${gone}" changed while its directories were created (a symbolic link or a move replaced part of it); try again`
      ])
      expect(Fs.readdirSync(base)).toEqual([])
    }).pipe(Effect.scoped))
})
