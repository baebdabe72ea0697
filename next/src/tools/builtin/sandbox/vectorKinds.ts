/**
 * The shape of `SANDBOX_ESCAPE_VECTORS` entries and the expectations they share.
 *
 * @since 0.1.0
 */

/**
 * What kind of attack a vector is.
 *
 * @since 0.1.0
 * @category models
 */
export type EscapeCategory =
  | "host-reach"
  | "prototype-pollution"
  | "state-leak"
  | "cpu"
  | "serialization"
  | "memory"
  | "stack"
  | "source"
  | "output"

/**
 * The safe answer: a result whose JSON text matches, or a failure whose message matches, with
 * one of `codes` (default `TOOL_ERROR`).
 *
 * @since 0.1.0
 * @category models
 */
export type EscapeExpectation =
  | { readonly outcome: "result"; readonly result: RegExp }
  | { readonly outcome: "error"; readonly message: RegExp; readonly codes?: ReadonlyArray<"TOOL_ERROR" | "MEMORY_LIMIT"> }

/**
 * One attempt.
 *
 * @since 0.1.0
 * @category models
 */
export interface SandboxEscapeVector {
  readonly name: string
  readonly category: EscapeCategory
  /** What the attempt tries. */
  readonly description: string
  readonly code: string
  /** The guest deadline for this vector (`timeout_sec`). Default 1. */
  readonly timeoutSec?: number
  readonly expect: EscapeExpectation
  /** A second call made right after the first, e.g. to look for state the first one left. */
  readonly then?: { readonly code: string; readonly expect: EscapeExpectation }
}


/** The guest ran past its deadline. */
export const TIMEOUT: EscapeExpectation = { outcome: "error", message: /did not finish within/ }
/** Either, depending on which limit the attack reaches first (on a loaded machine, often the deadline). */
export const TIMEOUT_OR_MEMORY: EscapeExpectation = {
  outcome: "error",
  message: /did not finish within|exceeded its memory limit/,
  codes: ["TOOL_ERROR", "MEMORY_LIMIT"]
}
/** A catchable stack overflow. */
export const STACK: EscapeExpectation = { outcome: "error", message: /stack overflow/ }
/** A successful call whose result (JSON text) matches `pattern`. */
export const result = (pattern: RegExp): EscapeExpectation => ({ outcome: "result", result: pattern })
/** A `ToolError` whose message matches `pattern`. */
export const error = (pattern: RegExp): EscapeExpectation => ({ outcome: "error", message: pattern })
/** A `ToolError` whose message matches `pattern`, or running out of memory (`MEMORY_LIMIT`). */
export const errorOrMemory = (pattern: RegExp): EscapeExpectation => ({
  outcome: "error",
  message: new RegExp(`${pattern.source}|exceeded its memory limit`),
  codes: ["TOOL_ERROR", "MEMORY_LIMIT"]
})
