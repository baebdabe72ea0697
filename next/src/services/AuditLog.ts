/**
 * `AuditLog`: a record of every call the executor decides on — which tool and version, in
 * which mode, a hash of the arguments, each gate's outcome, the error code, the duration and
 * the caller's trace. The default is `layerNoop`, which costs nothing: the executor builds
 * no record when the log is not `enabled`.
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { ErrorCode } from "../domain/errors.js"
import type { GateDecision } from "../domain/GateDecision.js"

/** One audit record: one call. Serializable as one JSON object. */
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

/** The `AuditLog` service interface. */
export interface AuditLogService {
  /** `false`: the executor builds no record at all (the hot path stays free). */
  readonly enabled: boolean
  /** Keep the arguments in each record (default: only their hash). */
  readonly includeArguments: boolean
  /** Writes one record. Never fails: a log that cannot write logs why. */
  readonly write: (record: AuditRecord) => Effect.Effect<void>
}

/**
 * The audit trail of the executor's calls. (Effect 4 tree: the JSON-lines file and logger
 * layers of the main tree, `layerJsonl` and `layerLogger`, are still to be ported.)
 */
export class AuditLog extends Context.Service<AuditLog, AuditLogService>()("effect-tool-system/AuditLog") {
  /** No audit trail (the default). */
  static readonly layerNoop: Layer.Layer<AuditLog> = Layer.succeed(AuditLog, {
    enabled: false,
    includeArguments: false,
    write: () => Effect.void
  })
}
