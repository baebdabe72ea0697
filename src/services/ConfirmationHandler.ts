/**
 * `ConfirmationHandler`: an optional service the application installs (a web UI, a terminal
 * prompt) so that `ToolCallHandler` can ask a person before a call that needs confirmation
 * runs. Without one, such a call stays refused (`CONFIRMATION_REQUIRED`).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { AgentMode } from "../domain/AgentMode.js"

/**
 * What a person is asked to confirm.
 *
 * @since 0.1.0
 * @category models
 */
export interface ConfirmationRequest {
  readonly tool: string
  /** The version that would run. */
  readonly version: string | null
  /** The arguments as the model sent them (parsed JSON). */
  readonly arguments: unknown
  /** Why the call needs confirmation, in one sentence. */
  readonly reason: string
  /** The session's agent mode. */
  readonly mode: AgentMode
}

/**
 * The person's answer.
 *
 * @since 0.1.0
 * @category models
 */
export interface ConfirmationDecision {
  readonly approved: boolean
  /**
   * With `approved`: approve every later call of this tool for the rest of the session
   * without asking again.
   */
  readonly remember?: boolean | undefined
  /** With a refusal: why, passed on to the model. */
  readonly reason?: string | undefined
}

/**
 * The `ConfirmationHandler` service interface.
 *
 * @since 0.1.0
 * @category services
 */
export interface ConfirmationHandlerService {
  readonly confirm: (request: ConfirmationRequest) => Effect.Effect<ConfirmationDecision>
}

/**
 * Asks a person to confirm a call.
 *
 * @since 0.1.0
 * @category services
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ConfirmationHandler } from "effect-tool-system"
 *
 * declare const askInBrowser: (question: string) => Promise<boolean>
 *
 * const Ui = ConfirmationHandler.layer((request) =>
 *   Effect.promise(() => askInBrowser(`${request.tool}: ${JSON.stringify(request.arguments)}?`)).pipe(
 *     Effect.map((yes) => ({ approved: yes }))
 *   )
 * )
 * ```
 */
export class ConfirmationHandler extends Context.Service<ConfirmationHandler, ConfirmationHandlerService>()(
  "effect-tool-system/ConfirmationHandler"
) {
  /** Decides with `confirm`. */
  static readonly layer = (
    confirm: (request: ConfirmationRequest) => Effect.Effect<ConfirmationDecision>
  ): Layer.Layer<ConfirmationHandler> => Layer.succeed(ConfirmationHandler, { confirm })

  /** Approves every call, asking each time: for tests and trusted runs. */
  static readonly layerAutoApprove: Layer.Layer<ConfirmationHandler> = ConfirmationHandler.layer(() =>
    Effect.succeed({ approved: true })
  )

  /** Refuses every call: for tests, and for runs where no one may approve anything. */
  static readonly layerDenyAll: Layer.Layer<ConfirmationHandler> = ConfirmationHandler.layer(() =>
    Effect.succeed({ approved: false, reason: "this session approves nothing" })
  )
}
