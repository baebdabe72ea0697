/**
 * A call's gates, in the order the executor passes them: mode, policy, confirmation, rate
 * limit. A gate that passes without work (`Effect.void`, the allow-all policy) is left out, and
 * a call with none left is its handler alone (see `ToolExecutor.ts`'s `direct`).
 *
 * @since 0.5.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as AgentMode from "../domain/AgentMode.js"
import { type PathTraversalError, PolicyVeto, type ToolCallError } from "../domain/errors.js"
import type { BoundCall, RegisteredTool, ToolInfo } from "../domain/Tool.js"
import type { ResolvedPath } from "../domain/WorkspacePath.js"
import { currentCallConfirmation } from "../services/CallConfirmation.js"
import type { ConfirmationGateService } from "../services/ConfirmationGate.js"
import type { ModeGateService } from "../services/ModeGate.js"
import type { RateLimiterService } from "../services/RateLimiter.js"
import type { ExecuteOptions } from "../services/ToolExecutor.js"
import type { ToolPolicyService } from "../services/ToolPolicy.js"
import type { Restore } from "./guard.js"
import { allowAll } from "./ToolPolicy.js"

/** A step of the pipeline, with every expected failure it can raise. */
export type Step = Effect.Effect<unknown, ToolCallError | PathTraversalError>

/**
 * A call's gates as they stand for its (resolved) paths, each `undefined` when it passes without
 * work.
 */
export interface Gates {
  readonly mode: Step | undefined
  readonly policy: Effect.Effect<Option.Option<string>> | undefined
  readonly confirmation: Step | undefined
  readonly rateLimit: Step | undefined
}

/** The gates of the executor's services. */
export const makeCallGates = (services: {
  readonly modeGate: ModeGateService
  readonly policy: ToolPolicyService
  readonly confirmation: ConfirmationGateService
  readonly rateLimiter: RateLimiterService
}) => {
  const { confirmation, modeGate, policy, rateLimiter } = services

  /**
   * The gates of a call with `paths` (resolved), or `undefined` when none is left. Built once
   * per call: the policy hook is asked once.
   */
  const gatesOf = (
    tool: RegisteredTool,
    call: BoundCall,
    options: ExecuteOptions | undefined,
    paths: ReadonlyArray<ResolvedPath>
  ): Gates | undefined => {
    const rateLimit = tool.rateLimitRpm === undefined ? undefined : rateLimiter.acquire(tool, options?.rateLimitKey)
    // only tools that need confirmation are put to the confirmation gate
    const confirmed = tool.requiresConfirmation ? confirmation.check(tool, options?.confirm === true) : Effect.void
    const evaluation = policy.evaluate(tool, call.args)
    const checked = modeGate.check(tool, { paths }, options?.mode ?? AgentMode.Default)
    if (rateLimit === undefined && confirmed === Effect.void && evaluation === allowAll && checked === Effect.void) {
      return undefined
    }
    return {
      mode: checked === Effect.void ? undefined : checked,
      policy: evaluation === allowAll ? undefined : evaluation,
      confirmation: confirmed === Effect.void ? undefined : confirmed,
      rateLimit
    }
  }

  /** `run` behind `gates`, in the order mode, policy, confirmation, rate limit. */
  const behind = (tool: RegisteredTool, gates: Gates | undefined, restore: Restore, run: Step): Step => {
    if (gates === undefined) return run
    let step = run
    if (gates.rateLimit !== undefined) step = Effect.zipRight(restore(gates.rateLimit), step)
    if (gates.confirmation !== undefined) step = Effect.zipRight(restore(gates.confirmation), step)
    if (gates.policy !== undefined) {
      const next = step
      step = Effect.flatMap(restore(gates.policy), (veto) =>
        Option.isSome(veto) ? Effect.fail(new PolicyVeto({ tool: tool.name, reason: veto.value })) : next)
    }
    if (gates.mode !== undefined) step = Effect.zipRight(restore(gates.mode), step)
    return step
  }

  /** Each tool as one that requires confirmation, made once: what the gate is asked about an effect. */
  const confirmingViews = new WeakMap<RegisteredTool, ToolInfo>()
  const confirmingView = (tool: RegisteredTool): ToolInfo => {
    const known = confirmingViews.get(tool)
    if (known !== undefined) return known
    const made: ToolInfo = { ...tool, requiresConfirmation: true }
    confirmingViews.set(tool, made)
    return made
  }

  /**
   * `effect` (the whole call of a tool that asks for confirmation as it acts, `asksConfirmation`)
   * with the call's confirmation set (see `CallConfirmation`): its handler's fiber inherits it,
   * and asks the gate only when an effect needs it. Such a call passes the rate limit before
   * its handler can find out, so a refusal there would have taken a token: none of these tools
   * has a rate limit today ("an unconfirmed call consumes no token" holds).
   */
  const withCallConfirmation = <A, E>(
    tool: RegisteredTool,
    options: ExecuteOptions | undefined,
    effect: Effect.Effect<A, E>
  ): Effect.Effect<A, E> =>
    Effect.locally(effect, currentCallConfirmation, {
      tool: tool.name,
      confirmed: Effect.isSuccess(confirmation.check(confirmingView(tool), options?.confirm === true))
    })

  return { behind, gatesOf, withCallConfirmation }
}
