/**
 * An effect's outcome as one value to compare: its failure as `{ tag, reason, message }` (the
 * `reason` of a `SafeFsError`, else undefined), or its success as `{ ok }`.
 */
import { Effect, Result } from "effect"

export const outcome = <A, E extends { readonly _tag: string; readonly message: string }, R>(
  effect: Effect.Effect<A, E, R>
) =>
  Effect.map(Effect.result(effect), (result) =>
    Result.isSuccess(result)
      ? { ok: result.success }
      : { tag: result.failure._tag, reason: Reflect.get(result.failure, "reason"), message: result.failure.message })

/** The `outcome` of a `SafeFsError` `Changed` at `path` while `what` was happening. */
export const changedWhile = (path: string, what: string) => ({
  tag: "SafeFsError",
  reason: "Changed",
  message: `"${path}" changed while ${what} (a symbolic link or a move replaced part of it); try again`
})
