/**
 * What may be at the audit log's path (issue 47, item 11): a symbolic link, a FIFO with or
 * without a reader, a directory, a file others can read, no folder at all. The log never follows
 * the link, never hangs, refuses what is not a regular file with a message that says why, makes
 * the file private, and creates its folder.
 *
 * Effect 4: the bound on real time is a race with a real timer (Effect 3's
 * `TestServices.provideWithLive` is gone); the layer's defect is found with `Cause.hasDies`.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, FileSystem } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { openAuditFile } from "../../src/layers/auditFile.js"
import { AuditLog, type AuditRecord } from "../../src/services/AuditLog.js"
import { tempDir } from "../helpers/tempDir.js"

const record: AuditRecord = {
  time: new Date(1_700_000_000_000).toISOString(),
  tool: "read_file",
  version: "1.0.0",
  mode: "default",
  callId: "call-1",
  rateLimitKey: null,
  argumentsHash: "ab".repeat(32),
  gates: [],
  success: true,
  errorCode: null,
  durationMs: 1,
  traceId: null,
  spanId: null
}

/** Fails with "the audit log hung" after `ms` of real time (whatever the fiber's clock). */
const realTimeout = (ms: number) =>
  Effect.callback<never, Error>((resume) => {
    const timer = setTimeout(() => resume(Effect.fail(new Error("the audit log hung"))), ms)
    return Effect.sync(() => clearTimeout(timer))
  })

/**
 * Opens the log at `file`, writes one record and closes it; within 5 s or the test fails. The
 * bound is on real time (an open of a FIFO may block in the OS, whatever the clock); the log
 * itself runs on the test's clock (its close writes the record, no flush interval passes).
 */
const writeOne = (file: string) =>
  Effect.scoped(Effect.flatMap(AuditLog, (log) => log.write(record))).pipe(
    Effect.provide(AuditLog.layerJsonl({ file })),
    Effect.provide(NodeServices.layer),
    Effect.raceFirst(realTimeout(5_000)),
    Effect.exit
  )

/** The defect's text when the layer refused, else `undefined`. */
const refusal = (exit: Exit.Exit<unknown, unknown>): string | undefined =>
  Exit.isFailure(exit) && Cause.hasDies(exit.cause) ? Cause.pretty(exit.cause) : undefined

describe("AuditLog.layerJsonl at a hostile path", () => {
  it.effect("a symbolic link at the path is not followed: refused, its target untouched", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("audit-hostile-")
      const target = path.join(dir, "elsewhere.txt")
      fs.writeFileSync(target, "keep me\n")
      const file = path.join(dir, "audit.jsonl")
      fs.symlinkSync(target, file)
      const exit = yield* writeOne(file)
      expect(refusal(exit)).toContain(`Cannot open the audit log ${file}: it is a symbolic link`)
      expect(fs.readFileSync(target, "utf8")).toBe("keep me\n")
    }))

  it.effect("a dangling symbolic link is not followed either: nothing is created at its target", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("audit-hostile-")
      const target = path.join(dir, "planted.jsonl")
      const file = path.join(dir, "audit.jsonl")
      fs.symlinkSync(target, file)
      expect(refusal(yield* writeOne(file))).toContain("it is a symbolic link")
      expect(fs.existsSync(target)).toBe(false)
    }))

  it.effect("a FIFO without a reader: refused at once, no hang", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("audit-hostile-")
      const file = path.join(dir, "audit.jsonl")
      execFileSync("mkfifo", [file])
      expect(refusal(yield* writeOne(file))).toContain("it is a FIFO or socket, not a regular file")
    }))

  it.effect("a FIFO with a reader: refused, nothing written into it", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("audit-hostile-")
      const file = path.join(dir, "audit.jsonl")
      execFileSync("mkfifo", [file])
      // this process is the reader: a non-blocking read end opens at once and stays open
      const reader = yield* Effect.acquireRelease(
        Effect.sync(() => fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)),
        (fd) => Effect.sync(() => fs.closeSync(fd))
      )
      expect(refusal(yield* writeOne(file))).toContain("it is a FIFO, not a regular file")
      const buffer = Buffer.alloc(64)
      // no writer has it open and nothing was written: end of file at once
      expect(fs.readSync(reader, buffer)).toBe(0)
    }))

  it.effect("a directory at the path: refused with what it is", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("audit-hostile-")
      const file = path.join(dir, "audit.jsonl")
      fs.mkdirSync(file)
      expect(refusal(yield* writeOne(file))).toContain(`Cannot open the audit log ${file}`)
    }))

  it.effect("an existing file others can read is made private (0600) and appended to", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("audit-hostile-")
      const file = path.join(dir, "audit.jsonl")
      fs.writeFileSync(file, "")
      fs.chmodSync(file, 0o644)
      const exit = yield* writeOne(file)
      expect(Exit.isSuccess(exit)).toBe(true)
      expect(fs.statSync(file).mode & 0o777).toBe(0o600)
      expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual(record)
    }))

  it.effect("a missing folder is created (private), and the log written in it", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("audit-hostile-")
      const file = path.join(dir, "logs", "today", "audit.jsonl")
      const exit = yield* writeOne(file)
      expect(Exit.isSuccess(exit)).toBe(true)
      expect(fs.statSync(path.join(dir, "logs", "today")).mode & 0o777).toBe(0o700)
      expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual(record)
    }))

  it.effect("an existing private file keeps its mode, even one narrower than 0600", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("audit-hostile-")
      const file = path.join(dir, "audit.jsonl")
      fs.writeFileSync(file, "")
      fs.chmodSync(file, 0o200)
      expect(Exit.isSuccess(yield* writeOne(file))).toBe(true)
      expect(fs.statSync(file).mode & 0o777).toBe(0o200)
    }))

  it.effect("a folder that cannot be created: refused, saying so", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("audit-hostile-")
      fs.writeFileSync(path.join(dir, "a-file"), "")
      const file = path.join(dir, "a-file", "audit.jsonl")
      expect(refusal(yield* writeOne(file))).toContain(`Cannot open the audit log ${file}: its folder cannot be created: `)
    }))

  it.effect("the error of a refused file names the file and the reason", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("audit-hostile-")
      const file = path.join(dir, "audit.jsonl")
      fs.mkdirSync(file)
      const error = yield* Effect.flip(Effect.scoped(Effect.flatMap(FileSystem.FileSystem, (system) => openAuditFile(system, file))))
      expect(error.message).toBe(`${file}: ${error.reason}`)
      expect(error.reason).toContain("is a directory")
    }).pipe(Effect.provide(NodeServices.layer)))
})
