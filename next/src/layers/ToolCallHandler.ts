/**
 * The `ToolCallHandler` over the registry and executor. The optional handlers are looked up
 * with `Effect.serviceOption`: in the caller's context at each call, else in the context the
 * layer was built in, so both `Effect.provide(ConfirmationHandler.layer(...))` on the program
 * and `Layer.provide` on this layer install one.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { ConfirmationHandler } from "../services/ConfirmationHandler.js"
import { QuestionHandler } from "../services/QuestionHandler.js"
import type { ToolCallHandlerService } from "../services/ToolCallHandler.js"
import { ToolExecutor } from "../services/ToolExecutor.js"
import { ToolRegistry } from "../services/ToolRegistry.js"
import { makeSession } from "./toolCallSession.js"

export const makeToolCallHandler = Effect.gen(function*() {
  const registry = yield* ToolRegistry
  const executor = yield* ToolExecutor
  const builtWithConfirmation = yield* Effect.serviceOption(ConfirmationHandler)
  const builtWithQuestions = yield* Effect.serviceOption(QuestionHandler)
  const deps = {
    registry,
    executor,
    confirmation: Effect.map(Effect.serviceOption(ConfirmationHandler), Option.orElse(() => builtWithConfirmation)),
    questions: Effect.map(Effect.serviceOption(QuestionHandler), Option.orElse(() => builtWithQuestions))
  }
  return { session: (options) => makeSession(deps, options) } satisfies ToolCallHandlerService
})
