/**
 * The message shapes between a model and `ToolCallHandler`, the texts the model reads, and the
 * test layers of the optional handlers.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Result } from "effect"
import * as AgentMode from "../../src/domain/AgentMode.js"
import {
  fromAnthropic,
  fromOpenAI,
  isAnthropicToolUse,
  parseArguments,
  toAnthropicResult,
  toOpenAIMessage
} from "../../src/domain/toolCalls.js"
import { outputText, resultText } from "../../src/domain/toolMessages.js"
import { ConfirmationHandler } from "../../src/services/ConfirmationHandler.js"
import { QuestionHandler } from "../../src/services/QuestionHandler.js"
import { TestQuestionHandler } from "../../src/testing.js"

describe("tool call shapes", () => {
  it("parses OpenAI argument text: empty is {}, malformed says why", () => {
    expect(parseArguments("")).toEqual(Result.succeed({}))
    expect(parseArguments("  ")).toEqual(Result.succeed({}))
    expect(parseArguments("{\"a\":1}")).toEqual(Result.succeed({ a: 1 }))
    const bad = parseArguments("{\"a\":")
    expect(Result.isFailure(bad) && bad.failure.text).toBe("{\"a\":")
    expect(Result.isFailure(bad) && bad.failure.problem).toMatch(/JSON/)
  })

  it("maps both providers' calls to ToolCall and outcomes back to their messages", () => {
    const call = fromOpenAI({ id: "c1", type: "function", function: { name: "t", arguments: "{}" } }, true)
    expect(call).toEqual({ id: "c1", name: "t", input: Result.succeed({}), strictArguments: true })
    expect(isAnthropicToolUse({ type: "text" })).toBe(false)
    const block = { type: "tool_use" as const, id: "u1", name: "t", input: { x: 1 } }
    expect(isAnthropicToolUse(block)).toBe(true)
    expect(fromAnthropic(block)).toEqual({ id: "u1", name: "t", input: Result.succeed({ x: 1 }), strictArguments: false })
    const outcome = { id: "u1", name: "t", content: "no", isError: true, result: null }
    expect(toOpenAIMessage(outcome)).toEqual({ role: "tool", tool_call_id: "u1", content: "no" })
    expect(toAnthropicResult(outcome)).toEqual({ type: "tool_result", tool_use_id: "u1", content: "no", is_error: true })
  })

  it("only a plain object is a tool_use block: a function carrying the same fields is not", () => {
    const t = (): undefined => undefined
    const callable = Object.assign(t, { type: "tool_use" as const, id: "u1" })
    expect(callable.name).toBe("t")
    expect(isAnthropicToolUse(callable)).toBe(false)
  })

  it("a tool's output reads as text: strings as they are, data as JSON, never a throw", () => {
    expect(outputText("plain")).toBe("plain")
    expect(outputText({ a: [1, 2] })).toBe("{\"a\":[1,2]}")
    expect(outputText(undefined)).toBe("(no output)")
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(outputText(cyclic)).toBe("{\"self\":\"[Circular]\"}")
    expect(outputText(10n)).toBe("10n")
    expect(resultText({
      success: false,
      output: null,
      error: "Rate limit reached",
      errorCode: "RATE_LIMITED",
      durationMs: 0,
      confirmed: true,
      tool: "t",
      version: "1.0.0",
      retryAfterMs: 5
    })).toBe("Error [RATE_LIMITED]: Rate limit reached\nWait before calling this tool again, or continue without it.")
  })
})

describe("handler layers", () => {
  const request = { tool: "t", version: "1.0.0", arguments: {}, reason: "r", mode: AgentMode.Default }

  it.effect("layerAutoApprove approves, layerDenyAll refuses with a reason", () =>
    Effect.gen(function*() {
      const yes = yield* Effect.provide(Effect.flatMap(ConfirmationHandler, (h) => h.confirm(request)), ConfirmationHandler.layerAutoApprove)
      expect(yes.approved).toBe(true)
      const no = yield* Effect.provide(Effect.flatMap(ConfirmationHandler, (h) => h.confirm(request)), ConfirmationHandler.layerDenyAll)
      expect(no).toMatchObject({ approved: false, reason: expect.any(String) })
    }))

  it.effect("TestQuestionHandler.layerScripted answers in order, and a question past the script is a defect", () =>
    Effect.gen(function*() {
      const ask = (question: string) => Effect.flatMap(QuestionHandler, (h) => h.ask({ question, multi: false }))
      expect(yield* ask("one?")).toBe("1")
      expect(yield* ask("two?")).toEqual(["a", "b"])
      const past = yield* Effect.exit(ask("three?"))
      expect(Exit.isFailure(past) && Cause.hasDies(past.cause)).toBe(true)
      expect(Exit.isFailure(past) && Cause.pretty(past.cause)).toContain("three?")
    }).pipe(Effect.provide(TestQuestionHandler.layerScripted(["1", ["a", "b"]]))))
})
