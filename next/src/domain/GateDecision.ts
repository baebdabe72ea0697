/**
 * What each gate of the executor decided about one call: the shape shared by
 * `ToolSystem.explain` (a dry run) and the `AuditLog` (what happened).
 *
 * @since 0.2.0
 */
import type { ErrorCode } from "./errors.js"

/**
 * The executor's own steps (lookup, arguments, paths) and its built-in gates, in the order it
 * applies them. An application's own gates (see `ToolGates`) come after, under their names.
 *
 * @since 0.2.0
 * @category models
 */
export type GateName = "lookup" | "arguments" | "paths" | "mode" | "policy" | "confirmation" | "rateLimit"

/**
 * The steps and built-in gates in order.
 *
 * @since 0.2.0
 * @category constants
 */
export const gateOrder: ReadonlyArray<GateName> = [
  "lookup",
  "arguments",
  "paths",
  "mode",
  "policy",
  "confirmation",
  "rateLimit"
]

/**
 * One gate's decision: `pass`, `fail` (the call stops here, with `code`), `skip` (the gate
 * does not apply to this tool, e.g. no rate limit) or `not_reached` (an earlier gate failed).
 *
 * @since 0.2.0
 * @category models
 */
export interface GateDecision {
  /** A `GateName`, or the name of an application's own gate. */
  readonly gate: string
  readonly outcome: "pass" | "fail" | "skip" | "not_reached"
  /** Why, in a few words. */
  readonly reason: string
  /** The error code of a `fail`. */
  readonly code?: ErrorCode | undefined
}

/**
 * What the executor would do with a call: see `ToolSystem.explain`.
 *
 * @since 0.2.0
 * @category models
 */
export interface CallExplanation {
  readonly tool: string
  /** The version the call would run (`null` when no version was found). */
  readonly version: string | null
  /** The agent mode's name. */
  readonly mode: string
  /** Every gate passes or does not apply: `execute` would run the handler. */
  readonly wouldRun: boolean
  /** The code `execute` would return (`null` when the call would run). */
  readonly errorCode: ErrorCode | null
  /** The message `execute` would return (`null` when the call would run). */
  readonly message: string | null
  /** Each gate's decision, in order. */
  readonly gates: ReadonlyArray<GateDecision>
}
