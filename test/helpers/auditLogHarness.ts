/**
 * What the audit log's tests share (`test/layers/AuditLog*.test.ts`): a record, the lines of a
 * file, a jsonl log around a body, a file system that counts (and can fail) the writes of each
 * batch, a logger that keeps its lines, and the descriptors open on a file.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect, Layer, Logger, References } from "effect"
import * as FileSystem from "effect/FileSystem"
import type * as LogLevel from "effect/LogLevel"
import type * as Path from "effect/Path"
import * as PlatformError from "effect/PlatformError"
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
  /** The `writeAll` call (1-based) to fail, whatever `failNext` says. */
  failAt?: number
  /** `stat` calls (on an opened file) to fail. */
  failStats?: number
}

export const diskError = (method: string) =>
  PlatformError.systemError({ _tag: "Unknown", module: "FileSystem", method, description: "disk full (test)" })

/** Node's file system (and the rest of Node's services), counting the `writeAll` calls on the files it opens (one per batch). */
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
                  if (counter.failNext > 0 || counter.writes === counter.failAt) {
                    if (counter.failNext > 0) counter.failNext--
                    return Effect.fail(diskError("writeAll"))
                  }
                  return target.writeAll(buffer)
                }
                : key === "sync" && (counter.failSyncs ?? 0) > 0
                ? Effect.suspend(() => {
                  counter.failSyncs = (counter.failSyncs ?? 0) - 1
                  return Effect.fail(diskError("sync"))
                })
                : key === "stat" && (counter.failStats ?? 0) > 0
                ? Effect.suspend(() => {
                  counter.failStats = (counter.failStats ?? 0) - 1
                  return Effect.fail(diskError("stat"))
                })
                : Reflect.get(target, key, target)
          }))
      }
    }))
  ).pipe(Layer.provideMerge(NodeServices.layer))

/** Runs `body` with a jsonl audit log whose scope closes when `body` ends. */
export const withJsonl = <A, E>(
  options: AuditLogJsonlOptions | string,
  body: Effect.Effect<A, E, AuditLog>,
  platform: Layer.Layer<FileSystem.FileSystem | Path.Path> = NodeServices.layer
) => body.pipe(Effect.provide(AuditLog.layerJsonl(options)), Effect.provide(platform))

/** One line a logger was given: its level, its message (the list of what was logged), its annotations. */
export interface LogLine {
  readonly level: LogLevel.LogLevel
  readonly message: unknown
  readonly annotations: Record<string, unknown>
}

/** A logger that keeps what it is given (in place of the installed ones). */
export const recordingLogger = () => {
  const logs: Array<LogLine> = []
  const logger = Logger.make(({ fiber, logLevel, message }) => {
    logs.push({ level: logLevel, message, annotations: { ...fiber.getRef(References.CurrentLogAnnotations) } })
  })
  return { logs, layer: Logger.layer([logger]) }
}

/** A logged message as text (its parts joined by spaces). */
export const messageText = (message: unknown) => (Array.isArray(message) ? message.map(String).join(" ") : String(message))

/** How many of this process's file descriptors are open on `file`, or on a file below `dir + "/"` when `below`. */
export const openDescriptors = (file: string, below = false): number =>
  fs.readdirSync("/proc/self/fd").filter((fd) => {
    try {
      const target = fs.readlinkSync(`/proc/self/fd/${fd}`)
      return below ? target.startsWith(file + "/") : target === file
    } catch {
      return false
    }
  }).length
