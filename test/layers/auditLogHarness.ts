/**
 * What the audit log's tests share (`AuditLog.test.ts`, `AuditLog.slow.test.ts`): a record, the
 * lines of a file, a jsonl log around a body, and a file system that counts (and can fail) the
 * writes of each batch.
 */
import { SystemError } from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import { AuditLog, type AuditLogJsonlOptions, type AuditRecord } from "../../src/services/AuditLog.js"

/** A record of a call numbered `i`, with `args` when given. */
export const record = (i: number, args?: unknown): AuditRecord => ({
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

/** The non-empty lines of `file` (none when it does not exist). */
export const readLines = (file: string): Array<string> =>
  fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "") : []

/** What `countingFileSystem` counts, and how many of the next calls it fails. */
export interface Counter {
  writes: number
  /** `writeAll` calls to fail. */
  failNext: number
  /** `open` calls to fail. */
  failOpens?: number
  /** `sync` calls to fail. */
  failSyncs?: number
}

const diskError = (method: string) =>
  new SystemError({ reason: "Unknown", module: "FileSystem", method, description: "disk full (test)" })

/** Node's file system, counting the `writeAll` calls on the files it opens (one per batch). */
export const countingFileSystem = (counter: Counter) =>
  Layer.effect(
    FileSystem.FileSystem,
    Effect.map(FileSystem.FileSystem, (real): FileSystem.FileSystem => ({
      ...real,
      open: (p, options) => {
        if ((counter.failOpens ?? 0) > 0) {
          counter.failOpens = (counter.failOpens ?? 0) - 1
          return Effect.fail(diskError("open"))
        }
        return Effect.map(real.open(p, options), (file) =>
          new Proxy(file, {
            get: (target, key) =>
              key === "writeAll"
                ? (buffer: Uint8Array) => {
                  counter.writes++
                  if (counter.failNext > 0) {
                    counter.failNext--
                    return Effect.fail(diskError("writeAll"))
                  }
                  return target.writeAll(buffer)
                }
                : key === "sync" && (counter.failSyncs ?? 0) > 0
                ? Effect.suspend(() => {
                  counter.failSyncs = (counter.failSyncs ?? 0) - 1
                  return Effect.fail(diskError("sync"))
                })
                : Reflect.get(target, key, target)
          }))
      }
    }))
  ).pipe(Layer.provideMerge(NodeContext.layer))

/** Runs `body` with a jsonl audit log whose scope closes when `body` ends. */
export const withJsonl = <A, E>(
  options: AuditLogJsonlOptions,
  body: Effect.Effect<A, E, AuditLog>,
  platform: Layer.Layer<FileSystem.FileSystem | Path.Path> = NodeContext.layer
) => body.pipe(Effect.provide(AuditLog.layerJsonl(options)), Effect.provide(platform))
