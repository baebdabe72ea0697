/**
 * The result of one call. Every call ends in one of these, except a workspace escape, which
 * the executor re-raises as a defect. A union discriminated by `success`: on `false`,
 * `error` and `errorCode` are set.
 *
 * @since 0.1.0
 */
import type { ErrorCode, ToolCallError } from "./errors.js"

/** What every result carries. */
interface ResultBase {
  readonly durationMs: number
  /**
   * The tool's registered name; for an unknown name (`TOOL_NOT_FOUND`), the name as its message
   * shows it: cut past 100 characters, saying so, with hiding characters escaped.
   */
  readonly tool: string
}

/**
 * A call that ran to completion.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolExecutionSuccess extends ResultBase {
  readonly success: true
  readonly output: unknown
  readonly error: null
  readonly errorCode: null
  readonly confirmed: true
  /** The version that ran. */
  readonly version: string
}

/**
 * A call that was refused or failed; `errorCode` is stable, `error` readable.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolExecutionFailure extends ResultBase {
  readonly success: false
  readonly output: null
  readonly error: string
  readonly errorCode: ErrorCode
  /** `false` only when the call waits for a confirmation (`CONFIRMATION_REQUIRED`). */
  readonly confirmed: boolean
  /** The version that was called, or `null` when no tool was found. */
  readonly version: string | null
  /** Set when a rate limit refused the call. */
  readonly retryAfterMs?: number
  /** The fields of the handler's own typed error, when it failed with one. */
  readonly details?: Readonly<Record<string, unknown>>
}

/**
 * What a call produced: `output` on success, `error` and a stable `errorCode` otherwise.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolExecutionResult = ToolExecutionSuccess | ToolExecutionFailure

/**
 * A successful result.
 *
 * @internal
 */
export const succeed = (
  tool: string,
  version: string,
  output: unknown,
  durationMs: number
): ToolExecutionSuccess => ({
  success: true,
  output,
  error: null,
  errorCode: null,
  durationMs,
  confirmed: true,
  tool,
  version
})

/**
 * A failed result from one of the pipeline's tagged errors; `message` replaces the error's own.
 *
 * @internal
 */
export const fromError = (
  tool: string,
  version: string | null,
  error: ToolCallError,
  durationMs: number,
  message: string = error.message
): ToolExecutionFailure => {
  const base: ToolExecutionFailure = {
    success: false,
    output: null,
    error: message,
    errorCode: error.code,
    durationMs,
    confirmed: error._tag !== "ConfirmationRequired",
    tool,
    version
  }
  if (error._tag === "RateLimited") return { ...base, retryAfterMs: error.retryAfterMs }
  if (error._tag === "ToolError" && error.details !== undefined) return { ...base, details: error.details }
  return base
}
