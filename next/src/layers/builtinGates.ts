/**
 * The four built-in gates, in the executor's order: mode, policy, confirmation, rate limit.
 * Each is a `Gate` value over its service, and answers at once wherever the call's tool and
 * mode settle it (a read-only tool in any mode, no policy installed, no confirmation needed,
 * no rate limit), so that a call none of them has work for runs its handler directly.
 *
 * @since 0.6.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { AgentMode } from "../domain/AgentMode.js"
import { PolicyVeto } from "../domain/errors.js"
import * as Gate from "../domain/Gate.js"
import type { ConfirmationGateService } from "../services/ConfirmationGate.js"
import type { ModeGateService } from "../services/ModeGate.js"
import type { RateLimiterService } from "../services/RateLimiter.js"
import type { ToolPolicyService } from "../services/ToolPolicy.js"

/** The services the built-in gates ask. */
export interface BuiltinGateServices {
  readonly modeGate: ModeGateService
  readonly policy: ToolPolicyService
  readonly confirmation: ConfirmationGateService
  readonly rateLimiter: RateLimiterService
}

/** A refusal as the gate's answer, a pass (with `reason`) otherwise. */
const answerOf = <E extends Gate.Refuse["error"]>(effect: Effect.Effect<void, E>, passed: Gate.Pass): Effect.Effect<Gate.Verdict> =>
  Effect.match(effect, { onFailure: Gate.refuse, onSuccess: () => passed })

/** Each mode's pass, made once: a call allocates none. */
const modePasses = new WeakMap<AgentMode, Gate.Pass>()
const allowedIn = (mode: AgentMode): Gate.Pass => {
  const known = modePasses.get(mode)
  if (known !== undefined) return known
  const made = Gate.pass(`allowed in ${mode.name} mode`)
  modePasses.set(mode, made)
  return made
}

/**
 * The mode gate: in a read-only mode a tool with side effects is put to the `ModeGate` (which
 * passes a vetted scoped write inside the mode's writable directories); every other call passes.
 */
export const modeGate = (service: ModeGateService): Gate.Gate =>
  Gate.make("mode", ({ mode, paths, tool }) =>
    !mode.readOnly || tool.spec.readOnly ? allowedIn(mode) : answerOf(service.check(tool, { paths }, mode), allowedIn(mode)))

const noPolicy = Gate.skip("no policy installed")
const policyAllowed = Gate.pass("the policy allowed it")

/** The policy gate: the application's hook (`ToolPolicy`); a `Some(reason)` vetoes the call. */
export const policyGate = (service: ToolPolicyService): Gate.Gate =>
  Gate.make("policy", ({ args, tool }) =>
    service.allowsAll === true
      ? noPolicy
      : Effect.map(service.evaluate(tool, args), (veto) =>
        Option.isSome(veto) ? Gate.refuse(new PolicyVeto({ tool: tool.name, reason: veto.value })) : policyAllowed))

const confirmed = Gate.pass("confirmed")
const needsNone = Gate.skip("the tool needs no confirmation")

/**
 * The confirmation gate: a tool that requires confirmation is put to the `ConfirmationGate`. A
 * tool that asks for it as it acts (`asksConfirmation`) passes here; its handler asks the same
 * gate at the moment of the effect (see `CallConfirmation`).
 */
export const confirmationGate = (service: ConfirmationGateService): Gate.Gate =>
  Gate.make("confirmation", ({ confirm, tool }) => {
    if (tool.requiresConfirmation) return answerOf(service.check(tool, confirm), confirmed)
    if (tool.asksConfirmation === undefined) return needsNone
    return Gate.pass(
      `the tool asks for confirmation as it acts, ${tool.asksConfirmation}` +
        (confirm ? "; this call is confirmed" : "; then this unconfirmed call ends CONFIRMATION_REQUIRED")
    )
  })

const noRateLimit = Gate.skip("the tool has no rate limit")

/**
 * The rate-limit gate: a tool with `rateLimitRpm` takes a token of its bucket (of the call's
 * `rateLimitKey`); a dry run only checks that one is free.
 */
export const rateLimitGate = (service: RateLimiterService): Gate.Gate =>
  Gate.make("rateLimit", ({ dryRun, rateLimitKey, tool }) =>
    tool.rateLimitRpm === undefined
      ? noRateLimit
      : answerOf(
        dryRun ? service.check(tool, rateLimitKey) : service.acquire(tool, rateLimitKey),
        Gate.pass(`within ${tool.rateLimitRpm} calls a minute`)
      ))

/** The built-in gates in order. */
export const builtinGates = (services: BuiltinGateServices): ReadonlyArray<Gate.Gate> => [
  modeGate(services.modeGate),
  policyGate(services.policy),
  confirmationGate(services.confirmation),
  rateLimitGate(services.rateLimiter)
]
