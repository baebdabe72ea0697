/**
 * `moveEntry` and `deleteFile` (`shared/safeFsMove.ts`) on real files: each refusal with its
 * reason and words, a file moved by link and unlink (its inode kept, nothing replaced) or by
 * rename over a file it replaces, a directory moved whole, and a delete of regular files only.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { deleteFile, moveEntry } from "../../../src/tools/shared/safeFsMove.js"
import { outcome } from "../../helpers/outcome.js"
import { tempDir } from "../../helpers/tempDir.js"

const setUp = Effect.gen(function*() {
  const root = yield* tempDir("safe-fs-move-")
  const at = (rel: string) => Path.join(root, rel)
  const put = (rel: string, content: string) => {
    Fs.mkdirSync(Path.dirname(at(rel)), { recursive: true })
    Fs.writeFileSync(at(rel), content)
  }
  return { root, at, put }
})

describe("moveEntry", () => {
  it.effect("refuses the root at either end, a path onto itself, a directory into itself, and a missing source", () =>
    Effect.gen(function*() {
      const { at, put, root } = yield* setUp
      put("d/f.txt", "f")
      const move = (from: string, to: string, overwrite = false) => outcome(moveEntry(root, from, to, { overwrite }))
      expect(yield* move(root, at("x"))).toEqual({
        tag: "SafeFsError",
        reason: "IsDirectory",
        message: `"${root}" is the workspace root; it cannot be moved`
      })
      expect(yield* move(at("d/f.txt"), root)).toEqual({
        tag: "SafeFsError",
        reason: "IsDirectory",
        message: `"${root}" is the workspace root`
      })
      expect(yield* move(at("d/f.txt"), at("d/f.txt"))).toEqual({
        tag: "SafeFsError",
        reason: "Io",
        message: `"${at("d/f.txt")}" is both the source and the destination`
      })
      expect(yield* move(at("d"), at("d/inner/d"))).toEqual({
        tag: "SafeFsError",
        reason: "Io",
        message: `"${at("d/inner/d")}" is inside "${at("d")}": a directory cannot be moved into itself`
      })
      // a file "into itself" is no such case: the file is not a directory to create the destination in
      expect(yield* move(at("d/f.txt"), at("d/f.txt/x"))).toEqual({
        tag: "SafeFsError",
        reason: "NotDirectory",
        message: `"${at("d/f.txt")}" is not a directory`
      })
      // a name inside it that starts with two dots is inside it
      expect(yield* move(at("d"), at("d/..x"))).toMatchObject({ reason: "Io", message: expect.stringContaining("into itself") })
      // a sibling whose name starts with the directory's is not inside it
      expect(yield* move(at("d"), at("d2"))).toEqual({ ok: { kind: "directory", replaced: false } })
      expect(Fs.readFileSync(at("d2/f.txt"), "utf8")).toBe("f")
      expect(yield* move(at("nope"), at("x"))).toEqual({
        tag: "SafeFsError",
        reason: "NotFound",
        message: `"${at("nope")}" does not exist`
      })
    }))

  it.effect("what is at the destination: the same file, a directory, a symlink, or a file kept unless overwrite", () =>
    Effect.gen(function*() {
      const { at, put, root } = yield* setUp
      put("a.txt", "a")
      put("b.txt", "b")
      put("dir/keep.txt", "k")
      Fs.linkSync(at("a.txt"), at("also-a.txt"))
      Fs.symlinkSync("b.txt", at("link"))
      const move = (from: string, to: string, overwrite = false) => outcome(moveEntry(root, from, to, { overwrite }))
      expect(yield* move(at("a.txt"), at("also-a.txt"), true)).toEqual({
        tag: "SafeFsError",
        reason: "Io",
        message: `"${at("also-a.txt")}" is the same file as "${at("a.txt")}"`
      })
      expect(yield* move(at("a.txt"), at("dir"), true)).toEqual({
        tag: "SafeFsError",
        reason: "IsDirectory",
        message: `"${at("dir")}" is an existing directory; name the full destination path, e.g. "${at("dir/a.txt")}"`
      })
      expect(yield* move(at("a.txt"), at("link"), true)).toMatchObject({ tag: "SafeFsError", reason: "Changed" })
      expect(yield* move(at("a.txt"), at("b.txt"))).toEqual({
        tag: "DestinationExists",
        reason: undefined,
        message: `"${at("b.txt")}" already exists (a file); pass overwrite: true to replace it`
      })
      expect(yield* move(at("dir"), at("b.txt"), true)).toEqual({
        tag: "SafeFsError",
        reason: "NotDirectory",
        message: `"${at("b.txt")}" is a file; a directory cannot replace it`
      })
      // without overwrite, what is there is reported first, whatever would be moved
      expect(yield* move(at("dir"), at("b.txt"))).toEqual({
        tag: "DestinationExists",
        reason: undefined,
        message: `"${at("b.txt")}" already exists (a file); pass overwrite: true to replace it`
      })
      // nothing was touched by the refusals
      expect(Fs.readFileSync(at("a.txt"), "utf8")).toBe("a")
      expect(Fs.readFileSync(at("b.txt"), "utf8")).toBe("b")
      expect(Fs.readlinkSync(at("link"))).toBe("b.txt")
    }))

  it.effect("moves a file keeping its inode: to a new name (nothing replaced), or over a file with overwrite", () =>
    Effect.gen(function*() {
      const { at, put, root } = yield* setUp
      put("a.txt", "a")
      put("b.txt", "b")
      const inode = Fs.statSync(at("a.txt")).ino
      expect(yield* moveEntry(root, at("a.txt"), at("new/c.txt"), { overwrite: false })).toEqual({ kind: "file", replaced: false })
      expect(Fs.existsSync(at("a.txt"))).toBe(false)
      expect(Fs.statSync(at("new/c.txt"))).toMatchObject({ ino: inode, nlink: 1 })
      expect(yield* moveEntry(root, at("new/c.txt"), at("b.txt"), { overwrite: true })).toEqual({ kind: "file", replaced: true })
      expect(Fs.existsSync(at("new/c.txt"))).toBe(false)
      expect(Fs.statSync(at("b.txt"))).toMatchObject({ ino: inode, nlink: 1 })
      expect(Fs.readFileSync(at("b.txt"), "utf8")).toBe("a")
      // overwrite with nothing there: a plain move, nothing replaced
      expect(yield* moveEntry(root, at("b.txt"), at("d.txt"), { overwrite: true })).toEqual({ kind: "file", replaced: false })
    }))

  it.effect("moves to one destination at once without overwrite: one lands, the others are refused, no file is lost", () =>
    Effect.gen(function*() {
      const { at, put, root } = yield* setUp
      const n = 24
      for (let i = 0; i < n; i++) put(`s${i}`, `content ${i}`)
      const outcomes = yield* Effect.all(
        Array.from({ length: n }, (_, i) => outcome(moveEntry(root, at(`s${i}`), at("dest"), { overwrite: false }))),
        { concurrency: "unbounded" }
      )
      const landed = outcomes.flatMap((o, i) => ("ok" in o ? [i] : []))
      expect(landed).toHaveLength(1)
      // each refusal says the same, whether it was seen before the move or by the link itself
      expect(outcomes.filter((o) => "tag" in o)).toEqual(Array.from({ length: n - 1 }, () => ({
        tag: "DestinationExists",
        reason: undefined,
        message: `"${at("dest")}" already exists (a file); pass overwrite: true to replace it`
      })))
      expect(Fs.readFileSync(at("dest"), "utf8")).toBe(`content ${landed[0]}`)
      const left = Fs.readdirSync(root).filter((name) => name !== "dest").sort()
      expect(left).toEqual(Array.from({ length: n }, (_, i) => `s${i}`).filter((_, i) => i !== landed[0]).sort())
    }))

  it.effect("a FIFO or a symlink as the source is refused, and left where it is", () =>
    Effect.gen(function*() {
      const { at, put, root } = yield* setUp
      put("t.txt", "t")
      ChildProcess.execFileSync("mkfifo", [at("pipe")])
      Fs.symlinkSync("t.txt", at("link"))
      expect(yield* outcome(moveEntry(root, at("pipe"), at("p2"), { overwrite: false }))).toEqual({
        tag: "SafeFsError",
        reason: "NotRegularFile",
        message: `"${at("pipe")}" is a FIFO, not a regular file`
      })
      expect(yield* outcome(moveEntry(root, at("link"), at("l2"), { overwrite: false }))).toMatchObject({ reason: "Changed" })
      expect(Fs.lstatSync(at("pipe")).isFIFO()).toBe(true)
      expect(Fs.lstatSync(at("link")).isSymbolicLink()).toBe(true)
      expect(Fs.existsSync(at("p2")) || Fs.existsSync(at("l2"))).toBe(false)
    }))
})

describe("deleteFile", () => {
  it.effect("deletes a regular file and says how many bytes it had; refuses a directory, a symlink and a missing file", () =>
    Effect.gen(function*() {
      const { at, put } = yield* setUp
      put("f.txt", "12345")
      put("dir/x", "x")
      Fs.symlinkSync("f.txt", at("link"))
      expect(yield* deleteFile(at("f.txt"))).toEqual({ bytes: 5 })
      expect(Fs.existsSync(at("f.txt"))).toBe(false)
      expect(yield* outcome(deleteFile(at("f.txt")))).toEqual({
        tag: "SafeFsError",
        reason: "NotFound",
        message: `"${at("f.txt")}" does not exist`
      })
      expect(yield* outcome(deleteFile(at("dir")))).toEqual({
        tag: "SafeFsError",
        reason: "IsDirectory",
        message: `"${at("dir")}" is a directory, not a file`
      })
      expect(yield* outcome(deleteFile(at("link")))).toMatchObject({ reason: "Changed" })
      expect(Fs.lstatSync(at("link")).isSymbolicLink()).toBe(true)
      expect(Fs.readFileSync(at("dir/x"), "utf8")).toBe("x")
    }))
})
