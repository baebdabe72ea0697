/**
 * `ToolExecutor.explain`: the gates of one call, evaluated in the executor's order, without
 * running the handler or taking a rate-limit token. Each gate is asked exactly what
 * `execute` would ask it (the same policy hook, mode gate and confirmation gate), so the two
 * agree on the decision and its code.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as AgentMode from "../domain/AgentMode.js"
import { pathTraversalOf, PolicyVeto, type ToolCallError } from "../domain/errors.js"
import { fromStrictArguments } from "../domain/exports.js"
import type { CallExplanation, GateDecision, GateName } from "../domain/GateDecision.js"
import { gateOrder } from "../domain/GateDecision.js"
import type { BoundCall, RegisteredTool } from "../domain/Tool.js"
import type { ResolvedPath } from "../domain/WorkspacePath.js"
import type { ConfirmationGateService } from "../services/ConfirmationGate.js"
import type { ModeGateService } from "../services/ModeGate.js"
import type { RateLimiterService } from "../services/RateLimiter.js"
import type { ExecuteOptions } from "../services/ToolExecutor.js"
import type { ToolPolicyService } from "../services/ToolPolicy.js"
import type { ToolRegistryService } from "../services/ToolRegistry.js"
import type { WorkspaceService } from "../services/Workspace.js"
import { refuseProtected } from "./protectedPaths.js"
import { allowAll } from "./ToolPolicy.js"

/** The services the gates are asked through. */
export interface ExplainServices {
  readonly registry: ToolRegistryService
  readonly modeGate: ModeGateService
  readonly policy: ToolPolicyService
  readonly confirmation: ConfirmationGateService
  readonly rateLimiter: RateLimiterService
  readonly workspace: WorkspaceService
}

/** A gate's verdict: passed (or did not apply) with a reason, or refused with an error. */
interface Passed {
  readonly decision: GateDecision
}
type Verdict = Passed | { readonly refused: ToolCallError; readonly gate: GateName }

const pass = (gate: GateName, reason: string): Passed => ({ decision: { gate, outcome: "pass", reason } })
const skip = (gate: GateName, reason: string): Passed => ({ decision: { gate, outcome: "skip", reason } })
const verdictOf = (gate: GateName, reason: string) => (result: Either.Either<void, ToolCallError>): Verdict =>
  Either.isLeft(result) ? { refused: result.left, gate } : pass(gate, reason)

/** The policy's verdict; the allow-all policy (the executor skips it too) does not apply. */
const policyVerdict = (evaluation: Effect.Effect<Option.Option<string>>, tool: RegisteredTool): Effect.Effect<Verdict> =>
  evaluation === allowAll
    ? Effect.succeed(skip("policy", "no policy installed"))
    : Effect.map(evaluation, (veto): Verdict =>
      Option.isSome(veto)
        ? { refused: new PolicyVeto({ tool: tool.name, reason: veto.value }), gate: "policy" }
        : pass("policy", "the policy allowed it"))

export const makeExplain = (services: ExplainServices) =>
(name: string, input: unknown, options?: ExecuteOptions): Effect.Effect<CallExplanation> =>
  Effect.gen(function*() {
    const mode = options?.mode ?? AgentMode.Default
    const decisions: Array<GateDecision> = []
    const explanation = (
      tool: RegisteredTool | undefined,
      refused?: { readonly gate: GateName; readonly error: { readonly code: CallExplanation["errorCode"]; readonly message: string } }
    ): CallExplanation => {
      // the message as `execute` returns it: a gate's refusal is passed on as written
      const message = refused === undefined ? null : refused.error.message
      if (refused !== undefined) {
        decisions.push({ gate: refused.gate, outcome: "fail", reason: refused.error.message, code: refused.error.code ?? undefined })
      }
      for (const gate of gateOrder.slice(decisions.length)) {
        decisions.push({ gate, outcome: "not_reached", reason: "an earlier gate refused the call" })
      }
      return {
        tool: name,
        version: tool?.version ?? null,
        mode: mode.name,
        wouldRun: refused === undefined,
        errorCode: refused?.error.code ?? null,
        message,
        gates: decisions
      }
    }

    const found = services.registry.lookup(name, options?.versionRange)
    if (Either.isLeft(found)) return explanation(undefined, { gate: "lookup", error: found.left })
    const tool = found.right
    decisions.push(pass("lookup", `${tool.name} ${tool.version}`).decision)

    const prepared = tool.prepare(
      options?.strictArguments === true ? fromStrictArguments(tool.spec.parameters, input) : input
    )
    if (Either.isLeft(prepared)) return explanation(tool, { gate: "arguments", error: prepared.left })
    const call: BoundCall = prepared.right
    decisions.push(pass("arguments", "the arguments match the parameter schema").decision)

    // paths: an escape is a defect in `execute`; here it is the `paths` gate's refusal
    const paths: Array<ResolvedPath> = []
    for (const slot of call.paths) {
      const exit = yield* Effect.exit(services.workspace.resolve(slot.raw))
      if (Exit.isSuccess(exit)) {
        paths.push(exit.value)
        Reflect.set(slot.holder, slot.key, exit.value)
        continue
      }
      const traversal = pathTraversalOf(exit.cause)
      if (Option.isSome(traversal)) return explanation(tool, { gate: "paths", error: traversal.value })
      return yield* Effect.failCause(exit.cause)
    }
    // as `execute` does: a tool with side effects is refused a path under a `.git`
    if (!tool.spec.readOnly) {
      const protectedPath = yield* Effect.either(Effect.flatMap(services.workspace.root, (root) => refuseProtected(tool.name, root, paths)))
      if (Either.isLeft(protectedPath)) return explanation(tool, { gate: "paths", error: protectedPath.left })
    }
    decisions.push(
      (paths.length === 0
        ? skip("paths", "no path arguments")
        : pass("paths", `${paths.length} path(s) inside the workspace`)).decision
    )

    const verdicts: ReadonlyArray<Effect.Effect<Verdict>> = [
      Effect.map(Effect.either(services.modeGate.check(tool, { paths }, mode)), verdictOf("mode", `allowed in ${mode.name} mode`)),
      policyVerdict(services.policy.evaluate(tool, call.args), tool),
      tool.requiresConfirmation
        ? Effect.map(
          Effect.either(services.confirmation.check(tool, options?.confirm === true)),
          verdictOf("confirmation", "confirmed")
        )
        : tool.asksConfirmation !== undefined
        // asked by the handler as it acts (see `CallConfirmation`): the dry run cannot know whether it will be
        ? Effect.succeed(pass(
          "confirmation",
          `the tool asks for confirmation as it acts, ${tool.asksConfirmation}` +
            (options?.confirm === true ? "; this call is confirmed" : "; then this unconfirmed call ends CONFIRMATION_REQUIRED")
        ))
        : Effect.succeed(skip("confirmation", "the tool needs no confirmation")),
      tool.rateLimitRpm === undefined
        ? Effect.succeed(skip("rateLimit", "the tool has no rate limit"))
        : Effect.map(
          Effect.either(services.rateLimiter.check(tool, options?.rateLimitKey)),
          verdictOf("rateLimit", `a token is free (${tool.rateLimitRpm} calls a minute)`)
        )
    ]
    for (const next of verdicts) {
      const verdict = yield* next
      if ("refused" in verdict) return explanation(tool, { gate: verdict.gate, error: verdict.refused })
      decisions.push(verdict.decision)
    }
    return explanation(tool)
  })
