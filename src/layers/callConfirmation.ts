/**
 * The confirmation of a call of a tool that asks for it as it acts (`asksConfirmation`): the
 * call runs with it set (see `CallConfirmation`), and its handler asks the `ConfirmationGate`
 * only when an effect needs it.
 *
 * @since 0.5.0
 */
import * as Effect from "effect/Effect"
import type { RegisteredTool, ToolInfo } from "../domain/Tool.js"
import { CurrentCallConfirmation } from "../services/CallConfirmation.js"
import type { ConfirmationGateService } from "../services/ConfirmationGate.js"
import type { ExecuteOptions } from "../services/ToolExecutor.js"

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
 * `effect` (the whole call of a tool that asks for confirmation as it acts) with the call's
 * confirmation set. Such a call passes the rate limit before its handler can find out, so a
 * refusal there would have taken a token: none of these tools has a rate limit today ("an
 * unconfirmed call consumes no token" holds).
 */
export const withCallConfirmation = <A, E, R>(
  confirmation: ConfirmationGateService,
  tool: RegisteredTool,
  options: ExecuteOptions | undefined,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.provideService(effect, CurrentCallConfirmation, {
    tool: tool.name,
    confirmed: Effect.isSuccess(confirmation.check(confirmingView(tool), options?.confirm === true))
  })
