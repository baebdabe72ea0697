/**
 * The audit log's layers on their own: the JSON-lines file (order, batching, rotation, the
 * drain on close, arguments kept or not, a failing disk) and the logger layer. 10,000
 * concurrent writers are in `AuditLog.slow.test.ts`.
 *
 * The writer waits for its flush interval on the fiber's Clock: these tests run on the test's
 * `TestClock`, so a batch waits for the interval only when the test moves the clock (once the
 * writer is asleep), and otherwise for a full batch or the close. The tests that wait for the
 * writer's sleep run under `countingSleeps` (Effect 4's TestClock does not list its sleepers).
 * The file itself is real: what the writer wrote is awaited in real time (`waitUntil`).
 *
 * Effect 4: log levels are strings (`"Warn"` for Effect 3's `LogLevel.Warning`), a logged
 * message is always the list of what was logged.
 */
import { describe, expect, it } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Cause, Clock, Deferred, Effect, Exit, Fiber } from "effect"
import { TestClock } from "effect/testing"
import * as fs from "node:fs"
import * as path from "node:path"
import { AuditLog, type AuditRecord } from "../../src/services/AuditLog.js"
import {
  countingFileSystem,
  type Counter,
  messageText,
  openDescriptors,
  readLines,
  record,
  recordingLogger,
  withJsonl
} from "../helpers/auditLogHarness.js"
import { tempDir } from "../helpers/tempDir.js"
import { countingSleeps, sleepersUntil } from "../helpers/testClock.js"

const HOUR = 3_600_000

const readRecords = (file: string): Array<AuditRecord> => readLines(file).map((l): AuditRecord => JSON.parse(l))

/** Waits (on the real clock, whatever the test's clock) until `done()`, at most `ms`. */
const waitUntil = (done: () => boolean, ms = 3_000) =>
  Effect.promise(async () => {
    const deadline = Date.now() + ms
    while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5))
    return done()
  })

describe("AuditLog.layerJsonl", () => {
  it.effect("one parseable line per record, in order, file mode 0600, arguments left out by default", () =>
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
      // the close closed the file
      expect(openDescriptors(file)).toBe(0)
    }))

  it.effect("includeArguments keeps the arguments; arguments JSON refuses are kept readable", () =>
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
      // arguments with no JSON form are kept readable (readableJson), not dropped
      expect(second?.arguments).toEqual({ big: "1n" })
      expect(second?.argumentsError).toBeUndefined()
      expect(third).toEqual(record(2))
    }))

  it.effect("appends to an existing file (the options may be just its path)", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-"), "audit.jsonl")
      yield* withJsonl({ file }, Effect.flatMap(AuditLog, (log) => log.write(record(0))))
      yield* Effect.flatMap(AuditLog, (log) => log.write(record(1))).pipe(
        Effect.provide(AuditLog.layerJsonl(file)),
        Effect.provide(NodeServices.layer)
      )
      expect(readRecords(file).map((r) => r.callId)).toEqual(["call-0", "call-1"])
    }))

  it.effect("batches by count: a full batch is written at once, the rest waits for the interval", () =>
    countingSleeps(Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-"), "audit.jsonl")
      const counter = { writes: 0, failNext: 0 }
      yield* withJsonl(
        { file, batchSize: 100, flushInterval: "1 hour" },
        Effect.gen(function*() {
          const log = yield* AuditLog
          // a lone record is held: the writer waits its hour, and a minute before it nothing is written ...
          yield* log.write(record(0))
          yield* sleepersUntil(HOUR)
          yield* TestClock.adjust("59 minutes")
          expect(counter.writes).toBe(0)
          // ... until the batch is full: then at once
          for (let i = 1; i < 200; i++) yield* log.write(record(i))
          expect(yield* waitUntil(() => readLines(file).length === 200)).toBe(true)
          for (let i = 200; i < 250; i++) yield* log.write(record(i))
          // the 50 left are held for a whole interval from when the writer took them ...
          yield* sleepersUntil((yield* Clock.currentTimeMillis) + HOUR)
          yield* TestClock.adjust("59 minutes")
          expect(counter.writes).toBe(2)
          expect(readLines(file).length).toBe(200)
          // ... and written at its end, in one more batch
          yield* TestClock.adjust("1 minute")
          expect(yield* waitUntil(() => readLines(file).length === 250)).toBe(true)
          expect(counter.writes).toBe(3)
        }),
        countingFileSystem(counter)
      )
      // the close had nothing left to write
      expect(readRecords(file).map((r) => r.callId)).toEqual(Array.from({ length: 250 }, (_, i) => `call-${i}`))
      expect(counter.writes).toBe(3)
    })))

  it.effect("batches by time: a lone record is written within the interval, without a close", () =>
    countingSleeps(Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-"), "audit.jsonl")
      yield* withJsonl(
        { file, batchSize: 1_000, flushInterval: "30 millis" },
        Effect.gen(function*() {
          const log = yield* AuditLog
          for (let i = 0; i < 3; i++) yield* log.write(record(i))
          // the writer waits its 30 ms for more: nothing before they pass, the three at their end
          yield* sleepersUntil(30)
          yield* TestClock.adjust("29 millis")
          expect(readLines(file)).toEqual([])
          yield* TestClock.adjust("1 millis")
          expect(yield* waitUntil(() => readLines(file).length === 3, 2_000)).toBe(true)
        })
      )
      expect(readLines(file).length).toBe(3)
    })))

  it.effect("under a TestClock that never moves, the close still writes everything (no hang)", () =>
    countingSleeps(Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-"), "audit.jsonl")
      yield* withJsonl(
        { file, batchSize: 1_000, flushInterval: "1 second" },
        Effect.gen(function*() {
          const log = yield* AuditLog
          for (let i = 0; i < 5; i++) yield* log.write(record(i))
          // the writer waits for its interval, which this clock reaches only when moved
          yield* sleepersUntil(1_000)
          expect(readLines(file).length).toBe(0)
          yield* TestClock.adjust("1 second")
          expect(yield* waitUntil(() => readLines(file).length === 5)).toBe(true)
          yield* log.write(record(5))
        })
      )
      expect(readLines(file).length).toBe(6)
    })))

  it.effect("rotates by size: files never pass maxBytes, maxFiles old ones kept, the newest records last", () =>
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

  it.effect("maxFiles 0 keeps no old file; a record larger than maxBytes gets a file of its own", () =>
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

  it.effect("nothing is lost when the scope closes, nor when the fiber that holds it is interrupted", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("audit-")
      const closed = path.join(dir, "closed.jsonl")
      yield* withJsonl(
        { file: closed, batchSize: 100_000, flushInterval: "1 hour" },
        Effect.flatMap(AuditLog, (log) => Effect.forEach(Array.from({ length: 1_234 }, (_, i) => i), (i) => log.write(record(i)))),
      )
      expect(readRecords(closed).length).toBe(1_234)

      const interrupted = path.join(dir, "interrupted.jsonl")
      // interrupted once its writes are done (a fixed delay may pass before they are, on a
      // loaded machine: the file is opened on libuv's thread pool, which others' lookups share)
      const written = yield* Deferred.make<void>()
      const fiber = yield* Effect.forkChild(withJsonl(
        { file: interrupted, batchSize: 100_000, flushInterval: "1 hour" },
        Effect.gen(function*() {
          const log = yield* AuditLog
          for (let i = 0; i < 500; i++) yield* log.write(record(i))
          yield* Deferred.succeed(written, undefined)
          return yield* Effect.never
        })
      ))
      expect(yield* Effect.raceFirst(Deferred.await(written).pipe(Effect.as("written")), Fiber.join(fiber))).toBe("written")
      yield* Fiber.interrupt(fiber)
      expect(readRecords(interrupted).map((r) => r.callId)).toEqual(Array.from({ length: 500 }, (_, i) => `call-${i}`))
    }))

  it.effect("a batch the disk refuses is logged with its records; the next batch is written", () =>
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
      const errors = logs.filter((l) => l.level === "Error").map((l) => messageText(l.message))
      expect(errors).toHaveLength(1)
      expect(errors[0]).toContain("2 records could not be written")
      expect(errors[0]).toContain("\"callId\":\"call-0\"")
      expect(errors[0]).toContain("\"callId\":\"call-1\"")
      // the lost records follow the message as they would have been written, one a line
      const lost = logs.find((l) => l.level === "Error")?.message
      expect(Array.isArray(lost) && lost[1]).toBe(`${JSON.stringify(record(0))}\n${JSON.stringify(record(1))}\n`)
      expect(openDescriptors(file)).toBe(0)
    }))

  it.effect("a write after the close is dropped and logged, and never fails", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-"), "audit.jsonl")
      const { layer, logs } = recordingLogger()
      const log = yield* withJsonl({ file }, Effect.service(AuditLog))
      yield* log.write(record(0)).pipe(Effect.provide(layer))
      expect(readLines(file)).toEqual([])
      expect(logs.map((l) => messageText(l.message))).toEqual([
        `Audit log ${file} is closed: the record of a call of read_file is dropped`
      ])
    }))

  it.effect("a file that cannot be opened fails the layer, naming the file", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("audit-")
      // its folder would have to be made under a regular file
      fs.writeFileSync(path.join(dir, "a-file"), "")
      const file = path.join(dir, "a-file", "audit.jsonl")
      const exit = yield* Effect.exit(withJsonl({ file }, Effect.service(AuditLog)))
      expect(Exit.isFailure(exit) && Cause.pretty(exit.cause)).toContain(`Cannot open the audit log ${file}`)
    }))

  it.effect("a waiting batch is written once exactly the missing records arrive, not a record before", () =>
    countingSleeps(Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-"), "audit.jsonl")
      const counter: Counter = { writes: 0, failNext: 0 }
      yield* withJsonl(
        { file, batchSize: 3, flushInterval: "1 hour" },
        Effect.gen(function*() {
          const log = yield* AuditLog
          yield* log.write(record(0))
          // the writer takes it and waits for two more (or its hour)
          yield* sleepersUntil(HOUR)
          yield* log.write(record(1))
          // one more is not enough: a minute before its hour, nothing written
          yield* TestClock.adjust("59 minutes")
          expect(counter.writes).toBe(0)
          expect(readLines(file)).toEqual([])
          yield* log.write(record(2))
          expect(yield* waitUntil(() => readLines(file).length === 3)).toBe(true)
          expect(counter.writes).toBe(1)
        }),
        countingFileSystem(counter)
      )
      expect(counter.writes).toBe(1)
    })))

  it.effect("records that already wait when the writer looks for more complete its batch at once", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-"), "audit.jsonl")
      yield* withJsonl(
        { file, batchSize: 2, flushInterval: "1 hour" },
        Effect.gen(function*() {
          const log = yield* AuditLog
          // the writer waits on the empty queue: it wakes with the first record, the second already
          // queued (a real pause, only to let its fiber reach that wait; the clock does not move)
          yield* Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 30)))
          yield* log.write(record(0))
          yield* log.write(record(1))
          expect(yield* waitUntil(() => readLines(file).length === 2, 1_000)).toBe(true)
        })
      )
      expect(readRecords(file).map((r) => r.callId)).toEqual(["call-0", "call-1"])
    }))

  it.effect("an fsync that fails on close is logged as a warning; the records are in the file, the file closed", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-"), "audit.jsonl")
      const counter: Counter = { writes: 0, failNext: 0, failSyncs: 1 }
      const { layer, logs } = recordingLogger()
      yield* withJsonl({ file }, Effect.flatMap(AuditLog, (log) => log.write(record(0))), countingFileSystem(counter)).pipe(
        Effect.provide(layer)
      )
      expect(readRecords(file).map((r) => r.callId)).toEqual(["call-0"])
      const warnings = logs.filter((l) => l.level === "Warn").map((l) => messageText(l.message))
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toContain(`Audit log ${file}: fsync failed: `)
      expect(warnings[0]).toContain("disk full (test)")
      expect(logs.filter((l) => l.level === "Error")).toEqual([])
      expect(openDescriptors(file)).toBe(0)
    }))

  it.effect("after a refused batch the file is reopened; a reopen that fails too is logged, and the next one writes", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-"), "audit.jsonl")
      const counter: Counter = { writes: 0, failNext: 0 }
      const { layer, logs } = recordingLogger()
      yield* withJsonl(
        { file, batchSize: 1, flushInterval: "1 hour" },
        Effect.gen(function*() {
          const log = yield* AuditLog
          // the first batch's write fails, then the reopen for the second batch
          counter.failNext = 1
          counter.failOpens = 1
          for (let i = 0; i < 3; i++) yield* log.write(record(i))
          expect(yield* waitUntil(() => readLines(file).length === 1)).toBe(true)
        }),
        countingFileSystem(counter)
      ).pipe(Effect.provide(layer))
      expect(readRecords(file).map((r) => r.callId)).toEqual(["call-2"])
      const errors = logs.filter((l) => l.level === "Error").map((l) => messageText(l.message))
      expect(errors).toHaveLength(2)
      expect(errors[0]).toContain("1 records could not be written")
      expect(errors[0]).toContain("\"callId\":\"call-0\"")
      expect(errors[1]).toContain("\"callId\":\"call-1\"")
      // the file of the refused batch was closed, not left open
      expect(openDescriptors(file)).toBe(0)
    }))

  it.effect("a close right after a refused batch (no file open) closes cleanly", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-"), "audit.jsonl")
      const counter: Counter = { writes: 0, failNext: 0 }
      const { layer, logs } = recordingLogger()
      const exit = yield* Effect.exit(withJsonl(
        { file, batchSize: 1, flushInterval: "1 hour" },
        Effect.gen(function*() {
          const log = yield* AuditLog
          yield* log.write(record(0))
          expect(yield* waitUntil(() => readLines(file).length === 1)).toBe(true)
          counter.failNext = 1
          yield* log.write(record(1))
          expect(yield* waitUntil(() => counter.writes === 2 && logs.length > 0)).toBe(true)
        }),
        countingFileSystem(counter)
      ).pipe(Effect.provide(layer)))
      expect(exit).toEqual(Exit.void)
      expect(readRecords(file).map((r) => r.callId)).toEqual(["call-0"])
      expect(logs.map((l) => l.level)).toEqual(["Error"])
      expect(openDescriptors(file)).toBe(0)
    }))

  it.effect("a record the writer cannot even read is a line saying why, and the writer goes on", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-"), "audit.jsonl")
      const { layer, logs } = recordingLogger()
      const unreadable: AuditRecord = {
        ...record(1),
        get gates(): AuditRecord["gates"] {
          throw new Error("unreadable record (test)")
        }
      }
      yield* withJsonl(
        { file, batchSize: 1, flushInterval: "1 hour" },
        Effect.gen(function*() {
          const log = yield* AuditLog
          yield* log.write(record(0))
          expect(yield* waitUntil(() => readLines(file).length === 1)).toBe(true)
          yield* log.write(unreadable)
          yield* log.write(record(2))
          expect(yield* waitUntil(() => readLines(file).length === 3)).toBe(true)
        })
      ).pipe(Effect.provide(layer))
      expect(readLines(file).map((line) => JSON.parse(line))).toEqual([
        expect.objectContaining({ callId: "call-0" }),
        { unreadableRecord: "unreadable record (test)" },
        expect.objectContaining({ callId: "call-2" })
      ])
      expect(logs.filter((l) => l.level === "Error")).toEqual([])
      expect(openDescriptors(file)).toBe(0)
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
      expect(logs.map((l) => l.level)).toEqual(["Info", "Info"])
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
        Effect.provide(AuditLog.layerLogger({ includeArguments: true, level: "Warn" })),
        Effect.provide(layer)
      )
      expect(logs.map((l) => l.level)).toEqual(["Warn"])
      expect(logs[0]?.annotations.audit).toEqual(record(1, { filepath: "a.txt" }))
    }))
})
