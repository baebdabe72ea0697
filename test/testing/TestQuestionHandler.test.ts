/**
 * `TestQuestionHandler.layerScripted` (`effect-tool-system/testing`): answers in order, and a question past the script is a
 * defect that names the question by its number and text.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import { QuestionHandler } from "../../src/services/QuestionHandler.js"
import { TestQuestionHandler } from "../../src/testing.js"

describe("TestQuestionHandler.layerScripted", () => {
  it.effect("answers in order; the first question past the script is a defect naming it", () =>
    Effect.gen(function*() {
      const handler = yield* QuestionHandler
      expect(yield* handler.ask({ question: "Which file?", multi: false })).toBe("a.txt")
      expect(yield* handler.ask({ question: "Which ones?", choices: ["x", "y"], multi: true })).toEqual(["x", "y"])
      const exit = yield* Effect.exit(handler.ask({ question: "And then?", multi: false }))
      expect(Exit.isFailure(exit) && Cause.hasDies(exit.cause)).toBe(true)
      expect(Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "").toContain(
        `no answer scripted for question 3 ("And then?")`
      )
    }).pipe(Effect.provide(TestQuestionHandler.layerScripted(["a.txt", ["x", "y"]]))))
})
