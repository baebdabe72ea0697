/**
 * `AuditLog`: a record of every call the executor decides on — which tool and version, in
 * which mode, a hash of the arguments, each gate's outcome, the error code, the duration and
 * the caller's trace. The default is `layerNoop`, which costs nothing: the executor builds
 * no record when the log is not `enabled`.
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import type * as LogLevel from "effect/LogLevel"
import type * as Path from "effect/Path"
import type { ErrorCode } from "../domain/errors.js"
import type { GateDecision } from "../domain/GateDecision.js"
import { makeJsonl } from "../layers/AuditLogJsonl.js"
import { makeLogger } from "../layers/AuditLogLogger.js"

/**
 * One audit record: one call. Serializable as one JSON object.
 *
 * @since 0.2.0
 * @category models
 */
export interface AuditRecord {
  /** When the call started (ISO 8601). */
  readonly time: string
  readonly tool: string
  /** The version that was called (`null` when none was found). */
  readonly version: string | null
  /** The agent mode's name. */
  readonly mode: string
  /** `ExecuteOptions.callId`, when given. */
  readonly callId: string | null
  /** `ExecuteOptions.rateLimitKey`, when given. */
  readonly rateLimitKey: string | null
  /** SHA-256 (hex) of the arguments as JSON. */
  readonly argumentsHash: string
  /** The arguments themselves, only when the log is configured to keep them. */
  readonly arguments?: unknown
  /** Each gate's outcome, in order. */
  readonly gates: ReadonlyArray<GateDecision>
  readonly success: boolean
  readonly errorCode: ErrorCode | null
  readonly durationMs: number
  /** The caller's trace and span ids, when a tracer is installed. */
  readonly traceId: string | null
  readonly spanId: string | null
}

/**
 * The `AuditLog` service interface.
 *
 * @since 0.2.0
 * @category services
 */
export interface AuditLogService {
  /** `false`: the executor builds no record at all (the hot path stays free). */
  readonly enabled: boolean
  /** Keep the arguments in each record (default: only their hash). */
  readonly includeArguments: boolean
  /** Writes one record. Never fails: a log that cannot write logs why. */
  readonly write: (record: AuditRecord) => Effect.Effect<void>
}

/**
 * Options of `AuditLog.layerJsonl`.
 *
 * @since 0.2.0
 * @category models
 */
export interface AuditLogJsonlOptions {
  /** The log file (appended to; created with mode `0o600`, its folder with `0o700`). */
  readonly file: string
  /** Keep each record's arguments. Default `false`: only their hash. */
  readonly includeArguments?: boolean | undefined
  /**
   * Rotate when the file would grow past this many bytes (a record is never split: a
   * single record larger than this gets a file of its own). Default 10 MiB.
   */
  readonly maxBytes?: number | undefined
  /** How many rotated files to keep (`FILE.1` the newest … `FILE.N`); `0` keeps none. Default 5. */
  readonly maxFiles?: number | undefined
  /** Write as soon as this many records wait. Default 512. */
  readonly batchSize?: number | undefined
  /** Or at the latest this long after the first waiting record arrived. Default 50 ms. */
  readonly flushInterval?: Duration.Input | undefined
  /**
   * A call's record is on disk before its result is returned: `write` waits until the batch
   * holding it is appended (records that arrive meanwhile share the next append, so calls at
   * once still make few writes; `flushInterval` is not waited for). For a server whose process
   * may be killed at any moment (`kill -9`, an OOM kill): without it, the records of the calls
   * it answered in its last `flushInterval` are lost with it. Default `false`.
   *
   * @since 1.0.0
   */
  readonly durable?: boolean | undefined
}

/**
 * Options of `AuditLog.layerLogger`.
 *
 * @since 0.2.0
 * @category models
 */
export interface AuditLogLoggerOptions {
  /** Keep each record's arguments. Default `false`: only their hash. */
  readonly includeArguments?: boolean | undefined
  /** The level of the log lines. Default `"Info"`. */
  readonly level?: LogLevel.Severity | undefined
}

/**
 * The audit trail of the executor's calls: none (`layerNoop`), a JSON-lines file or Effect's logger.
 *
 * @since 0.2.0
 * @category services
 */
export class AuditLog extends Context.Service<AuditLog, AuditLogService>()("effect-tool-system/AuditLog") {
  /** No audit trail (the default). */
  static readonly layerNoop: Layer.Layer<AuditLog> = Layer.succeed(AuditLog, {
    enabled: false,
    includeArguments: false,
    write: () => Effect.void
  })

  /**
   * An append-only JSON-lines file, one record a line. `write` only enqueues; a background
   * fiber writes the records in batches (`batchSize`, or `flushInterval` after the first
   * one), rotates the file by size (`FILE.1` … `FILE.maxFiles`), and, when the layer's scope
   * closes, writes everything still queued before it closes the file. The queue is unbounded:
   * a disk slower than the calls costs memory, never a call's time. `options` may be just the
   * file's path.
   *
   * A batch the file refuses (disk full, permissions) is not retried: it is logged with
   * `Effect.logError`, its records in the message, so they end up in the application's logs;
   * the next batch reopens the file. The path must hold a regular file or nothing: a symbolic
   * link there is not followed, a FIFO, socket, device or directory is refused (never waited
   * on), a file others may read is made private (`0o600`), and a missing folder is created
   * (`0o700`). A file that cannot be opened when the layer is built is a defect of the layer,
   * its message saying why. A `write` after the scope closed is dropped and logged. A record
   * that cannot be read (a hand-built one whose getter throws) is written as
   * `{"unreadableRecord": "<why>"}` with a warning, and the records after it are written as usual.
   *
   * @example
   * ```ts
   * import { AuditLog, ToolSystem } from "effect-tool-system"
   *
   * const system = ToolSystem.layerNode({ audit: AuditLog.layerJsonl({ file: "audit.jsonl" }) })
   * ```
   */
  static readonly layerJsonl = (
    options: AuditLogJsonlOptions | string
  ): Layer.Layer<AuditLog, never, FileSystem.FileSystem | Path.Path> =>
    Layer.effect(AuditLog, makeJsonl(typeof options === "string" ? { file: options } : options))

  /**
   * Each record to Effect's logger, from the calling fiber: a one-line message
   * (`tool call read_file@1.0.0 (mode default): ok in 3 ms`) and the record as the `audit`
   * annotation (structured under a JSON logger).
   */
  static readonly layerLogger = (options: AuditLogLoggerOptions = {}): Layer.Layer<AuditLog> =>
    Layer.sync(AuditLog, () => makeLogger(options))
}
