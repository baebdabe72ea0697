/**
 * `AuditLog.layerJsonl` when something fails outside a batch's write: a file whose size cannot
 * be read as it is opened, and a record the writer cannot serialise (a getter that throws),
 * which becomes a line saying why rather than stopping the writer.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import * as path from "node:path"
import { AuditLog, type AuditRecord } from "../../src/services/AuditLog.js"
import { countingFileSystem, diskError, messageText, readLines, record, recordingLogger, withJsonl } from "../helpers/auditLogHarness.js"
import { tempDir } from "../helpers/tempDir.js"

/** A durable log at `file` given `first`, then `record(2)`: each write waits for its line. */
const writeAfter = (file: string, first: AuditRecord) =>
  withJsonl(
    { file, durable: true },
    Effect.gen(function*() {
      const log = yield* AuditLog
      yield* log.write(first)
      yield* log.write(record(2))
    })
  ).pipe(Effect.timeout("2 seconds"))

describe("AuditLog.layerJsonl failures", () => {
  it.effect("a file whose size cannot be read fails the layer with the file system's words", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-fail-"), "audit.jsonl")
      const exit = yield* Effect.exit(withJsonl({ file }, Effect.service(AuditLog), countingFileSystem({ writes: 0, failNext: 0, failStats: 1 })))
      const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
      expect(defect instanceof Error && defect.message).toBe(`Cannot open the audit log ${file}: ${diskError("stat").message}`)
    }))

  it.live("a record that cannot be read becomes a line saying why, with a warning, and the records after it are written", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-fail-"), "audit.jsonl")
      const { layer, logs } = recordingLogger()
      const unreadable: AuditRecord = Object.defineProperty({ ...record(1) }, "extra", {
        enumerable: true,
        get: () => {
          throw new Error("unreadable")
        }
      })
      yield* writeAfter(file, unreadable).pipe(Effect.provide(layer))
      const lines = readLines(file).map((line) => JSON.parse(line))
      expect(lines).toEqual([{ unreadableRecord: "unreadable" }, expect.objectContaining({ callId: "call-2" })])
      expect(logs.filter((line) => line.level !== "Debug").map((line) => `${line.level} ${messageText(line.message)}`)).toEqual([
        `Warn Audit log ${file}: a record could not be read (unreadable); its line says so`
      ])
    }))

  it.live("a record whose error cannot be shown either is still a line, and the writer goes on", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-fail-"), "audit.jsonl")
      const unshowable = { toString: () => { throw new Error("no text") } }
      const unreadable: AuditRecord = Object.defineProperty({ ...record(1) }, "extra", {
        enumerable: true,
        get: () => {
          throw unshowable
        }
      })
      yield* writeAfter(file, unreadable).pipe(Effect.provide(recordingLogger().layer))
      expect(readLines(file).map((line) => JSON.parse(line))).toEqual([
        { unreadableRecord: "an error that cannot be shown" },
        expect.objectContaining({ callId: "call-2" })
      ])
    }))
})
