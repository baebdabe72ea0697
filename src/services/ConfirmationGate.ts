/**
 * `ConfirmationGate`: a tool that requires confirmation runs only when called with
 * `confirm: true`; otherwise the call ends `CONFIRMATION_REQUIRED` with `confirmed: false`.
 *
 * The gate is also asked at the moment of an effect: a tool that asks for confirmation as it
 * acts (`asksConfirmation`: `append_to_file` creating a file, `move_file` / `copy_file`
 * replacing one or putting an executable file in place, `download_file` / `generate_image`
 * overwriting one) asks `check` about itself as a tool that requires confirmation (see
 * `CallConfirmation`), so one gate (`layerAutoConfirm`, or an application's) decides both.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ConfirmationRequired } from "../domain/errors.js"
import type { ToolInfo } from "../domain/Tool.js"

/**
 * The `ConfirmationGate` service interface.
 *
 * @since 0.1.0
 * @category services
 */
export interface ConfirmationGateService {
  /**
   * Passes when `tool` may run with `confirm` as given: asked up front about tools flagged
   * `requiresConfirmation`, and during a call of a tool that asks as it acts, about that tool
   * (given with `requiresConfirmation: true`), when it is about to have such an effect.
   */
  readonly check: (tool: ToolInfo, confirm: boolean) => Effect.Effect<void, ConfirmationRequired>
}

/**
 * Pauses calls that need a person's yes.
 *
 * @since 0.1.0
 * @category services
 */
export class ConfirmationGate extends Context.Service<ConfirmationGate, ConfirmationGateService>()(
  "effect-tool-system/ConfirmationGate"
) {
  /** Requires `confirm: true` for tools flagged `requiresConfirmation`. */
  static readonly layer: Layer.Layer<ConfirmationGate> = Layer.succeed(ConfirmationGate, {
    check: (tool, confirm) =>
      tool.requiresConfirmation && !confirm ? Effect.fail(new ConfirmationRequired({ tool: tool.name })) : Effect.void
  })
  /** Treats every call as confirmed: for tests and trusted batch jobs. */
  static readonly layerAutoConfirm: Layer.Layer<ConfirmationGate> = Layer.succeed(ConfirmationGate, {
    check: () => Effect.void
  })
}
