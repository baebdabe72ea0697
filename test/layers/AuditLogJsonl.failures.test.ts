/**
 * `AuditLog.layerJsonl` when something fails outside a batch's write: a file whose size cannot
 * be read as it is opened, and a record the writer cannot serialise (a getter that throws),
 * which stops the writer: its close says so and lets no durable `write` wait forever.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber } from "effect"
import * as path from "node:path"
import { AuditLog, type AuditRecord } from "../../src/services/AuditLog.js"
import { countingFileSystem, diskError, messageText, record, recordingLogger, withJsonl } from "../helpers/auditLogHarness.js"
import { tempDir } from "../helpers/tempDir.js"

describe("AuditLog.layerJsonl failures", () => {
  it.effect("a file whose size cannot be read fails the layer with the file system's words", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-fail-"), "audit.jsonl")
      const exit = yield* Effect.exit(withJsonl({ file }, Effect.service(AuditLog), countingFileSystem({ writes: 0, failNext: 0, failStats: 1 })))
      const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
      expect(defect instanceof Error && defect.message).toBe(`Cannot open the audit log ${file}: ${diskError("stat").message}`)
    }))

  it.live("a record that cannot be read stops the writer: the close says so and releases the durable writes left waiting", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-fail-"), "audit.jsonl")
      const { layer, logs } = recordingLogger()
      const unreadable: AuditRecord = Object.defineProperty({ ...record(1) }, "extra", {
        enumerable: true,
        get: () => {
          throw new Error("unreadable")
        }
      })
      const writes = yield* withJsonl(
        { file, durable: true },
        Effect.gen(function*() {
          const log = yield* AuditLog
          const first = yield* Effect.forkChild(log.write(unreadable))
          const second = yield* Effect.forkChild(log.write(record(2)))
          yield* Effect.sleep("50 millis")
          return [first, second]
        })
      ).pipe(Effect.provide(layer))
      const settled = yield* Effect.timeoutOption(Fiber.joinAll(writes), "1 second")
      expect(settled._tag).toBe("Some")
      expect(logs.filter((line) => line.level === "Error").map((line) => messageText(line.message))).toEqual([
        expect.stringContaining(`Audit log ${file}: the writer stopped`)
      ])
    }))
})
