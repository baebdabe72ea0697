/**
 * The audit log's JSON-lines writer under 10,000 concurrent writers: every record written once,
 * in full batches. In the slow lane: the 10,000 fibers and records cost about 1.1 s of CPU, the
 * most of any fast-lane test, over the fast lane's 1 s bound.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import { AuditLog, type AuditRecord } from "../../src/services/AuditLog.js"
import { tempDir } from "../helpers/tempDir.js"
import { countingFileSystem, type Counter, readLines, record, withJsonl } from "../helpers/auditLogHarness.js"

describe("AuditLog.layerJsonl", () => {
  it.effect("10,000 concurrent writes: exactly 10,000 parseable lines, in full batches, none waiting for the interval", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("audit-"), "audit.jsonl")
      const counter: Counter = { writes: 0, failNext: 0 }
      // an interval of an hour: a batch that waited for it would never end (no time bound
      // here: on a loaded 2-core machine 10,000 fibers take what they take)
      yield* withJsonl(
        { file, flushInterval: "1 hour" },
        Effect.flatMap(AuditLog, (log) =>
          Effect.forEach(Array.from({ length: 10_000 }, (_, i) => i), (i) => log.write(record(i)), {
            concurrency: "unbounded",
            discard: true
          })),
        countingFileSystem(counter)
      )
      const lines = readLines(file)
      expect(lines.length).toBe(10_000)
      const ids = new Set(lines.map((l) => (JSON.parse(l) as AuditRecord).callId))
      expect(ids.size).toBe(10_000)
      // 512 a batch by default: a batch waits until it is full (or the close)
      expect(counter.writes).toBe(Math.ceil(10_000 / 512))
    }))
})
