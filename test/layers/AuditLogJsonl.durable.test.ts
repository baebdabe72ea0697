/**
 * `AuditLog.layerJsonl({ durable: true })`: a `write` returns once its record is in the file, so
 * a process killed right after answering a call (the MCP server behind a load balancer, say)
 * has its record on disk. Without `durable`, the record waits for its batch (the flush
 * interval) and a kill then loses it. The file is read synchronously the moment `write`
 * returns, before anything else can run.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import { AuditLog } from "../../src/services/AuditLog.js"
import { readLines, record, withJsonl } from "../helpers/auditLogHarness.js"
import { tempDir } from "../helpers/tempDir.js"

const linesIn = (file: string): number => readLines(file).length

describe("AuditLog.layerJsonl durable", () => {
  it.live("each write returns with its record in the file, without waiting for the flush interval", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-durable-"), "audit.jsonl")
      const seen = yield* withJsonl(
        { file, durable: true, flushInterval: "1 hour" },
        Effect.gen(function*() {
          const log = yield* AuditLog
          const counts: Array<number> = []
          for (let i = 0; i < 5; i++) {
            yield* log.write(record(i))
            counts.push(linesIn(file))
          }
          return counts
        })
      )
      expect(seen).toEqual([1, 2, 3, 4, 5])
    }))

  it.live("concurrent writes: each returns with its own record written; one record per write, the same object twice included", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-durable-"), "audit.jsonl")
      const twice = record(999)
      const seen = yield* withJsonl(
        { file, durable: true },
        Effect.gen(function*() {
          const log = yield* AuditLog
          const writes = [...Array.from({ length: 200 }, (_, i) => record(i)), twice, twice]
          return yield* Effect.forEach(
            writes,
            (r) => Effect.map(log.write(r), () => readLines(file).some((line) => line.includes(`"callId":"${r.callId}"`))),
            { concurrency: "unbounded" }
          )
        })
      )
      expect(seen.every(Boolean)).toBe(true)
      expect(linesIn(file)).toBe(202)
      expect(readLines(file).filter((line) => line.includes(`"callId":"call-999"`))).toHaveLength(2)
    }))

  it.live("without durable a write returns before its record is written (the batch waits for the interval)", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-durable-"), "audit.jsonl")
      const before = yield* withJsonl(
        { file, flushInterval: "1 hour" },
        Effect.gen(function*() {
          yield* (yield* AuditLog).write(record(1))
          return linesIn(file)
        })
      )
      expect(before).toBe(0)
      // the close drained it
      expect(linesIn(file)).toBe(1)
    }))
})
