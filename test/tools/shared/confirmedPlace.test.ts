/**
 * `confirmedPlace.ts` below the tools (`download_file`, `generate_image`): a file is put at a
 * free path without asking; a file already there is replaced only in a confirmed call of the
 * tool (keeping its permission bits), and an unconfirmed call fails with
 * `ConfirmationRequired` ("would overwrite ...") leaving the file as it was. The hidden file a
 * stream is written to never outlives the call, and one that cannot be removed is reported.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result, Stream } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { ConfirmationRequired } from "../../../src/domain/errors.js"
import { CurrentCallConfirmation } from "../../../src/services/CallConfirmation.js"
import { entryExists, placeBytesConfirmed, writeStreamConfirmed } from "../../../src/tools/shared/confirmedPlace.js"
import { SafeFsError } from "../../../src/tools/shared/safeFsError.js"
import { recordingLogs, textOf } from "../../helpers/recordingLogs.js"
import { tempDir } from "../../helpers/tempDir.js"

const TOOL = "download_file"

/** `effect` run as a call of `tool` whose gate answers `confirmed` (asked when an effect needs it). */
const inCall = <A, E, R>(effect: Effect.Effect<A, E, R>, confirmed: Effect.Effect<boolean>, tool = TOOL) =>
  Effect.provideService(effect, CurrentCallConfirmation, { tool, confirmed })

const bytes = (text: string) => new TextEncoder().encode(text)
const chunks = (...texts: ReadonlyArray<string>) => Stream.fromIterable(texts.map(bytes))

const modeOf = (path: string) => Fs.statSync(path).mode & 0o777

describe("entryExists", () => {
  it.effect("a file is there; a missing name, a directory, or a missing folder is not", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      Fs.writeFileSync(Path.join(root, "file.txt"), "x")
      Fs.mkdirSync(Path.join(root, "dir"))
      expect(yield* entryExists(Path.join(root, "file.txt"))).toBe(true)
      expect(yield* entryExists(Path.join(root, "missing.txt"))).toBe(false)
      expect(yield* entryExists(Path.join(root, "dir"))).toBe(false)
      expect(yield* entryExists(Path.join(root, "no-folder", "file.txt"))).toBe(false)
    }))

  it.effect("a path below a file is a failure (NotDirectory), not a free path", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      Fs.writeFileSync(Path.join(root, "file.txt"), "x")
      const result = yield* Effect.result(entryExists(Path.join(root, "file.txt", "inner.txt")))
      expect(Result.isFailure(result) && result.failure.reason).toBe("NotDirectory")
    }))
})

describe("placeBytesConfirmed", () => {
  it.effect("a free path: the file is written without asking", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const path = Path.join(root, "image.png")
      expect(yield* placeBytesConfirmed(TOOL, root, path, "image.png", bytes("new"))).toEqual({ replaced: false, bytes: 3 })
      expect(Fs.readFileSync(path, "utf8")).toBe("new")
    }))

  it.effect("an existing file in an unconfirmed call: ConfirmationRequired naming it, the file as it was", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const path = Path.join(root, "image.png")
      Fs.writeFileSync(path, "old")
      const result = yield* Effect.result(
        inCall(placeBytesConfirmed(TOOL, root, path, "image.png", bytes("new")), Effect.succeed(false))
      )
      expect(result).toEqual(Result.fail(new ConfirmationRequired({ tool: TOOL, reason: "would overwrite image.png" })))
      expect(Fs.readFileSync(path, "utf8")).toBe("old")
    }))

  it.effect("an existing file in a confirmed call: replaced", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const path = Path.join(root, "image.png")
      Fs.writeFileSync(path, "old")
      const outcome = yield* inCall(placeBytesConfirmed(TOOL, root, path, "image.png", bytes("newer")), Effect.succeed(true))
      expect(outcome).toEqual({ replaced: true, bytes: 5 })
      expect(Fs.readFileSync(path, "utf8")).toBe("newer")
    }))
})

describe("writeStreamConfirmed", () => {
  it.effect("a free path: the stream is written there without asking, no hidden file left, nothing logged", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const path = Path.join(root, "page.html")
      const [outcome, logged] = yield* recordingLogs(writeStreamConfirmed(TOOL, root, path, "page.html", chunks("ab", "cd"), 100))
      expect(outcome).toEqual({ replaced: false, bytes: 4 })
      expect(Fs.readFileSync(path, "utf8")).toBe("abcd")
      expect(Fs.readdirSync(root)).toEqual(["page.html"])
      expect(logged.map(textOf)).toEqual([])
    }))

  it.effect("an existing file in an unconfirmed call: ConfirmationRequired naming it, the file as it was, no hidden file left", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const path = Path.join(root, "page.html")
      Fs.writeFileSync(path, "old")
      const result = yield* Effect.result(
        inCall(writeStreamConfirmed(TOOL, root, path, "page.html", chunks("new"), 100), Effect.succeed(false))
      )
      expect(result).toEqual(Result.fail(new ConfirmationRequired({ tool: TOOL, reason: "would overwrite page.html" })))
      expect(Fs.readFileSync(path, "utf8")).toBe("old")
      expect(Fs.readdirSync(root)).toEqual(["page.html"])
    }))

  it.effect("an existing file in a confirmed call: replaced, keeping the old file's permission bits", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const path = Path.join(root, "run.sh")
      Fs.writeFileSync(path, "old")
      Fs.chmodSync(path, 0o751)
      const outcome = yield* inCall(writeStreamConfirmed(TOOL, root, path, "run.sh", chunks("new", "er"), 100), Effect.succeed(true))
      expect(outcome).toEqual({ replaced: true, bytes: 5 })
      expect(Fs.readFileSync(path, "utf8")).toBe("newer")
      expect(modeOf(path)).toBe(0o751)
      expect(Fs.readdirSync(root)).toEqual(["run.sh"])
    }))

  it.effect("a directory at the path: IsDirectory saying so, no hidden file left", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const path = Path.join(root, "out")
      Fs.mkdirSync(path)
      const result = yield* Effect.result(writeStreamConfirmed(TOOL, root, path, "out", chunks("x"), 100))
      expect(Result.isFailure(result) && result.failure).toMatchObject({
        _tag: "SafeFsError",
        reason: "IsDirectory",
        path,
        message: `"${path}" is a directory`
      })
      expect(Fs.readdirSync(root)).toEqual(["out"])
    }))

  it.effect("a FIFO at the path: NotRegularFile, as the move says it", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const path = Path.join(root, "pipe")
      ChildProcess.execFileSync("mkfifo", [path])
      const result = yield* Effect.result(
        inCall(writeStreamConfirmed(TOOL, root, path, "pipe", chunks("x"), 100), Effect.succeed(true))
      )
      expect(Result.isFailure(result) && result.failure).toMatchObject({ _tag: "SafeFsError", reason: "NotRegularFile", path })
      expect(Fs.readdirSync(root)).toEqual(["pipe"])
    }))

  it.effect("the stream's own failure is the call's, as it is, even a SafeFsError about another path", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const path = Path.join(root, "copy.txt")
      const own = new SafeFsError({ reason: "IsDirectory", path: Path.join(root, "source"), message: "the source is a directory" })
      const result = yield* Effect.result(writeStreamConfirmed(TOOL, root, path, "copy.txt", Stream.fail(own), 100))
      expect(result).toEqual(Result.fail(own))
      expect(Fs.readdirSync(root)).toEqual([])
    }))

  it.effect("a hidden file that cannot be removed at the end of the call is reported in a warning naming it", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const path = Path.join(root, "page.html")
      Fs.writeFileSync(path, "old")
      let hidden = ""
      // while the call asks, another process puts a directory where the hidden file was
      const swapThenRefuse = Effect.sync(() => {
        hidden = Path.join(root, Fs.readdirSync(root).find((name) => name !== "page.html") ?? "")
        Fs.rmSync(hidden)
        Fs.mkdirSync(hidden)
        return false
      })
      const [result, logged] = yield* recordingLogs(
        Effect.result(inCall(writeStreamConfirmed(TOOL, root, path, "page.html", chunks("new"), 100), swapThenRefuse))
      )
      expect(Result.isFailure(result) && result.failure._tag).toBe("ConfirmationRequired")
      expect(Fs.readFileSync(path, "utf8")).toBe("old")
      expect(logged.map(textOf)).toEqual([expect.stringContaining(`could not remove the temp file "${hidden}"`)])
    }))
})
