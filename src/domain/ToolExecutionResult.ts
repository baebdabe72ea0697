/**
 * The result of one call. Every call ends in one of these, except a workspace escape, which
 * the executor re-raises as a defect.
 *
 * @since 0.1.0
 */
import type { ErrorCode, ToolCallError } from "./errors.js"

/** What a call produced: `output` on success, `error` and a stable `errorCode` otherwise. */
export interface ToolExecutionResult {
  readonly success: boolean
  readonly output: unknown
  readonly error: string | null
  readonly errorCode: ErrorCode | null
  readonly durationMs: number
  /** `false` only when the call waits for a confirmation (`CONFIRMATION_REQUIRED`). */
  readonly confirmed: boolean
  readonly tool: string
  /** The version that ran, or `null` when no tool was found. */
  readonly version: string | null
  /** Set when a rate limit refused the call. */
  readonly retryAfterMs?: number
}

/** A successful result. */
export const succeed = (
  tool: string,
  version: string,
  output: unknown,
  durationMs: number
): ToolExecutionResult => ({
  success: true,
  output,
  error: null,
  errorCode: null,
  durationMs,
  confirmed: true,
  tool,
  version
})

/** A failed result from one of the pipeline's tagged errors. */
export const fromError = (
  tool: string,
  version: string | null,
  error: ToolCallError,
  durationMs: number
): ToolExecutionResult => {
  const base = {
    success: false,
    output: null,
    error: error.message,
    errorCode: error.code,
    durationMs,
    confirmed: error._tag !== "ConfirmationRequired",
    tool,
    version
  }
  return error._tag === "RateLimited" ? { ...base, retryAfterMs: error.retryAfterMs } : base
}
