/**
 * `AuditLog.layerJsonl`'s rotation by size: five old files by default, the newest records
 * last; a record larger than `maxBytes` gets a file of its own without leaving an empty one
 * behind; a batch split across two files costs two writes, not one a record; a write that
 * fails after a rotation logs exactly the records it lost; every rotated file is closed.
 * On the test's `TestClock`, which nothing moves: a batch ends full or at the close, never at
 * the flush interval. (Effect 4: the counting file system and the logger are the harness's;
 * log levels are strings.)
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { describe, expect, it } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import type * as FileSystem from "effect/FileSystem"
import type * as Path from "effect/Path"
import * as fs from "node:fs"
import * as path from "node:path"
import { AuditLog, type AuditLogJsonlOptions, type AuditRecord } from "../../src/services/AuditLog.js"
import { countingFileSystem, openDescriptors, recordingLogger } from "../helpers/auditLogHarness.js"
import { tempDir } from "../helpers/tempDir.js"

/** Records 100..999 all serialize to the same length. */
const record = (i: number): AuditRecord => ({
  time: new Date(1_700_000_000_000 + i).toISOString(),
  tool: "read_file",
  version: "1.0.0",
  mode: "default",
  callId: `call-${i}`,
  rateLimitKey: null,
  argumentsHash: "ab".repeat(32),
  gates: [{ gate: "lookup", outcome: "pass", reason: "found" }],
  success: true,
  errorCode: null,
  durationMs: 1,
  traceId: null,
  spanId: null
})
const line = (i: number) => `${JSON.stringify(record(i))}\n`
const lineBytes = Buffer.byteLength(line(100))

const idsIn = (file: string): Array<string | null> =>
  fs.existsSync(file)
    ? fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((l) => (JSON.parse(l) as AuditRecord).callId)
    : []

const ids = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `call-${from + i}`)

/** How many of this process's file descriptors are open on a file of `dir`. */
const openDescriptorsIn = (dir: string): number => openDescriptors(dir, true)

/** Writes `records` (one batch when `batchSize` is their number), then closes the log. */
const writeAll = (
  options: AuditLogJsonlOptions,
  records: ReadonlyArray<AuditRecord>,
  platform: Layer.Layer<FileSystem.FileSystem | Path.Path> = NodeServices.layer
) =>
  Effect.flatMap(AuditLog, (log) => Effect.forEach(records, log.write, { discard: true })).pipe(
    Effect.provide(AuditLog.layerJsonl(options)),
    Effect.provide(platform)
  )

describe("AuditLog.layerJsonl rotation", () => {
  it.effect("keeps five old files by default, the oldest records dropped, the newest last", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("audit-rot-")
      const file = path.join(dir, "audit.jsonl")
      // one record a file
      yield* writeAll({ file, maxBytes: lineBytes, batchSize: 8, flushInterval: "1 hour" }, ids(100, 108).map((_, i) => record(100 + i)))
      expect(fs.readdirSync(dir).sort()).toEqual(["audit.jsonl", ...[1, 2, 3, 4, 5].map((n) => `audit.jsonl.${n}`)])
      const kept = [5, 4, 3, 2, 1].map((n) => `${file}.${n}`).concat([file]).map(idsIn)
      expect(kept.flat()).toEqual(ids(102, 108))
      expect(openDescriptorsIn(dir)).toBe(0)
    }))

  it.effect("a record larger than maxBytes goes into the empty file as it is: no empty file is rotated", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("audit-rot-")
      const file = path.join(dir, "audit.jsonl")
      yield* writeAll({ file, maxBytes: 50, maxFiles: 3, batchSize: 2, flushInterval: "1 hour" }, [record(100), record(101)])
      expect(fs.readdirSync(dir).sort()).toEqual(["audit.jsonl", "audit.jsonl.1"])
      expect(idsIn(`${file}.1`)).toEqual(["call-100"])
      expect(idsIn(file)).toEqual(["call-101"])
    }))

  it.effect("a file filled to exactly maxBytes is rotated only at the next record", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("audit-rot-")
      const file = path.join(dir, "audit.jsonl")
      // 9 lines first, then a batch of 2: one more fills the file exactly, the last starts a new one
      yield* writeAll({ file, maxBytes: lineBytes * 10, batchSize: 9, flushInterval: "1 hour" }, ids(100, 109).map((_, i) => record(100 + i)))
      expect(fs.statSync(file).size).toBe(lineBytes * 9)
      yield* writeAll({ file, maxBytes: lineBytes * 10, batchSize: 2, flushInterval: "1 hour" }, [record(109), record(110)])
      expect(idsIn(`${file}.1`)).toEqual(ids(100, 110))
      expect(fs.statSync(`${file}.1`).size).toBe(lineBytes * 10)
      expect(idsIn(file)).toEqual(["call-110"])
    }))

  it.effect("a batch split across two files is two writes: what fits, then the rest", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("audit-rot-")
      const file = path.join(dir, "audit.jsonl")
      const counter = { writes: 0, failNext: 0, failAt: 0 }
      yield* writeAll(
        { file, maxBytes: lineBytes * 10, batchSize: 15, flushInterval: "1 hour" },
        ids(100, 115).map((_, i) => record(100 + i)),
        countingFileSystem(counter)
      )
      expect(counter.writes).toBe(2)
      expect(idsIn(`${file}.1`)).toEqual(ids(100, 110))
      expect(idsIn(file)).toEqual(ids(110, 115))
      expect(openDescriptorsIn(dir)).toBe(0)
    }))

  it.effect("a write that fails after a rotation logs exactly the records that were not written", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("audit-rot-")
      const file = path.join(dir, "audit.jsonl")
      const counter = { writes: 0, failNext: 0, failAt: 2 }
      const { layer: logger, logs } = recordingLogger()
      yield* writeAll(
        { file, maxBytes: lineBytes * 10, batchSize: 15, flushInterval: "1 hour" },
        ids(100, 115).map((_, i) => record(100 + i)),
        countingFileSystem(counter)
      ).pipe(Effect.provide(logger))
      expect(idsIn(`${file}.1`)).toEqual(ids(100, 110))
      expect(idsIn(file)).toEqual([])
      const errors = logs.filter((l) => l.level === "Error").map((l) => l.message)
      expect(errors).toHaveLength(1)
      const [text, lost] = Array.isArray(errors[0]) ? errors[0] : []
      expect(String(text)).toContain(`Audit log ${file}: 5 records could not be written`)
      expect(lost).toBe(ids(110, 115).map((_, i) => line(110 + i)).join(""))
      expect(openDescriptorsIn(dir)).toBe(0)
    }))
})
