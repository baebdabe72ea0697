/**
 * The checks that `moveEntry`, `placeBytes` and `writeFileAtomic` make after their `link(2)`,
 * `rename(2)` or `mkdir(2)`, against another process acting at that exact moment: the
 * destination's directory moved away, another file put under the name just written, an empty
 * directory appearing at a destination between two looks; and the checked rename a file system
 * without hard links falls back to. The other process is played by `onceAfter`
 * (test/helpers/fsCalls.ts), which runs its moves on the real file system right after the
 * library's call returns; each case says what must be left on disk, and that nothing is lost
 * that was ours.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { writeFileAtomic } from "../../../src/tools/shared/atomicWrite.js"
import { moveEntry } from "../../../src/tools/shared/safeFsMove.js"
import { placeBytes } from "../../../src/tools/shared/safeFsPlace.js"
import { filesBelow } from "../../helpers/filesBelow.js"
import { fileToMove } from "../../helpers/fileToMove.js"
import { failingFor, onceAfter } from "../../helpers/fsCalls.js"
import { changedWhile, outcome } from "../../helpers/outcome.js"
import { tempDir } from "../../helpers/tempDir.js"

/** For this test's scope, a file system without hard links: `link` fails with `EPERM`. */
const withoutHardLinks = failingFor("link", "EPERM")

/** Moves the directory `dir` away to `to` and makes a new empty one at its path. */
const swapDirectory = (dir: string, to: string) => () => {
  Fs.renameSync(dir, to)
  Fs.mkdirSync(dir)
}

/** Puts another file at `path` in place of what is there. */
const replaceWith = (path: string, content: string) => () => {
  Fs.unlinkSync(path)
  Fs.writeFileSync(path, content)
}

const bytesOf = (text: string) => new TextEncoder().encode(text)

describe("moveEntry against another process", () => {
  it.effect("the destination's directory moved right after the link: the link is taken back, the file stays at its source", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("race-move-link-")
      const source = Path.join(root, "src", "a.txt")
      const destination = Path.join(root, "dst", "a.txt")
      Fs.mkdirSync(Path.dirname(source))
      Fs.mkdirSync(Path.dirname(destination))
      Fs.writeFileSync(source, "payload")
      const inode = Fs.statSync(source).ino
      const runs = yield* onceAfter("link", "a.txt", swapDirectory(Path.join(root, "dst"), Path.join(root, "moved")))
      expect(yield* outcome(moveEntry(root, source, destination, { overwrite: false }))).toEqual(
        changedWhile(destination, "it was being moved")
      )
      expect(runs()).toBe(1)
      expect(filesBelow(root)).toEqual(["dst/", "moved/", "src/", "src/a.txt: payload"])
      expect(Fs.statSync(source)).toMatchObject({ ino: inode, nlink: 1 })
    }))

  it.effect("another file put at the destination right after the link: it is kept, and so is the source", () =>
    Effect.gen(function*() {
      const { destination, root, source } = yield* fileToMove("race-move-theirs-")
      yield* onceAfter("link", "b.txt", replaceWith(destination, "theirs"))
      expect(yield* outcome(moveEntry(root, source, destination, { overwrite: false }))).toEqual(
        changedWhile(destination, "it was being moved")
      )
      expect(filesBelow(root)).toEqual(["a.txt: payload", "b.txt: theirs"])
    }))

  it.effect("another file put at the source right after the link: the move is done, their file is left alone", () =>
    Effect.gen(function*() {
      const { destination, root, source } = yield* fileToMove("race-move-source-")
      yield* onceAfter("link", "b.txt", replaceWith(source, "theirs"))
      expect(yield* outcome(moveEntry(root, source, destination, { overwrite: false }))).toEqual({
        ok: { kind: "file", replaced: false }
      })
      expect(filesBelow(root)).toEqual(["a.txt: theirs", "b.txt: payload"])
    }))

  it.effect("the link removed right after it was made: the move fails, the source is kept", () =>
    Effect.gen(function*() {
      const { destination, root, source } = yield* fileToMove("race-move-gone-")
      yield* onceAfter("link", "b.txt", () => Fs.unlinkSync(destination))
      expect(yield* outcome(moveEntry(root, source, destination, { overwrite: false }))).toEqual(
        changedWhile(destination, "it was being moved")
      )
      expect(filesBelow(root)).toEqual(["a.txt: payload"])
    }))

  it.effect("a FIFO with two names put at the destination right after the link: it is not a file of ours, both names stay", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("race-move-fifo-")
      const source = Path.join(root, "a.txt")
      const destination = Path.join(root, "b.txt")
      const fifo = Path.join(root, "pipe")
      Fs.writeFileSync(source, "payload")
      ChildProcess.execFileSync("mkfifo", [fifo])
      yield* onceAfter("link", "b.txt", () => {
        Fs.unlinkSync(destination)
        Fs.linkSync(fifo, destination)
      })
      expect(yield* outcome(moveEntry(root, source, destination, { overwrite: false }))).toEqual(
        changedWhile(destination, "it was being moved")
      )
      expect(Fs.lstatSync(destination)).toMatchObject({ nlink: 2 })
      expect(Fs.lstatSync(destination).isFIFO()).toBe(true)
      expect(Fs.readFileSync(source, "utf8")).toBe("payload")
    }))

  it.effect("the destination's directory moved right after the rename: the file is renamed back to its source", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("race-move-rename-")
      const source = Path.join(root, "src", "a.txt")
      const destination = Path.join(root, "dst", "a.txt")
      Fs.mkdirSync(Path.dirname(source))
      Fs.mkdirSync(Path.dirname(destination))
      Fs.writeFileSync(source, "payload")
      Fs.writeFileSync(destination, "old")
      const inode = Fs.statSync(source).ino
      yield* onceAfter("rename", "a.txt", swapDirectory(Path.join(root, "dst"), Path.join(root, "moved")))
      expect(yield* outcome(moveEntry(root, source, destination, { overwrite: true }))).toEqual(
        changedWhile(destination, "it was being moved")
      )
      // the file it replaced is gone: overwrite asked for that, and the rename did it at once
      expect(filesBelow(root)).toEqual(["dst/", "moved/", "src/", "src/a.txt: payload"])
      expect(Fs.statSync(source).ino).toBe(inode)
    }))

  it.effect("the moved file taken away and another put at the destination right after the rename: theirs is not moved back", () =>
    Effect.gen(function*() {
      const { destination, root, source } = yield* fileToMove("race-move-taken-")
      Fs.writeFileSync(destination, "old")
      yield* onceAfter("rename", "b.txt", () => {
        Fs.renameSync(destination, Path.join(root, "taken.txt"))
        Fs.writeFileSync(destination, "theirs")
      })
      expect(yield* outcome(moveEntry(root, source, destination, { overwrite: true }))).toEqual(
        changedWhile(destination, "it was being moved")
      )
      expect(filesBelow(root)).toEqual(["b.txt: theirs", "taken.txt: payload"])
    }))

  it.effect("a directory appearing at the destination between the two looks is not replaced by a directory moved there", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("race-move-appears-")
      const source = Path.join(root, "from")
      const destination = Path.join(root, "to")
      Fs.mkdirSync(source)
      Fs.writeFileSync(Path.join(source, "f.txt"), "f")
      // rename(2) would replace an empty directory: only the second look stops it
      const runs = yield* onceAfter("lstat", "to", () => Fs.mkdirSync(destination))
      expect(yield* outcome(moveEntry(root, source, destination, { overwrite: false }))).toEqual({
        tag: "DestinationExists",
        reason: undefined,
        message: `"${destination}" already exists (a directory); pass overwrite: true to replace it`
      })
      expect(runs()).toBe(1)
      expect(filesBelow(root)).toEqual(["from/", "from/f.txt: f", "to/"])
    }))
})

describe("placeBytes against another process", () => {
  it.effect("the directory moved right after the link: the placed file is taken back out, no temp file stays", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("race-place-link-")
      const dir = Path.join(root, "dir")
      const path = Path.join(dir, "new.txt")
      Fs.mkdirSync(dir)
      const runs = yield* onceAfter("link", "new.txt", swapDirectory(dir, Path.join(root, "moved")))
      expect(yield* outcome(placeBytes(root, path, bytesOf("x"), { overwrite: false }))).toEqual(
        changedWhile(path, "it was being written")
      )
      expect(runs()).toBe(1)
      expect(filesBelow(root)).toEqual(["dir/", "moved/"])
    }))

  it.effect("the directory moved right after the rename: the placed file is taken back out", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("race-place-rename-")
      const dir = Path.join(root, "dir")
      const path = Path.join(dir, "f.txt")
      Fs.mkdirSync(dir)
      Fs.writeFileSync(path, "old")
      yield* onceAfter("rename", "f.txt", swapDirectory(dir, Path.join(root, "moved")))
      expect(yield* outcome(placeBytes(root, path, bytesOf("new"), { overwrite: true }))).toEqual(
        changedWhile(path, "it was being written")
      )
      // the file it replaced is gone: overwrite asked for that, and the rename did it at once
      expect(filesBelow(root)).toEqual(["dir/", "moved/"])
    }))

  it.effect("another file put at the path right after the link: it is kept, the temp file is removed", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("race-place-theirs-")
      const path = Path.join(root, "f.txt")
      yield* onceAfter("link", "f.txt", replaceWith(path, "theirs"))
      expect(yield* outcome(placeBytes(root, path, bytesOf("ours"), { overwrite: false }))).toEqual(
        changedWhile(path, "it was being written")
      )
      expect(filesBelow(root)).toEqual(["f.txt: theirs"])
    }))
})

describe("writeFileAtomic against another process", () => {
  it.effect("a parent moved right after its missing child directory was made: that directory is removed from where it went", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("race-mkdir-")
      const path = Path.join(root, "a", "b", "f.txt")
      Fs.mkdirSync(Path.join(root, "a"))
      const runs = yield* onceAfter("mkdir", "b", swapDirectory(Path.join(root, "a"), Path.join(root, "moved")))
      expect(yield* outcome(writeFileAtomic(root, path, "x"))).toEqual(changedWhile(Path.join(root, "a", "b"), "it was being opened"))
      expect(runs()).toBe(1)
      expect(filesBelow(root)).toEqual(["a/", "moved/"])
    }))

  it.effect("the directory moved right after the rename: the written file is taken back out of it", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("race-write-rename-")
      const dir = Path.join(root, "dir")
      const path = Path.join(dir, "f.txt")
      Fs.mkdirSync(dir)
      yield* onceAfter("rename", "f.txt", swapDirectory(dir, Path.join(root, "moved")))
      expect(yield* outcome(writeFileAtomic(root, path, "x"))).toEqual(changedWhile(path, "it was being written"))
      expect(filesBelow(root)).toEqual(["dir/", "moved/"])
    }))
})

describe("on a file system without hard links (link fails EPERM)", () => {
  it.effect("a move without overwrite falls back to a checked rename: the file moves, its inode kept", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("nolink-move-")
      const source = Path.join(root, "a.txt")
      const destination = Path.join(root, "sub", "b.txt")
      Fs.writeFileSync(source, "payload")
      const inode = Fs.statSync(source).ino
      yield* withoutHardLinks
      expect(yield* outcome(moveEntry(root, source, destination, { overwrite: false }))).toEqual({
        ok: { kind: "file", replaced: false }
      })
      expect(filesBelow(root)).toEqual(["sub/", "sub/b.txt: payload"])
      expect(Fs.statSync(destination)).toMatchObject({ ino: inode, nlink: 1 })
    }))

  it.effect("a move without overwrite: a file appearing at the destination after the first look is kept", () =>
    Effect.gen(function*() {
      const { destination, root, source } = yield* fileToMove("nolink-move-appears-")
      yield* withoutHardLinks
      yield* onceAfter("lstat", "b.txt", () => Fs.writeFileSync(destination, "theirs"))
      expect(yield* outcome(moveEntry(root, source, destination, { overwrite: false }))).toEqual({
        tag: "DestinationExists",
        reason: undefined,
        message: `"${destination}" already exists (a file); pass overwrite: true to replace it`
      })
      expect(filesBelow(root)).toEqual(["a.txt: payload", "b.txt: theirs"])
    }))

  it.effect("a placement without overwrite falls back to a checked rename: the file lands with its bits, no temp file stays", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("nolink-place-")
      const path = Path.join(root, "new.txt")
      yield* withoutHardLinks
      expect(yield* outcome(placeBytes(root, path, bytesOf("fresh"), { overwrite: false, mode: 0o600 }))).toEqual({
        ok: { replaced: false, bytes: 5 }
      })
      expect(filesBelow(root)).toEqual(["new.txt: fresh"])
      expect(Fs.statSync(path).mode & 0o777).toBe(0o600)
    }))

  it.effect("a placement without overwrite: a FIFO appearing at the path after the first look is kept, no temp file stays", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("nolink-place-appears-")
      const path = Path.join(root, "new.txt")
      yield* withoutHardLinks
      yield* onceAfter("lstat", "new.txt", () => ChildProcess.execFileSync("mkfifo", [path]))
      expect(yield* outcome(placeBytes(root, path, bytesOf("x"), { overwrite: false }))).toEqual({
        tag: "DestinationExists",
        reason: undefined,
        message: `"${path}" already exists (a FIFO); pass overwrite: true to replace it`
      })
      expect(Fs.readdirSync(root)).toEqual(["new.txt"])
      expect(Fs.lstatSync(path).isFIFO()).toBe(true)
    }))
})
