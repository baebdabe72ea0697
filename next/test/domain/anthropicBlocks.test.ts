/**
 * Which Anthropic content blocks are tool calls (a `tool_use` with a string id and name), and
 * an OpenAI call's arguments taken as plain ones unless said to be strict.
 */
import { describe, expect, it } from "@effect/vitest"
import { type AnthropicContentBlock, fromOpenAI, isAnthropicToolUse } from "../../src/domain/toolCalls.js"

describe("isAnthropicToolUse", () => {
  it("a tool_use block with a string id and a string name, and nothing else", () => {
    expect(isAnthropicToolUse({ type: "tool_use", id: "toolu_1", name: "read_file", input: {} })).toBe(true)
    const others: ReadonlyArray<unknown> = [
      { type: "text", text: "hi" },
      // an id and a name do not make another block a tool_use
      { type: "text", text: "hi", id: "toolu_2", name: "read_file" },
      { type: "tool_use", id: 1, name: "read_file", input: {} },
      { type: "tool_use", id: "toolu_1", name: null, input: {} },
      { type: "tool_use", name: "read_file", input: {} },
      { type: "tool_use", id: "toolu_1", input: {} }
    ]
    for (const block of others) expect(isAnthropicToolUse(block as AnthropicContentBlock), JSON.stringify(block)).toBe(false)
  })
})

describe("fromOpenAI", () => {
  it("arguments are plain unless the call is said to come from the strict export", () => {
    const call = { id: "c1", type: "function" as const, function: { name: "t", arguments: "{\"a\":1}" } }
    expect(fromOpenAI(call).strictArguments).toBe(false)
    expect(fromOpenAI(call, true).strictArguments).toBe(true)
  })
})
