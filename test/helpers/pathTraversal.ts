/**
 * The `PathTraversalError` an effect dies with, for tests of the workspace's containment.
 */
import { Cause, Effect, Exit, Result } from "effect"
import { PathTraversalError } from "../../src/domain/errors.js"

/** The `PathTraversalError` an effect dies with (`Workspace.resolve` dies, it does not fail). */
export const traversalOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.exit(effect), (exit) => {
    if (Exit.isSuccess(exit)) throw new Error(`expected a PathTraversalError defect, got ${String(exit.value)}`)
    const defect = Cause.findDefect(exit.cause)
    if (Result.isFailure(defect) || !(defect.success instanceof PathTraversalError)) {
      throw new Error(`expected a PathTraversalError defect, got ${Cause.pretty(exit.cause)}`)
    }
    return defect.success
  })
