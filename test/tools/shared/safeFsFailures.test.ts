/**
 * `writeFileAtomic`, `moveEntry`, `placeBytes` and `openDirectory` when a system call fails in a way the tests'
 * file system never does on its own (a `link` or `mkdir` refused, an `open` out of space, a
 * `close` or `unlink` reporting an error), or when the directory is removed or moved at the
 * moment the temp file is made. The failure is played by `test/helpers/fsCalls.ts` on the real
 * `node:fs` calls. Each case says which error the caller gets (the call's own, not a look-alike),
 * what is logged when cleaning up fails, and what is left on disk.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { writeAtomicWith, writeFileAtomic } from "../../../src/tools/shared/atomicWrite.js"
import { openDirectory } from "../../../src/tools/shared/safeFs.js"
import { moveEntry } from "../../../src/tools/shared/safeFsMove.js"
import { placeBytes } from "../../../src/tools/shared/safeFsPlace.js"
import { filesBelow } from "../../helpers/filesBelow.js"
import { fileToMove } from "../../helpers/fileToMove.js"
import { failingFor, failingFrom, onceAfter } from "../../helpers/fsCalls.js"
import { changedWhile, outcome } from "../../helpers/outcome.js"
import { type Logged, recordingLogs, textOf } from "../../helpers/recordingLogs.js"
import { tempDir } from "../../helpers/tempDir.js"

/** The temp file names of a target named `name`. */
const tempOf = (name: string) => new RegExp(`^\\.${name.replaceAll(".", "\\.")}\\.[0-9a-f]{16}\\.tmp$`)

/** The warnings among logged lines, as text. */
const warnings = (lines: ReadonlyArray<Logged>) =>
  lines.filter((line) => line.level === "Warn").map(textOf)

const ioError = (operation: string, path: string, code: string) => ({
  tag: "SafeFsError",
  reason: "Io",
  message: `cannot ${operation} "${path}": ${code}`
})

describe("writeFileAtomic when a call fails", () => {
  it.effect("a missing directory that cannot be made: the caller gets mkdir's own error, nothing is created", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("fail-mkdir-")
      yield* failingFor("mkdir", "EACCES", { name: "new" })
      expect(yield* outcome(writeFileAtomic(root, Path.join(root, "new", "f.txt"), "x"))).toEqual(
        ioError("create the directory", Path.join(root, "new"), "EACCES")
      )
      expect(filesBelow(root)).toEqual([])
    }))

  it.effect("a temp file that cannot be created (no space): the caller gets open's own error, not a changed path", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("fail-open-")
      const path = Path.join(root, "f.txt")
      yield* failingFor("open", "ENOSPC", { name: tempOf("f.txt") })
      expect(yield* outcome(writeFileAtomic(root, path, "x"))).toEqual(ioError("open", path, "ENOSPC"))
      expect(filesBelow(root)).toEqual([])
    }))

  it.effect("the directory removed right after the target was looked at: a changed path, no temp file made anywhere", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("fail-gone-")
      const dir = Path.join(root, "d")
      const path = Path.join(dir, "f.txt")
      Fs.mkdirSync(dir)
      const runs = yield* onceAfter("lstat", "f.txt", () => Fs.rmdirSync(dir))
      expect(yield* outcome(writeFileAtomic(root, path, "x"))).toEqual(changedWhile(path, "it was being written"))
      expect(runs()).toBe(1)
      expect(filesBelow(root)).toEqual([])
    }))

  it.effect("the directory moved right after the temp file was made: nothing is written, the temp file is removed from where it went", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("fail-moved-")
      const dir = Path.join(root, "d")
      const path = Path.join(dir, "f.txt")
      Fs.mkdirSync(dir)
      const runs = yield* onceAfter("open", tempOf("f.txt"), () => {
        Fs.renameSync(dir, Path.join(root, "moved"))
        Fs.mkdirSync(dir)
      })
      let filled = 0
      expect(yield* outcome(writeAtomicWith(root, path, () => Effect.sync(() => ++filled)))).toEqual(changedWhile(path, "it was being written"))
      expect(runs()).toBe(1)
      expect(filled).toBe(0)
      expect(filesBelow(root)).toEqual(["d/", "moved/"])
    }))

  it.effect("a temp file that cannot be removed after a failed fill: a warning names the target, the error is the fill's", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("fail-unlink-")
      const path = Path.join(root, "f.txt")
      yield* failingFor("unlink", "EACCES", { name: tempOf("f.txt") })
      const [result, lines] = yield* recordingLogs(outcome(writeAtomicWith(root, path, () => Effect.fail({ _tag: "Full", message: "disk on fire" }))))
      expect(result).toEqual({ tag: "Full", reason: undefined, message: "disk on fire" })
      expect(warnings(lines)).toEqual([
        `could not remove a temp file of "${path}" SafeFsError: cannot remove "${path}": EACCES`
      ])
      // what could not be removed stays; the target was never made
      expect(Fs.readdirSync(root)).toEqual([expect.stringMatching(tempOf("f.txt"))])
    }))

  it.effect("a close that reports an error after the write was synced and renamed: the write stands, a warning names each file", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("fail-close-")
      const path = Path.join(root, "f.txt")
      yield* failingFor("close", "EIO", { afterDoing: true })
      const [result, lines] = yield* recordingLogs(outcome(writeFileAtomic(root, path, "content")))
      expect(result).toEqual({ ok: { replaced: false, bytes: 7 } })
      // the temp file's descriptor (named by its target), then the directory's
      expect(warnings(lines)).toEqual([
        `could not close "${path}" SafeFsError: cannot close "${path}": EIO`,
        `could not close "${root}" SafeFsError: cannot close "${root}": EIO`
      ])
      expect(filesBelow(root)).toEqual(["f.txt: content"])
    }))
})

describe("openDirectory when open fails", () => {
  it.effect("out of descriptors (EMFILE) at a symbolic link: the caller gets open's own error, not a changed path", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("fail-open-dir-")
      const link = Path.join(root, "link")
      Fs.mkdirSync(Path.join(root, "real"))
      Fs.symlinkSync(Path.join(root, "real"), link)
      // without the failure, a link met where a directory was expected is a changed path
      expect(yield* outcome(Effect.scoped(openDirectory(link)))).toEqual(changedWhile(link, "it was being opened"))
      yield* failingFor("open", "EMFILE", { name: "link" })
      expect(yield* outcome(Effect.scoped(openDirectory(link)))).toEqual(ioError("open", link, "EMFILE"))
    }))
})

describe("moveEntry and placeBytes when link fails for another reason than missing hard links", () => {
  it.effect("a move without overwrite: the caller gets link's own error, not DestinationExists; the source stays", () =>
    Effect.gen(function*() {
      const { destination, root, source } = yield* fileToMove("fail-move-link-")
      yield* failingFor("link", "EIO")
      expect(yield* outcome(moveEntry(root, source, destination, { overwrite: false }))).toEqual(
        ioError("link", destination, "EIO")
      )
      expect(filesBelow(root)).toEqual(["a.txt: payload"])
    }))

  it.effect("a placement without overwrite: the caller gets link's own error; no temp file stays", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("fail-place-link-")
      const path = Path.join(root, "f.txt")
      yield* failingFor("link", "EIO")
      expect(yield* outcome(placeBytes(root, path, new TextEncoder().encode("x"), { overwrite: false }))).toEqual(
        ioError("link", path, "EIO")
      )
      expect(filesBelow(root)).toEqual([])
    }))

  it.effect("a placement whose temp file cannot be removed: the file is placed, a warning names the temp file each way it was tried", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("fail-place-unlink-")
      const path = Path.join(root, "f.txt")
      yield* failingFor("unlink", "EACCES", { name: tempOf("f.txt") })
      const [result, lines] = yield* recordingLogs(
        outcome(placeBytes(root, path, new TextEncoder().encode("x"), { overwrite: false }))
      )
      expect(result).toEqual({ ok: { replaced: false, bytes: 1 } })
      const [temp] = Fs.readdirSync(root).filter((name) => tempOf("f.txt").test(name))
      expect(temp).toBeDefined()
      const tempPath = Path.join(root, temp ?? "")
      const warning = `could not remove the temp file "${tempPath}" SafeFsError: cannot remove "${tempPath}": EACCES`
      // through the directory's descriptor, then by its path
      expect(warnings(lines)).toEqual([warning, warning])
      expect(Fs.readFileSync(path, "utf8")).toBe("x")
    }))
})

describe("a check after the file was put in place that cannot be made counts as a failed one", () => {
  // reading /proc/self/fd/N fails (readlink EIO) from the moment the file is in place

  it.effect("writeFileAtomic: the written file is taken back out, the write refused", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("nocheck-write-")
      const path = Path.join(root, "f.txt")
      yield* failingFrom("rename", "f.txt", "readlink", "EIO")
      expect(yield* outcome(writeFileAtomic(root, path, "x"))).toEqual(changedWhile(path, "it was being written"))
      expect(filesBelow(root)).toEqual([])
    }))

  it.effect("placeBytes: the placed file is taken back out, no temp file stays", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("nocheck-place-")
      const path = Path.join(root, "f.txt")
      yield* failingFrom("link", "f.txt", "readlink", "EIO")
      expect(yield* outcome(placeBytes(root, path, new TextEncoder().encode("x"), { overwrite: false }))).toEqual(
        changedWhile(path, "it was being written")
      )
      expect(filesBelow(root)).toEqual([])
    }))

  it.effect("moveEntry: the link is taken back, the file stays at its source", () =>
    Effect.gen(function*() {
      const { destination, root, source } = yield* fileToMove("nocheck-move-")
      yield* failingFrom("link", "b.txt", "readlink", "EIO")
      expect(yield* outcome(moveEntry(root, source, destination, { overwrite: false }))).toEqual(
        changedWhile(destination, "it was being moved")
      )
      expect(filesBelow(root)).toEqual(["a.txt: payload"])
    }))
})
