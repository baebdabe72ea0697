/**
 * `placeBytes` (`shared/safeFsPlace.ts`) on real files: a new file with the permission bits
 * asked for, created with its directories; a file replaced in place of its inode with its own
 * bits kept; what is there refused without overwrite (and a directory, a symlink or a FIFO
 * always); many placements at once without overwrite land exactly once; no temp file is left.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { placeBytes } from "../../../src/tools/shared/safeFsPlace.js"
import { outcome } from "../../helpers/outcome.js"
import { recordingLogs } from "../../helpers/recordingLogs.js"
import { tempDir } from "../../helpers/tempDir.js"

const bytesOf = (text: string) => new TextEncoder().encode(text)

/** Every entry below `dir`, relative, sorted (a temp file left behind shows here). */
const tree = (dir: string) => Fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).sort()

describe("placeBytes", () => {
  it.effect("a new file gets the bits asked for and its directories; a replaced one keeps its own bits", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("place-")
      const at = (rel: string) => Path.join(root, rel)
      expect(yield* placeBytes(root, at("a/b/new.bin"), bytesOf("hello"), { overwrite: false, mode: 0o640 })).toEqual({
        replaced: false,
        bytes: 5
      })
      expect(Fs.readFileSync(at("a/b/new.bin"), "utf8")).toBe("hello")
      expect(Fs.statSync(at("a/b/new.bin")).mode & 0o777).toBe(0o640)
      Fs.writeFileSync(at("old.txt"), "old")
      Fs.chmodSync(at("old.txt"), 0o600)
      expect(yield* placeBytes(root, at("old.txt"), bytesOf("newer"), { overwrite: true, mode: 0o755 })).toEqual({
        replaced: true,
        bytes: 5
      })
      expect(Fs.readFileSync(at("old.txt"), "utf8")).toBe("newer")
      expect(Fs.statSync(at("old.txt")).mode & 0o777).toBe(0o600)
      // overwrite with nothing there is a new file
      expect(yield* placeBytes(root, at("fresh.txt"), bytesOf(""), { overwrite: true })).toEqual({ replaced: false, bytes: 0 })
      expect(tree(root)).toEqual(["a", "a/b", "a/b/new.bin", "fresh.txt", "old.txt"])
    }))

  it.effect("refuses the root, a file there without overwrite, and a directory, symlink or FIFO there always", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("place-refuse-")
      const at = (rel: string) => Path.join(root, rel)
      Fs.writeFileSync(at("kept.txt"), "kept")
      Fs.mkdirSync(at("dir"))
      Fs.symlinkSync("kept.txt", at("link"))
      ChildProcess.execFileSync("mkfifo", [at("pipe")])
      const place = (path: string, overwrite: boolean) => outcome(placeBytes(root, path, bytesOf("x"), { overwrite }))
      expect(yield* place(root, true)).toEqual({ tag: "SafeFsError", reason: "IsDirectory", message: `"${root}" is a directory` })
      expect(yield* place(at("kept.txt"), false)).toEqual({
        tag: "DestinationExists",
        reason: undefined,
        message: `"${at("kept.txt")}" already exists (a file); pass overwrite: true to replace it`
      })
      expect(yield* place(at("dir"), true)).toEqual({
        tag: "SafeFsError",
        reason: "IsDirectory",
        message: `"${at("dir")}" is a directory, not a file`
      })
      expect(yield* place(at("link"), true)).toMatchObject({ tag: "SafeFsError", reason: "Changed" })
      expect(yield* place(at("pipe"), true)).toEqual({
        tag: "SafeFsError",
        reason: "NotRegularFile",
        message: `"${at("pipe")}" is a FIFO, not a regular file`
      })
      expect(Fs.readFileSync(at("kept.txt"), "utf8")).toBe("kept")
      expect(Fs.readlinkSync(at("link"))).toBe("kept.txt")
      expect(tree(root)).toEqual(["dir", "kept.txt", "link", "pipe"])
    }))

  it.effect("placements at one path at once without overwrite: exactly one lands, the rest are refused, no temp file stays", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("place-race-")
      const target = Path.join(root, "one.txt")
      const n = 24
      const outcomes = yield* Effect.all(
        Array.from({ length: n }, (_, i) => outcome(placeBytes(root, target, bytesOf(`writer ${i}`), { overwrite: false }))),
        { concurrency: "unbounded" }
      )
      const landed = outcomes.flatMap((o, i) => ("ok" in o ? [i] : []))
      expect(landed).toHaveLength(1)
      // each refusal says the same, whether it was seen before the write or by the link itself
      expect(outcomes.filter((o) => "tag" in o)).toEqual(Array.from({ length: n - 1 }, () => ({
        tag: "DestinationExists",
        reason: undefined,
        message: `"${target}" already exists (a file); pass overwrite: true to replace it`
      })))
      expect(Fs.readFileSync(target, "utf8")).toBe(`writer ${landed[0]}`)
      expect(tree(root)).toEqual(["one.txt"])
    }))

  it.effect("a refusal without overwrite touches nothing: no temp file is written beside the file there", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("place-untouched-")
      const target = Path.join(root, "kept.txt")
      Fs.writeFileSync(target, "kept")
      // a file created and removed in the directory would change its modification time
      const past = new Date(Date.now() - 3_600_000)
      Fs.utimesSync(root, past, past)
      expect(yield* outcome(placeBytes(root, target, bytesOf("x"), { overwrite: false }))).toMatchObject({ tag: "DestinationExists" })
      expect(Math.round(Fs.statSync(root).mtimeMs)).toBe(past.getTime())
      expect(Fs.readFileSync(target, "utf8")).toBe("kept")
    }))

  it.effect("the temp file of a linked placement is removed without a warning", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("place-quiet-")
      const [result, lines] = yield* recordingLogs(placeBytes(root, Path.join(root, "new.txt"), bytesOf("x"), { overwrite: false }))
      expect(result).toEqual({ replaced: false, bytes: 1 })
      expect(lines).toEqual([])
      expect(tree(root)).toEqual(["new.txt"])
    }))
})
