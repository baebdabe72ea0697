/**
 * `QuestionHandler`: an optional service the application installs so that a model can ask
 * the user a question (`ask_user`). With one installed, `ToolCallHandler` offers the
 * `ask_user` spec to the model and routes its calls here; without one the tool is not
 * offered and a call to it is answered as unavailable.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/**
 * A question from the model (the decoded arguments of an `ask_user` call).
 *
 * @since 0.1.0
 * @category models
 */
export interface Question {
  readonly question: string
  /** Answers to pick from; absent for a free-text answer. */
  readonly choices?: ReadonlyArray<string> | undefined
  /** Whether more than one choice may be picked. */
  readonly multi: boolean
}

/**
 * The user's answer: a text, or the picked choices.
 *
 * @since 0.1.0
 * @category models
 */
export type Answer = string | ReadonlyArray<string>

/**
 * The `QuestionHandler` service interface.
 *
 * @since 0.1.0
 * @category services
 */
export interface QuestionHandlerService {
  readonly ask: (question: Question) => Effect.Effect<Answer>
}

/**
 * Puts the model's questions to the user.
 *
 * @since 0.1.0
 * @category services
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { QuestionHandler } from "effect-tool-system"
 * import * as readline from "node:readline/promises"
 *
 * const Terminal = QuestionHandler.layer(({ question }) =>
 *   Effect.acquireUseRelease(
 *     Effect.sync(() => readline.createInterface({ input: process.stdin, output: process.stdout })),
 *     (terminal) => Effect.promise(() => terminal.question(`${question} `)),
 *     (terminal) => Effect.sync(() => terminal.close())
 *   )
 * )
 * ```
 */
export class QuestionHandler extends Context.Service<QuestionHandler, QuestionHandlerService>()(
  "effect-tool-system/QuestionHandler"
) {
  /** Answers with `ask`. */
  static readonly layer = (ask: (question: Question) => Effect.Effect<Answer>): Layer.Layer<QuestionHandler> =>
    Layer.succeed(QuestionHandler, { ask })
}
