/**
 * The entry helpers of `safeFsEntry.ts` on a real directory: `lstatEntry` (a missing entry is
 * `None`, other failures fail), `removeIfSame` (only the very file it was given), which errnos
 * mean "no hard links here", and `requireRegularFile`'s refusals.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { openDirectory, SafeFsError } from "../../../src/tools/shared/safeFs.js"
import { entryOf, lstatEntry, noHardLinks, removeIfSame, requireRegularFile } from "../../../src/tools/shared/safeFsEntry.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"

const dir = makeTempDirSync("safe-fs-entry-")
afterAll(() => Fs.rmSync(dir, { recursive: true, force: true }))

const inDir = <A, E>(use: (open: Effect.Success<ReturnType<typeof openDirectory>>) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.flatMap(openDirectory(dir), use))

describe("safeFsEntry", () => {
  it.effect("lstatEntry: the entry's own stats (a link is not followed), None when nothing is there", () =>
    inDir((open) =>
      Effect.gen(function*() {
        Fs.writeFileSync(Path.join(dir, "file.txt"), "x")
        Fs.symlinkSync("file.txt", Path.join(dir, "link"))
        const file = yield* lstatEntry(entryOf(open, "file.txt"))
        expect(Option.isSome(file) && file.value.isFile()).toBe(true)
        const link = yield* lstatEntry(entryOf(open, "link"))
        expect(Option.isSome(link) && link.value.isSymbolicLink()).toBe(true)
        expect(yield* lstatEntry(entryOf(open, "missing"))).toEqual(Option.none())
        // not "nothing there": a path through a file fails
        const through = yield* Effect.flip(lstatEntry(entryOf(open, "file.txt/inner")))
        expect(through).toBeInstanceOf(SafeFsError)
      })))

  it.effect("removeIfSame removes the file only while it is the one given; otherwise it reports false", () =>
    inDir((open) =>
      Effect.gen(function*() {
        const path = Path.join(dir, "mine.txt")
        Fs.writeFileSync(path, "mine")
        const own = Fs.lstatSync(path, { bigint: true })
        // replaced by another file under the same name (the first one kept elsewhere, so that its inode
        // cannot be given to the new one): left alone
        Fs.renameSync(path, Path.join(dir, "mine-moved.txt"))
        Fs.writeFileSync(path, "theirs")
        expect(yield* removeIfSame(entryOf(open, "mine.txt"), own)).toBe(false)
        expect(Fs.readFileSync(path, "utf8")).toBe("theirs")
        const theirs = Fs.lstatSync(path, { bigint: true })
        expect(yield* removeIfSame(entryOf(open, "mine.txt"), theirs)).toBe(true)
        expect(Fs.existsSync(path)).toBe(false)
        // gone already
        expect(yield* removeIfSame(entryOf(open, "mine.txt"), theirs)).toBe(false)
      })))

  it("noHardLinks: the errnos of a file system without hard links, and no other", () => {
    const error = (code: string | undefined) => new SafeFsError({ reason: "Io", path: "/x", message: "m", code })
    for (const code of ["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EMLINK"]) expect(noHardLinks(error(code)), code).toBe(true)
    for (const code of ["EEXIST", "ENOENT", "EXDEV", "EACCES", undefined]) expect(noHardLinks(error(code)), String(code)).toBe(false)
  })

  it.effect("requireRegularFile: a file passes; a directory, a link and a FIFO are refused, each as what it is", () =>
    Effect.gen(function*() {
      const stats = (name: string) => Fs.lstatSync(Path.join(dir, name), { bigint: true })
      Fs.writeFileSync(Path.join(dir, "plain"), "p")
      Fs.mkdirSync(Path.join(dir, "sub"))
      Fs.symlinkSync("plain", Path.join(dir, "plain-link"))
      ChildProcess.execFileSync("mkfifo", [Path.join(dir, "pipe")])
      yield* requireRegularFile(stats("plain"), "plain")
      expect(yield* Effect.flip(requireRegularFile(stats("sub"), "sub"))).toMatchObject({
        reason: "IsDirectory",
        message: "\"sub\" is a directory, not a file"
      })
      expect((yield* Effect.flip(requireRegularFile(stats("plain-link"), "plain-link"))).reason).toBe("Changed")
      expect(yield* Effect.flip(requireRegularFile(stats("pipe"), "pipe"))).toMatchObject({
        reason: "NotRegularFile",
        kind: "FIFO",
        message: "\"pipe\" is a FIFO, not a regular file"
      })
    }))
})
