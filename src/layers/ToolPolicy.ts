/**
 * Policy hooks: wraps an application's hook so that its own failure fails open (logged), or
 * closed on request.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { ToolInfo } from "../domain/Tool.js"
import type { ToolPolicyService } from "../services/ToolPolicy.js"

/**
 * An application's veto: `Some(reason)` vetoes. It may fail; see `ToolPolicy.layer`.
 *
 * @since 0.1.0
 * @category models
 */
export type PolicyHook = (call: { readonly tool: ToolInfo; readonly args: unknown }) => Effect.Effect<
  Option.Option<string>,
  unknown
>

/** The evaluation that vetoes nothing. */
const allowAll: Effect.Effect<Option.Option<string>> = Effect.succeed(Option.none<string>())

export const makePolicy = (hook: PolicyHook | undefined, failClosed = false): ToolPolicyService => {
  if (hook === undefined) return { evaluate: () => allowAll, allowsAll: true }
  return {
    evaluate: (tool, args) =>
      Effect.suspend(() => hook({ tool, args })).pipe(
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause) ? Effect.interrupt : Effect.andThen(
            Effect.logWarning(
              `Policy hook failed for "${tool.name}"; failing ${failClosed ? "closed" : "open"}`,
              cause
            ),
            Effect.succeed(failClosed ? Option.some(`the policy hook failed: ${Cause.squash(cause)}`) : Option.none())
          )
        )
      )
  }
}
