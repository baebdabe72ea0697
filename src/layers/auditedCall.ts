/**
 * The audit record of one call from how it ended: the result it returned, or the path escape it
 * died with (a `PathTraversalError` ends a call as a defect, never as a result), with the gates'
 * decisions completed and a late refusal (a confirmation refused at the effect) put on its gate.
 * The executor writes it when the `AuditLog` in context is enabled.
 *
 * @since 0.6.0
 * @internal
 */
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as Tracer from "effect/Tracer"
import * as AgentMode from "../domain/AgentMode.js"
import { pathTraversalOf } from "../domain/errors.js"
import type { Gate } from "../domain/Gate.js"
import type { GateDecision } from "../domain/GateDecision.js"
import type { RegisteredTool } from "../domain/Tool.js"
import type { ToolExecutionResult } from "../domain/ToolExecutionResult.js"
import type { AuditRecord } from "../services/AuditLog.js"
import type { ExecuteOptions } from "../services/ToolExecutor.js"
import { auditRecordOf } from "./auditRecord.js"
import { completed, withLateRefusal } from "./callDecisions.js"

/** A call as it was made, and what the executor saw of it. */
export interface EndedCall {
  readonly startedAtMillis: number
  readonly name: string
  readonly input: unknown
  readonly options: ExecuteOptions | undefined
  readonly tool: RegisteredTool | undefined
  readonly span: Tracer.AnySpan | undefined
  readonly decisions: ReadonlyArray<GateDecision>
  readonly gates: ReadonlyArray<Gate>
  readonly includeArguments: boolean
  /** Its duration when it has no result to give one. */
  readonly elapsedMs: () => number
}

/** The record of `call`, ended with `exit`. */
export const auditRecordOfExit = (exit: Exit.Exit<ToolExecutionResult>, call: EndedCall): AuditRecord => {
  const { options, tool } = call
  const traversal = Exit.isFailure(exit) ? pathTraversalOf(exit.cause) : Option.none()
  const result = Exit.isSuccess(exit) ? exit.value : undefined
  const errorCode = result?.errorCode ?? (Option.isSome(traversal) ? "PATH_TRAVERSAL" : null)
  const message = result?.error ?? (Option.isSome(traversal) ? traversal.value.message : null)
  return auditRecordOf({
    startedAtMillis: call.startedAtMillis,
    tool,
    name: call.name,
    version: result?.version ?? tool?.version ?? null,
    options,
    mode: (options?.mode ?? AgentMode.Default).name,
    args: call.input,
    includeArguments: call.includeArguments,
    gates: completed(withLateRefusal(call.decisions, errorCode, message), call.gates),
    success: result?.success === true,
    errorCode,
    durationMs: result?.durationMs ?? call.elapsedMs(),
    traceId: call.span?.traceId ?? null,
    spanId: call.span?.spanId ?? null
  })
}
