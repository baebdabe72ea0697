/**
 * `ToolGates`: the executor's one ordered list of gates, asked about every call after its
 * arguments are decoded and its paths resolved: the built-in mode, policy, confirmation and
 * rate-limit gates, then an application's own (a budget, an approval service). `execute`,
 * `explain` and the audit record run this same list. Without this service in context the
 * executor uses `layer`'s list.
 *
 * @since 0.6.0
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Gate, PolicyVeto, ToolGates, ToolSystem } from "effect-tool-system"
 *
 * // no shell after office hours
 * const officeHours = Gate.make("officeHours", ({ tool }) =>
 *   !tool.tags.includes("shell") || new Date().getHours() < 18
 *     ? Gate.pass("within office hours")
 *     : Gate.refuse(new PolicyVeto({ tool: tool.name, reason: "no shell after 18:00" })))
 *
 * const tools = ToolSystem.layerNode({ gates: ToolGates.layerWith(officeHours) })
 * ```
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Gate } from "../domain/Gate.js"
import { builtinGates } from "../layers/builtinGates.js"
import { ConfirmationGate } from "./ConfirmationGate.js"
import { ModeGate } from "./ModeGate.js"
import { RateLimiter } from "./RateLimiter.js"
import { ToolPolicy } from "./ToolPolicy.js"

/**
 * The `ToolGates` service interface.
 *
 * @since 0.6.0
 * @category services
 */
export interface ToolGatesService {
  /** The gates in the order they are asked. */
  readonly gates: ReadonlyArray<Gate>
}

/**
 * The services the built-in gates ask.
 *
 * @since 0.6.0
 * @category models
 */
export type BuiltinGateServices = ModeGate | ToolPolicy | ConfirmationGate | RateLimiter

/** Names the executor's own steps hold in every decision list: no gate may take one. */
const stepNames: ReadonlyArray<string> = ["lookup", "arguments", "paths"]

/** `gates` as a list, or a defect naming the gate whose name is taken twice (or is a step's). */
const listOf = (gates: ReadonlyArray<Gate>): Effect.Effect<ToolGatesService> => {
  const seen = new Set(stepNames)
  for (const gate of gates) {
    if (seen.has(gate.name)) return Effect.die(new Error(`ToolGates: the gate name "${gate.name}" is taken twice`))
    seen.add(gate.name)
  }
  return Effect.succeed({ gates })
}

/**
 * The built-in gates in order (mode, policy, confirmation, rate limit), over their services.
 *
 * @internal
 */
export const builtin: Effect.Effect<ReadonlyArray<Gate>, never, BuiltinGateServices> = Effect.map(
  Effect.all({ modeGate: ModeGate, policy: ToolPolicy, confirmation: ConfirmationGate, rateLimiter: RateLimiter }),
  builtinGates
)

/**
 * The executor's gates.
 *
 * @since 0.6.0
 * @category services
 */
export class ToolGates extends Context.Service<ToolGates, ToolGatesService>()("effect-tool-system/ToolGates") {
  /** The built-in gates: mode, policy, confirmation, rate limit. */
  static readonly layer: Layer.Layer<ToolGates, never, BuiltinGateServices> = Layer.effect(
    ToolGates,
    Effect.flatMap(builtin, listOf)
  )

  /** The built-in gates, then `gates`, in that order. */
  static readonly layerWith = (...gates: ReadonlyArray<Gate>): Layer.Layer<ToolGates, never, BuiltinGateServices> =>
    Layer.effect(ToolGates, Effect.flatMap(builtin, (own) => listOf([...own, ...gates])))

  /**
   * The built-in gates, then the gates `make` builds (with services of its own, e.g. an
   * approval service's client).
   */
  static readonly layerWithEffect = <E, R>(
    make: Effect.Effect<ReadonlyArray<Gate>, E, R>
  ): Layer.Layer<ToolGates, E, R | BuiltinGateServices> =>
    Layer.effect(ToolGates, Effect.flatMap(Effect.zip(builtin, make), ([own, extra]) => listOf([...own, ...extra])))

  /** Exactly `gates`, no built-in one: for tests of a gate, or an application that replaces them all. */
  static readonly layerOnly = (...gates: ReadonlyArray<Gate>): Layer.Layer<ToolGates> =>
    Layer.effect(ToolGates, listOf(gates))
}
