import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { ToolSystem } from "../../../src/index.js"
import { ASK_USER_TOOL_SPEC, AskUserParameters } from "../../../src/tools/builtin/askUser.js"

describe("ask_user", () => {
  it("is a read-only spec with question, choices and multi, in OpenAI's shape", () => {
    expect(ASK_USER_TOOL_SPEC.name).toBe("ask_user")
    expect(ASK_USER_TOOL_SPEC.readOnly).toBe(true)
    expect(ASK_USER_TOOL_SPEC.required).toEqual(["question"])
    const openai = ASK_USER_TOOL_SPEC.toOpenAITool()
    expect(openai.type).toBe("function")
    expect(openai.function.name).toBe("ask_user")
    expect(openai.function.description).toMatch(/^Ask the user a question and wait for the answer/)
    const parameters = openai.function.parameters
    expect(parameters).toMatchObject({ type: "object", required: ["question"], additionalProperties: false })
    expect(Object.keys(parameters.properties ?? {})).toEqual(["question", "choices", "multi"])
    expect(parameters.properties).toMatchObject({
      question: { type: "string", minLength: 1, description: expect.stringMatching(/question/) },
      choices: { type: "array", items: { type: "string" }, description: expect.any(String) },
      multi: { type: "boolean", default: false, description: expect.any(String) }
    })
    // the JSON Schema came from the generator: no $schema header, no $ref
    expect(JSON.stringify(openai)).not.toMatch(/\$schema|\$ref|\$defs/)
  })

  it("its parameter schema decodes what the model sends, filling multi", () => {
    const decode = Schema.decodeUnknownSync(AskUserParameters)
    expect(decode({ question: "Which branch?" })).toEqual({ question: "Which branch?", multi: false })
    expect(decode({ question: "Pick", choices: ["a", "b"], multi: true })).toEqual({
      question: "Pick",
      choices: ["a", "b"],
      multi: true
    })
    expect(() => decode({ choices: ["a"] })).toThrow()
    expect(() => decode({ question: "" })).toThrow()
    expect(() => decode({ question: "q", choices: [1] })).toThrow()
  })

  it.effect("is never registered: ToolSystem.layerNode() knows no ask_user", () =>
    Effect.gen(function*() {
      const ts = yield* ToolSystem
      const r = yield* ts.execute("ask_user", { question: "Proceed?" })
      expect(r.success).toBe(false)
      expect(r.errorCode).toBe("TOOL_NOT_FOUND")
      const names = (yield* ts.openAITools()).map((t) => t.function.name)
      expect(names).not.toContain("ask_user")
      expect(names.length).toBeGreaterThan(0)
    }).pipe(Effect.provide(ToolSystem.layerNode())))
})
