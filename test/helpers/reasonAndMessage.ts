/**
 * An effect's outcome as one value to compare: its failure's `[reason, message]` (for the
 * errors that carry a `reason`, as `SafeFsError` and `ScriptWorkerFailed` do), or its success.
 */
import { Effect, Result } from "effect"

export const reasonAndMessage = <A, E extends { readonly reason: string; readonly message: string }, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A | readonly [E["reason"], string], never, R> =>
  Effect.map(Effect.result(effect), (result) => Result.isFailure(result) ? [result.failure.reason, result.failure.message] as const : result.success)
