/**
 * A `QuestionHandler` for tests and demos: the user's answers are given up front.
 *
 * @since 0.6.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import { type Answer, QuestionHandler } from "../services/QuestionHandler.js"

/**
 * Answers from a script, in order. A question past the end of the script is a defect (the
 * test asked more than it planned), so a test cannot pass on an answer it did not write.
 *
 * @since 0.6.0
 * @category layers
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { QuestionHandler } from "effect-tool-system"
 * import { TestQuestionHandler } from "effect-tool-system/testing"
 *
 * const answers = Effect.gen(function*() {
 *   const handler = yield* QuestionHandler
 *   const first = yield* handler.ask({ question: "Which branch?", multi: false })
 *   const second = yield* handler.ask({ question: "Which files?", choices: ["a", "b", "c"], multi: true })
 *   return [first, second]
 * }).pipe(Effect.provide(TestQuestionHandler.layerScripted(["main", ["a", "c"]])))
 * ```
 */
export const layerScripted = (answers: ReadonlyArray<Answer>): Layer.Layer<QuestionHandler> =>
  Layer.effect(
    QuestionHandler,
    Effect.map(Ref.make(0), (next) => ({
      ask: (question) =>
        Effect.flatMap(Ref.getAndUpdate(next, (n) => n + 1), (n) => {
          const answer = answers[n]
          return answer === undefined
            ? Effect.die(new Error(`TestQuestionHandler.layerScripted: no answer scripted for question ${n + 1} ("${question.question}")`))
            : Effect.succeed(answer)
        })
    }))
  )
