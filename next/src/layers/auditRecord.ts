/**
 * Builds the `AuditRecord` of a finished call from what the executor recorded as it made it:
 * each step's and gate's decision, as the gates themselves gave it (the same gates, asked the
 * same way, as `explain`'s). Nothing of this runs unless the `AuditLog` is enabled.
 *
 * @since 0.2.0
 */
import { createHash } from "node:crypto"
import type { ErrorCode } from "../domain/errors.js"
import type { GateDecision } from "../domain/GateDecision.js"
import { readableJson } from "../domain/readableJson.js"
import { showName } from "../domain/shownText.js"
import type { ToolInfo } from "../domain/Tool.js"
import type { AuditRecord } from "../services/AuditLog.js"
import type { ExecuteOptions } from "../services/ToolExecutor.js"

/**
 * SHA-256 (hex) of the arguments as JSON: of their readable JSON (`readableJson`, which is
 * their JSON when they have one; a bigint as `"5n"`, a `Map` with its entries), so that
 * arguments with no JSON form are still told apart; of `undefined` when there are none.
 */
export const hashArguments = (args: unknown): string =>
  createHash("sha256").update(JSON.stringify(readableJson(args)) ?? String(args)).digest("hex")

/** What a finished call tells the audit record. */
export interface CallOutcome {
  readonly startedAtMillis: number
  readonly tool: ToolInfo | undefined
  readonly name: string
  readonly version: string | null
  readonly options: ExecuteOptions | undefined
  readonly mode: string
  readonly args: unknown
  readonly includeArguments: boolean
  /** Each step's and gate's decision, in order (those not reached included). */
  readonly gates: ReadonlyArray<GateDecision>
  readonly success: boolean
  readonly errorCode: ErrorCode | null
  readonly durationMs: number
  readonly traceId: string | null
  readonly spanId: string | null
}

/** The record of a finished call. */
export const auditRecordOf = (outcome: CallOutcome): AuditRecord => {
  const record: AuditRecord = {
    time: new Date(outcome.startedAtMillis).toISOString(),
    // a registered name as it is; an unknown one (of any length) cut, as its message shows it
    tool: showName(outcome.name),
    version: outcome.version,
    mode: outcome.mode,
    callId: outcome.options?.callId ?? null,
    rateLimitKey: outcome.options?.rateLimitKey ?? null,
    argumentsHash: hashArguments(outcome.args),
    gates: outcome.gates,
    success: outcome.success,
    errorCode: outcome.errorCode,
    durationMs: outcome.durationMs,
    traceId: outcome.traceId,
    spanId: outcome.spanId
  }
  // readable JSON, so that any log (a JSON logger too) can print it and nothing of it is dropped
  return outcome.includeArguments ? { ...record, arguments: readableJson(outcome.args) } : record
}
