/**
 * `ToolPolicy`: the application's veto, consulted after the mode gate and before the
 * confirmation gate. A `Some(reason)` vetoes the call.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import type { ToolInfo } from "../domain/Tool.js"
import { type PolicyHook, makePolicy } from "../layers/ToolPolicy.js"

export type { PolicyHook } from "../layers/ToolPolicy.js"

/**
 * The `ToolPolicy` service interface: never fails; a hook's own failure is already handled.
 *
 * @since 0.1.0
 * @category services
 */
export interface ToolPolicyService {
  readonly evaluate: (tool: ToolInfo, args: unknown) => Effect.Effect<Option.Option<string>>
  /** Set when the policy vetoes nothing (`layerAllowAll`): its gate then skips without asking. */
  readonly allowsAll?: boolean | undefined
}

/**
 * The policy hook.
 *
 * @since 0.1.0
 * @category services
 *
 * @example
 * ```ts
 * import { Effect, Option } from "effect"
 * import { ToolPolicy, ToolSystem } from "effect-tool-system"
 *
 * const noSecrets = ToolPolicy.layer(({ args }) =>
 *   Effect.succeed(JSON.stringify(args).includes(".env") ? Option.some("no .env files") : Option.none())
 * )
 * const system = ToolSystem.layerNode({ policy: noSecrets })
 * ```
 */
export class ToolPolicy extends Context.Service<ToolPolicy, ToolPolicyService>()("effect-tool-system/ToolPolicy") {
  /** Vetoes nothing. */
  static readonly layerAllowAll: Layer.Layer<ToolPolicy> = Layer.succeed(ToolPolicy, makePolicy(undefined))
  /**
   * A hook. A failure or defect inside it fails open (the call goes on) and is logged,
   * unless `failClosed` is set, when it vetoes the call.
   */
  static readonly layer = (hook: PolicyHook, options?: { readonly failClosed?: boolean }): Layer.Layer<ToolPolicy> =>
    Layer.succeed(ToolPolicy, makePolicy(hook, options?.failClosed ?? false))
}
