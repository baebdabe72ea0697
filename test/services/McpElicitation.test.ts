/**
 * `McpElicitation.layerFromQuestions`: a server's question put through the application's
 * `QuestionHandler` (whether to answer, then one question per field), the server's name and
 * words shown escaped, enum options and yes/no as choices, optional fields left out, a wrong
 * value asked again (then cancelled), decline and cancel as the person chose.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Result } from "effect"
import { McpElicitation, type McpElicitationRequest } from "../../src/services/McpElicitation.js"
import { type Answer, type Question, QuestionHandler } from "../../src/services/QuestionHandler.js"
import { screenQuestion } from "../../src/tools/mcp/elicitationSchema.js"

/** Asks `request` through a person who gives `answers` in turn; the questions they were asked. */
const put = (request: McpElicitationRequest, answers: ReadonlyArray<Answer>) =>
  Effect.gen(function*() {
    const asked: Array<Question> = []
    const person = QuestionHandler.layer((question) =>
      Effect.sync(() => {
        asked.push(question)
        return answers[asked.length - 1] ?? ""
      })
    )
    const answer = yield* Effect.gen(function*() {
      const service = yield* McpElicitation
      return yield* service.elicit(request)
    }).pipe(
      Effect.provide(McpElicitation.layerFromQuestions.pipe(Layer.provide(person)))
    )
    return { answer, asked }
  })

const requestOf = (params: unknown, tool?: string): McpElicitationRequest => {
  const screened = screenQuestion(params)
  if (Result.isFailure(screened)) throw new Error(screened.failure)
  return { server: "files\u202Eevil", ...(tool === undefined ? {} : { tool }), ...screened.success }
}

const form = requestOf({
  message: "Deploy where?\nReally?",
  requestedSchema: {
    type: "object",
    properties: {
      env: { type: "string", title: "Environment", oneOf: [{ const: "prod", title: "Production" }, { const: "dev", title: "Development" }] },
      count: { type: "integer", description: "How many" },
      note: { type: "string" },
      notify: { type: "boolean", default: true },
      regions: { type: "array", items: { type: "string", enum: ["eu", "us"] } }
    },
    required: ["env", "count"]
  }
}, "deploy")

describe("McpElicitation.layerFromQuestions", () => {
  it.effect("asks whether to answer, naming the server and tool (escaped), then one question per field", () =>
    Effect.gen(function*() {
      const { answer, asked } = yield* put(form, ["answer", "Production", "3", "", "(leave it out)", ["us", "eu"]])
      expect(answer).toEqual({ action: "accept", content: { env: "prod", count: 3, regions: ["us", "eu"] } })
      expect(asked[0]).toEqual({
        question: `The MCP server "files\\u202Eevil" (for its tool "deploy") asks: Deploy where?\\nReally?`,
        choices: ["answer", "decline", "cancel"],
        multi: false
      })
      expect(asked[1]).toEqual({
        question: `The MCP server "files\\u202Eevil" (for its tool "deploy") asks for "Environment"`,
        choices: ["Production", "Development"],
        multi: false
      })
      expect(asked[2]).toMatchObject({ question: expect.stringContaining(`asks for "count" (How many)`), multi: false })
      expect(asked[2]?.choices).toBeUndefined()
      expect(asked[3]?.question).toContain(`asks for "note"; you may leave it out`)
      expect(asked[4]).toMatchObject({ question: expect.stringContaining(`; you may leave it out; left out, it is true`), choices: ["yes", "no", "(leave it out)"] })
      expect(asked[5]).toMatchObject({ choices: ["eu", "us"], multi: true })
    }))

  it.effect("asks a wrong value again, and cancels after three wrong ones", () =>
    Effect.gen(function*() {
      const again = yield* put(form, ["answer", "Staging", "Development", "2.5", "two", "2"])
      expect(again.answer).toEqual({ action: "accept", content: { env: "dev", count: 2 } })
      expect(again.asked[2]?.question).toContain("(again: it is not one of the options)")
      expect(again.asked[4]?.question).toContain("(again: it is not a whole number)")
      expect(again.asked[5]?.question).toContain("(again: it is not a whole number)")
      const given = yield* put(form, ["answer", "Production", "", "", ""])
      expect(given.answer).toEqual({ action: "cancel" })
      expect(given.asked[3]?.question).toContain("(again: it is required)")
    }))

  it.effect("decline and cancel as the person chose; a form of no fields is accepted as it is", () =>
    Effect.gen(function*() {
      expect((yield* put(form, ["decline"])).answer).toEqual({ action: "decline" })
      expect((yield* put(form, ["cancel"])).answer).toEqual({ action: "cancel" })
      expect((yield* put(form, ["something else"])).answer).toEqual({ action: "cancel" })
      const confirm = requestOf({ message: "Go on?", requestedSchema: { type: "object", properties: {} } })
      const { answer, asked } = yield* put(confirm, ["accept"])
      expect(answer).toEqual({ action: "accept", content: {} })
      expect(asked[0]).toMatchObject({ question: `The MCP server "files\\u202Eevil" asks: Go on?`, choices: ["accept", "decline", "cancel"] })
    }))
})
