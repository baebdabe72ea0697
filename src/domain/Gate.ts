/**
 * A gate: one named decision about a call, made after the call's arguments are decoded and its
 * paths resolved, before its handler runs. The executor holds one ordered list of them (the
 * built-in mode, policy, confirmation and rate-limit gates, then an application's own, see
 * `ToolGates`), and `execute`, `explain` and the audit record all run that one list, so they
 * cannot disagree about a call.
 *
 * A gate answers at once when it can (`Gate.pass`, `Gate.skip`, `Gate.refuse`: most calls of
 * most gates), or with an effect of its answer when it must wait (a policy hook, Redis). An
 * answer given at once costs the call no effect step.
 *
 * @since 0.6.0
 *
 * @example
 * ```ts
 * import { Effect, Ref } from "effect"
 * import { Gate, RateLimited } from "effect-tool-system"
 *
 * // at most 100 calls of web tools: a budget, as a gate (see `ToolGates.layerWith`)
 * const webBudget = (spent: Ref.Ref<number>) =>
 *   Gate.make("budget", ({ dryRun, tool }) =>
 *     !tool.tags.includes("web")
 *       ? Gate.skip("not a web tool")
 *       : Ref.modify(spent, (n): [Gate.Verdict, number] =>
 *         n >= 100
 *           ? [Gate.refuse(new RateLimited({ tool: tool.name, limitRpm: 100, retryAfterMs: 60_000, reason: "the web budget is spent" })), n]
 *           : [Gate.pass(`${99 - n} web calls left`), dryRun ? n : n + 1]))
 * ```
 */
import * as Effect from "effect/Effect"
import type { AgentMode } from "./AgentMode.js"
import type { ToolCallError } from "./errors.js"
import type { ToolInfo } from "./Tool.js"
import type { ResolvedPath } from "./WorkspacePath.js"

/**
 * What a gate is asked about: one call, its arguments decoded and its paths resolved.
 *
 * @since 0.6.0
 * @category models
 */
export interface GateCall {
  readonly tool: ToolInfo
  /** The decoded arguments (paths in them already resolved). */
  readonly args: unknown
  /** The call's path arguments, resolved inside the workspace. */
  readonly paths: ReadonlyArray<ResolvedPath>
  readonly mode: AgentMode
  /** The call is confirmed (`ExecuteOptions.confirm`). */
  readonly confirm: boolean
  /** Who the call's rate limit is counted for (`ExecuteOptions.rateLimitKey`). */
  readonly rateLimitKey: string | undefined
  /**
   * Asked by `explain`, a dry run: the gate must decide as it would, and take nothing (no
   * rate-limit token, no budget).
   */
  readonly dryRun: boolean
}

/**
 * The gate lets the call on, and why.
 *
 * @since 0.6.0
 * @category models
 */
export interface Pass {
  readonly _tag: "Pass"
  readonly reason: string
}

/**
 * The gate does not apply to the call (no rate limit, no policy installed), and why.
 *
 * @since 0.6.0
 * @category models
 */
export interface Skip {
  readonly _tag: "Skip"
  readonly reason: string
}

/**
 * The gate refuses the call: it ends with `error` (its `code` and message).
 *
 * @since 0.6.0
 * @category models
 */
export interface Refuse {
  readonly _tag: "Refuse"
  readonly error: ToolCallError
}

/**
 * A gate's answer.
 *
 * @since 0.6.0
 * @category models
 */
export type Verdict = Pass | Skip | Refuse

/**
 * A gate's answer, given at once or after work.
 *
 * @since 0.6.0
 * @category models
 */
export type Answer = Verdict | Effect.Effect<Verdict>

/**
 * A gate: a name (unique in the list; shown by `explain` and in the audit record) and its decision.
 *
 * @since 0.6.0
 * @category models
 */
export interface Gate {
  readonly name: string
  /**
   * The gate's answer about `call`. It must not fail: a refusal is `Gate.refuse`. An answer
   * given at once must be pure (the executor may ask for it before an earlier gate's effect
   * has run); work with effects (taking a token) belongs in the effect.
   */
  readonly decide: (call: GateCall) => Answer
}

/**
 * A gate named `name` deciding with `decide`.
 *
 * @since 0.6.0
 * @category constructors
 */
export const make = (name: string, decide: (call: GateCall) => Answer): Gate => ({ name, decide })

/**
 * Lets the call on.
 *
 * @since 0.6.0
 * @category constructors
 */
export const pass = (reason: string): Pass => ({ _tag: "Pass", reason })

/**
 * Does not apply to the call.
 *
 * @since 0.6.0
 * @category constructors
 */
export const skip = (reason: string): Skip => ({ _tag: "Skip", reason })

/**
 * Refuses the call with `error`.
 *
 * @since 0.6.0
 * @category constructors
 */
export const refuse = (error: ToolCallError): Refuse => ({ _tag: "Refuse", error })

/**
 * Whether an answer is given at once (a `Verdict`) rather than as an effect.
 *
 * @since 0.6.0
 * @category guards
 */
export const isVerdict = (answer: Answer): answer is Verdict => !Effect.isEffect(answer)
