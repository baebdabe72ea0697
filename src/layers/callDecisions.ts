/**
 * The decisions of a call's own steps (lookup, arguments, paths), as `execute` records them
 * for the audit log and `explain` reports them, and the list of every step and gate a call
 * meets, completed with the ones it never reached.
 *
 * @since 0.6.0
 */
import type { ErrorCode } from "../domain/errors.js"
import type { Gate } from "../domain/Gate.js"
import type { GateDecision } from "../domain/GateDecision.js"
import type { ToolInfo } from "../domain/Tool.js"

/** The lookup found `tool`. */
export const lookupPassed = (tool: Pick<ToolInfo, "name" | "version">): GateDecision => ({
  gate: "lookup",
  outcome: "pass",
  reason: `${tool.name} ${tool.version}`
})

/** The arguments decoded. */
export const argumentsPassed: GateDecision = {
  gate: "arguments",
  outcome: "pass",
  reason: "the arguments match the parameter schema"
}

const noPathArguments: GateDecision = { gate: "paths", outcome: "skip", reason: "no path arguments" }

/** The call's `count` paths resolved inside the workspace (none: the step did not apply). */
export const pathsPassed = (count: number): GateDecision =>
  count === 0 ? noPathArguments : { gate: "paths", outcome: "pass", reason: `${count} path(s) inside the workspace` }

/** A step or gate refused the call with `error`. */
export const refusedBy = (
  gate: string,
  error: { readonly code: ErrorCode; readonly message: string }
): GateDecision => ({ gate, outcome: "fail", reason: error.message, code: error.code })

/**
 * `decisions` (those a call made, in order) followed by every step and gate of `gates` it did
 * not reach: after a refusal, or when the call ended (an interruption, a defect) before them.
 */
export const completed = (
  decisions: ReadonlyArray<GateDecision>,
  gates: ReadonlyArray<Gate>
): ReadonlyArray<GateDecision> => {
  const names = ["lookup", "arguments", "paths", ...gates.map((gate) => gate.name)]
  const reason = decisions.some((decision) => decision.outcome === "fail")
    ? "an earlier gate refused the call"
    : "the call ended before this gate"
  return [
    ...decisions,
    ...names.slice(decisions.length).map((gate): GateDecision => ({ gate, outcome: "not_reached", reason }))
  ]
}

/** The step or gate a handler's own refusal stands for, found as the handler acts. */
const lateGates: Partial<Record<ErrorCode, string>> = {
  // a path the handler resolves itself escapes, or lies under a `.git`
  PATH_TRAVERSAL: "paths",
  PROTECTED_PATH: "paths",
  // a tool that asks for confirmation as it acts was refused at the moment of the effect
  CONFIRMATION_REQUIRED: "confirmation"
}

/**
 * `decisions` of a call whose handler ran and was refused as it acted (`code`, `message`): the
 * step or gate that refused it then fails, so the record keeps what was refused and why. Any
 * other end leaves them as they are.
 */
export const withLateRefusal = (
  decisions: ReadonlyArray<GateDecision>,
  code: ErrorCode | null,
  message: string | null
): ReadonlyArray<GateDecision> => {
  const gate = code === null ? undefined : lateGates[code]
  if (gate === undefined || code === null || decisions.some((decision) => decision.outcome === "fail")) return decisions
  return decisions.map((decision) => decision.gate === gate ? refusedBy(gate, { code, message: message ?? code }) : decision)
}
