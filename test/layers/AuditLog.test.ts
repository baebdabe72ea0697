/**
 * The audit log's layers on their own: the JSON-lines file (order, batching, rotation, the
 * drain on close, 10,000 concurrent writers, arguments kept or not, a failing disk) and the
 * logger layer.
 */
import { SystemError } from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Layer, Logger, LogLevel, TestClock } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { AuditLog, type AuditLogJsonlOptions, type AuditRecord } from "../../src/services/AuditLog.js"
import { tempDir } from "../helpers/tempDir.js"

const record = (i: number, args?: unknown): AuditRecord => ({
  time: new Date(1_700_000_000_000 + i).toISOString(),
  tool: "read_file",
  version: "1.0.0",
  mode: "default",
  callId: `call-${i}`,
  rateLimitKey: null,
  argumentsHash: "ab".repeat(32),
  ...(args === undefined ? {} : { arguments: args }),
  gates: [{ gate: "lookup", outcome: "pass", reason: "found" }, { gate: "mode", outcome: "pass", reason: "allowed" }],
  success: true,
  errorCode: null,
  durationMs: 1.5,
  traceId: null,
  spanId: null
})

const readLines = (file: string): Array<string> =>
  fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "") : []

const readRecords = (file: string): Array<AuditRecord> => readLines(file).map((l): AuditRecord => JSON.parse(l))

/** Waits (on the real clock, whatever the test's clock) until `done()`, at most `ms`. */
const waitUntil = (done: () => boolean, ms = 3_000) =>
  Effect.promise(async () => {
    const deadline = Date.now() + ms
    while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5))
    return done()
  })

/** Node's file system, counting the `writeAll` calls on the files it opens (one per batch). */
const countingFileSystem = (counter: { writes: number; failNext: number }) =>
  Layer.effect(
    FileSystem.FileSystem,
    Effect.map(FileSystem.FileSystem, (real): FileSystem.FileSystem => ({
      ...real,
      open: (p, options) =>
        Effect.map(real.open(p, options), (file) =>
          new Proxy(file, {
            get: (target, key) =>
              key === "writeAll"
                ? (buffer: Uint8Array) => {
                  counter.writes++
                  if (counter.failNext > 0) {
                    counter.failNext--
                    return Effect.fail(
                      new SystemError({ reason: "Unknown", module: "FileSystem", method: "writeAll", description: "disk full (test)" })
                    )
                  }
                  return target.writeAll(buffer)
                }
                : Reflect.get(target, key, target)
          }))
    }))
  ).pipe(Layer.provideMerge(NodeContext.layer))

/** Runs `body` with a jsonl audit log whose scope closes when `body` ends. */
const withJsonl = <A, E>(
  options: AuditLogJsonlOptions,
  body: Effect.Effect<A, E, AuditLog>,
  platform: Layer.Layer<FileSystem.FileSystem | Path.Path> = NodeContext.layer
) => body.pipe(Effect.provide(AuditLog.layerJsonl(options)), Effect.provide(platform))

/** A logger that keeps what it is given. */
const recordingLogger = () => {
  const logs: Array<{ level: LogLevel.LogLevel; message: unknown; annotations: Record<string, unknown> }> = []
  const logger = Logger.make(({ annotations, logLevel, message }) => {
    logs.push({ level: logLevel, message, annotations: Object.fromEntries(annotations) })
  })
  return { logs, layer: Logger.replace(Logger.defaultLogger, logger) }
}

const messageText = (message: unknown) => (Array.isArray(message) ? message.map(String).join(" ") : String(message))

describe("AuditLog.layerJsonl", () => {
  it.scopedLive("one parseable line per record, in order, file mode 0600, arguments left out by default", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-"), "audit.jsonl")
      yield* withJsonl(
        { file },
        Effect.gen(function*() {
          const log = yield* AuditLog
          expect(log.enabled).toBe(true)
          expect(log.includeArguments).toBe(false)
          for (let i = 0; i < 1_000; i++) yield* log.write(record(i, { filepath: `f${i}.txt` }))
        })
      )
      const records = readRecords(file)
      expect(records.map((r) => r.callId)).toEqual(Array.from({ length: 1_000 }, (_, i) => `call-${i}`))
      expect(records[7]).toEqual(record(7))
      expect(records.every((r) => !("arguments" in r))).toBe(true)
      expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    }))

  it.scopedLive("includeArguments keeps the arguments; arguments JSON refuses do not lose the record", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-"), "audit.jsonl")
      yield* withJsonl(
        { file, includeArguments: true },
        Effect.gen(function*() {
          const log = yield* AuditLog
          expect(log.includeArguments).toBe(true)
          yield* log.write(record(0, { filepath: "a.txt", n: 1 }))
          yield* log.write(record(1, { big: 1n }))
          yield* log.write(record(2))
        })
      )
      const [first, second, third, ...rest] = readLines(file).map((l): Record<string, unknown> => JSON.parse(l))
      expect(rest).toEqual([])
      expect(first).toMatchObject({ callId: "call-0", arguments: { filepath: "a.txt", n: 1 } })
      expect(second).toMatchObject({ callId: "call-1", argumentsHash: "ab".repeat(32) })
      expect(second?.arguments).toBeUndefined()
      expect(String(second?.argumentsError)).toContain("BigInt")
      expect(third).toEqual(record(2))
    }))

  it.scopedLive("appends to an existing file (the options may be just its path)", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-"), "audit.jsonl")
      yield* withJsonl({ file }, Effect.flatMap(AuditLog, (log) => log.write(record(0))))
      yield* Effect.flatMap(AuditLog, (log) => log.write(record(1))).pipe(
        Effect.provide(AuditLog.layerJsonl(file)),
        Effect.provide(NodeContext.layer)
      )
      expect(readRecords(file).map((r) => r.callId)).toEqual(["call-0", "call-1"])
    }))

  it.scopedLive("batches by count: a full batch is written at once, the rest waits for the interval", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-"), "audit.jsonl")
      const counter = { writes: 0, failNext: 0 }
      yield* withJsonl(
        { file, batchSize: 100, flushInterval: "1 hour" },
        Effect.gen(function*() {
          const log = yield* AuditLog
          // a lone record is held (the interval is an hour) ...
          yield* log.write(record(0))
          yield* Effect.sleep("50 millis")
          expect(readLines(file).length).toBe(0)
          // ... until the batch is full: then at once
          for (let i = 1; i < 200; i++) yield* log.write(record(i))
          expect(yield* waitUntil(() => readLines(file).length === 200)).toBe(true)
          for (let i = 200; i < 250; i++) yield* log.write(record(i))
          // the 50 left are held for the interval: still 200 a moment later
          yield* Effect.sleep("100 millis")
          expect(readLines(file).length).toBe(200)
          expect(counter.writes).toBe(2)
        }),
        countingFileSystem(counter)
      )
      // the close wrote the rest, in one more batch
      expect(readRecords(file).map((r) => r.callId)).toEqual(Array.from({ length: 250 }, (_, i) => `call-${i}`))
      expect(counter.writes).toBe(3)
    }))

  it.scopedLive("batches by time: a lone record is written within the interval, without a close", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-"), "audit.jsonl")
      yield* withJsonl(
        { file, batchSize: 1_000, flushInterval: "30 millis" },
        Effect.gen(function*() {
          const log = yield* AuditLog
          for (let i = 0; i < 3; i++) yield* log.write(record(i))
          expect(yield* waitUntil(() => readLines(file).length === 3, 2_000)).toBe(true)
        })
      )
      expect(readLines(file).length).toBe(3)
    }))

  it.scoped("under a TestClock that never moves, the close still writes everything (no hang)", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-"), "audit.jsonl")
      yield* withJsonl(
        { file, batchSize: 1_000, flushInterval: "1 second" },
        Effect.gen(function*() {
          const log = yield* AuditLog
          for (let i = 0; i < 5; i++) yield* log.write(record(i))
          yield* Effect.promise(() => new Promise((r) => setTimeout(r, 50)))
          expect(readLines(file).length).toBe(0)
          yield* TestClock.adjust("1 second")
          expect(yield* waitUntil(() => readLines(file).length === 5)).toBe(true)
          yield* log.write(record(5))
        })
      )
      expect(readLines(file).length).toBe(6)
    }))

  it.scopedLive("rotates by size: files never pass maxBytes, maxFiles old ones kept, the newest records last", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("audit-")
      const file = path.join(dir, "audit.jsonl")
      const lineBytes = Buffer.byteLength(JSON.stringify(record(100)) + "\n")
      const maxBytes = lineBytes * 10
      yield* withJsonl(
        { file, maxBytes, maxFiles: 2, batchSize: 7 },
        Effect.gen(function*() {
          const log = yield* AuditLog
          // ids 100..199 all serialize to the same length
          for (let i = 100; i < 200; i++) yield* log.write(record(i))
        })
      )
      expect(fs.readdirSync(dir).sort()).toEqual(["audit.jsonl", "audit.jsonl.1", "audit.jsonl.2"])
      const kept = [`${file}.2`, `${file}.1`, file].map(readRecords)
      for (const f of [`${file}.2`, `${file}.1`, file]) {
        expect(fs.statSync(f).size).toBeLessThanOrEqual(maxBytes)
        expect(fs.statSync(f).mode & 0o777).toBe(0o600)
      }
      // 100 records, 10 a file: the last 30 are kept, in order across the files
      expect(kept.map((rs) => rs.length)).toEqual([10, 10, 10])
      expect(kept.flat().map((r) => r.callId)).toEqual(Array.from({ length: 30 }, (_, i) => `call-${170 + i}`))
    }))

  it.scopedLive("maxFiles 0 keeps no old file; a record larger than maxBytes gets a file of its own", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("audit-")
      const file = path.join(dir, "audit.jsonl")
      yield* withJsonl(
        { file, maxBytes: 50, maxFiles: 0 },
        Effect.gen(function*() {
          const log = yield* AuditLog
          yield* log.write(record(1))
          yield* log.write(record(2))
        })
      )
      expect(fs.readdirSync(dir)).toEqual(["audit.jsonl"])
      expect(readRecords(file).map((r) => r.callId)).toEqual(["call-2"])
    }))

  it.scopedLive("nothing is lost when the scope closes, nor when the fiber that holds it is interrupted", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("audit-")
      const closed = path.join(dir, "closed.jsonl")
      yield* withJsonl(
        { file: closed, batchSize: 100_000, flushInterval: "1 hour" },
        Effect.flatMap(AuditLog, (log) => Effect.forEach(Array.from({ length: 1_234 }, (_, i) => i), (i) => log.write(record(i)))),
      )
      expect(readRecords(closed).length).toBe(1_234)

      const interrupted = path.join(dir, "interrupted.jsonl")
      const fiber = yield* Effect.fork(withJsonl(
        { file: interrupted, batchSize: 100_000, flushInterval: "1 hour" },
        Effect.gen(function*() {
          const log = yield* AuditLog
          for (let i = 0; i < 500; i++) yield* log.write(record(i))
          return yield* Effect.never
        })
      ))
      yield* Effect.sleep("50 millis")
      yield* Fiber.interrupt(fiber)
      expect(readRecords(interrupted).map((r) => r.callId)).toEqual(Array.from({ length: 500 }, (_, i) => `call-${i}`))
    }))

  it.scopedLive("10,000 concurrent writes: exactly 10,000 parseable lines, in few batches, flushed quickly", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-"), "audit.jsonl")
      const counter = { writes: 0, failNext: 0 }
      let enqueued = 0
      yield* withJsonl(
        { file },
        Effect.flatMap(AuditLog, (log) =>
          Effect.forEach(Array.from({ length: 10_000 }, (_, i) => i), (i) => log.write(record(i)), {
            concurrency: "unbounded",
            discard: true
          })).pipe(Effect.zipRight(Effect.sync(() => {
            enqueued = Date.now()
          }))),
        countingFileSystem(counter)
      )
      // from the last `write` to the closed file: what the log itself costs (10,000 fibers
      // are Effect's business, and slow on a busy machine)
      const drained = Date.now() - enqueued
      const lines = readLines(file)
      expect(lines.length).toBe(10_000)
      const ids = new Set(lines.map((l) => (JSON.parse(l) as AuditRecord).callId))
      expect(ids.size).toBe(10_000)
      // 512 a batch by default
      expect(counter.writes).toBeGreaterThanOrEqual(Math.ceil(10_000 / 512))
      expect(counter.writes).toBeLessThanOrEqual(40)
      expect(drained).toBeLessThan(1_500)
    }))

  it.scopedLive("a batch the disk refuses is logged with its records; the next batch is written", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-"), "audit.jsonl")
      const counter = { writes: 0, failNext: 1 }
      const { layer, logs } = recordingLogger()
      yield* withJsonl(
        { file, batchSize: 2, flushInterval: "1 hour" },
        Effect.gen(function*() {
          const log = yield* AuditLog
          for (let i = 0; i < 4; i++) yield* log.write(record(i))
        }),
        countingFileSystem(counter)
      ).pipe(Effect.provide(layer))
      expect(readRecords(file).map((r) => r.callId)).toEqual(["call-2", "call-3"])
      const errors = logs.filter((l) => l.level._tag === "Error").map((l) => messageText(l.message))
      expect(errors).toHaveLength(1)
      expect(errors[0]).toContain("2 records could not be written")
      expect(errors[0]).toContain("\"callId\":\"call-0\"")
      expect(errors[0]).toContain("\"callId\":\"call-1\"")
    }))

  it.scopedLive("a write after the close is dropped and logged, and never fails", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-"), "audit.jsonl")
      const { layer, logs } = recordingLogger()
      const log = yield* withJsonl({ file }, AuditLog)
      yield* log.write(record(0)).pipe(Effect.provide(layer))
      expect(readLines(file)).toEqual([])
      expect(logs.map((l) => messageText(l.message)).join("\n")).toContain("is closed")
    }))

  it.scopedLive("a file that cannot be opened fails the layer, naming the file", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-"), "missing-dir", "audit.jsonl")
      const exit = yield* Effect.exit(withJsonl({ file }, AuditLog))
      expect(Exit.isFailure(exit) && Cause.pretty(exit.cause)).toContain(`Cannot open the audit log ${file}`)
    }))
})

describe("AuditLog.layerLogger", () => {
  it.effect("logs one line per record: a readable message, the record as the `audit` annotation", () =>
    Effect.gen(function*() {
      const { layer, logs } = recordingLogger()
      yield* Effect.gen(function*() {
        const log = yield* AuditLog
        expect(log.enabled).toBe(true)
        yield* log.write(record(1, { filepath: "secret.txt" }))
        yield* log.write({ ...record(2), success: false, errorCode: "MODE_BLOCKED", mode: "explore" })
      }).pipe(Effect.provide(AuditLog.layerLogger()), Effect.provide(layer))
      expect(logs.map((l) => l.level._tag)).toEqual(["Info", "Info"])
      expect(logs.map((l) => messageText(l.message))).toEqual([
        "tool call read_file@1.0.0 (mode default): ok in 2 ms",
        "tool call read_file@1.0.0 (mode explore): MODE_BLOCKED in 2 ms"
      ])
      expect(logs[0]?.annotations.audit).toEqual(record(1))
      expect(logs[1]?.annotations.audit).toMatchObject({ callId: "call-2", errorCode: "MODE_BLOCKED" })
    }))

  it.effect("includeArguments and the level are options", () =>
    Effect.gen(function*() {
      const { layer, logs } = recordingLogger()
      yield* Effect.flatMap(AuditLog, (log) => log.write(record(1, { filepath: "a.txt" }))).pipe(
        Effect.provide(AuditLog.layerLogger({ includeArguments: true, level: LogLevel.Warning })),
        Effect.provide(layer)
      )
      expect(logs.map((l) => l.level._tag)).toEqual(["Warning"])
      expect(logs[0]?.annotations.audit).toEqual(record(1, { filepath: "a.txt" }))
    }))
})
