/**
 * Builds the `AuditRecord` of a finished call. Each gate's outcome is read off the result:
 * the gates run in a fixed order and the first refusal ends the call, so the error code says
 * which gate refused, every gate before it passed (or did not apply) and none after it ran.
 * Nothing of this runs unless the `AuditLog` is enabled.
 *
 * @since 0.2.0
 */
import { createHash } from "node:crypto"
import type { ErrorCode } from "../domain/errors.js"
import { readableJson } from "../domain/readableJson.js"
import { showName } from "../domain/shownText.js"
import { type GateDecision, type GateName, gateOrder } from "../domain/GateDecision.js"
import type { ToolInfo } from "../domain/Tool.js"
import type { AuditRecord } from "../services/AuditLog.js"
import type { ExecuteOptions } from "../services/ToolExecutor.js"

/** The gate that refuses a call with `code` (`undefined`: the handler ran). */
export const gateOfCode = (code: ErrorCode): GateName | undefined => {
  switch (code) {
    case "TOOL_NOT_FOUND":
      return "lookup"
    case "INVALID_ARGUMENTS":
      return "arguments"
    case "PATH_TRAVERSAL":
    case "PROTECTED_PATH":
      return "paths"
    case "MODE_BLOCKED":
      return "mode"
    case "POLICY_VETO":
      return "policy"
    case "CONFIRMATION_REQUIRED":
      return "confirmation"
    case "RATE_LIMITED":
      return "rateLimit"
    default:
      return undefined
  }
}

/** Why a gate that ran passed, or why it did not apply to `tool`. */
const passed = (gate: GateName, tool: ToolInfo | undefined): GateDecision => {
  switch (gate) {
    case "policy":
      return { gate, outcome: "pass", reason: "no veto" }
    case "confirmation":
      return tool?.requiresConfirmation === true
        ? { gate, outcome: "pass", reason: "confirmed" }
        : { gate, outcome: "skip", reason: "the tool needs no confirmation" }
    case "rateLimit":
      return tool?.rateLimitRpm === undefined
        ? { gate, outcome: "skip", reason: "the tool has no rate limit" }
        : { gate, outcome: "pass", reason: `within ${tool.rateLimitRpm} calls a minute` }
    default:
      return { gate, outcome: "pass", reason: "passed" }
  }
}

/** Each gate's outcome for a call that ended with `code` (`null`: it succeeded). */
export const gatesOfOutcome = (
  tool: ToolInfo | undefined,
  code: ErrorCode | null,
  message: string | null
): ReadonlyArray<GateDecision> => {
  const refusedBy = code === null ? undefined : gateOfCode(code)
  let reached = true
  return gateOrder.map((gate): GateDecision => {
    if (!reached) return { gate, outcome: "not_reached", reason: "an earlier gate refused the call" }
    if (gate === refusedBy && code !== null) {
      reached = false
      return { gate, outcome: "fail", reason: message ?? code, code }
    }
    return passed(gate, tool)
  })
}

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
  readonly success: boolean
  readonly errorCode: ErrorCode | null
  readonly message: string | null
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
    gates: gatesOfOutcome(outcome.tool, outcome.errorCode, outcome.message),
    success: outcome.success,
    errorCode: outcome.errorCode,
    durationMs: outcome.durationMs,
    traceId: outcome.traceId,
    spanId: outcome.spanId
  }
  // readable JSON, so that any log (a JSON logger too) can print it and nothing of it is dropped
  return outcome.includeArguments ? { ...record, arguments: readableJson(outcome.args) } : record
}
