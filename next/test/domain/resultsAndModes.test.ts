/**
 * A failed result's `confirmed` (false only while a confirmation is awaited) and `details`
 * (only a `ToolError` carries its handler's fields); the built-in modes looked up by name.
 */
import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import * as AgentMode from "../../src/domain/AgentMode.js"
import { ConfirmationRequired, PolicyVeto, ToolError } from "../../src/domain/errors.js"
import * as Result from "../../src/domain/ToolExecutionResult.js"

describe("ToolExecutionResult.fromError", () => {
  it("confirmed is false only for a call that waits for a confirmation", () => {
    expect(Result.fromError("t", "1.0.0", new ConfirmationRequired({ tool: "t" }), 1).confirmed).toBe(false)
    expect(Result.fromError("t", "1.0.0", new PolicyVeto({ tool: "t", reason: "no" }), 1).confirmed).toBe(true)
  })

  it("details only from a ToolError that has them", () => {
    const withDetails = Result.fromError("t", "1.0.0", new ToolError({ tool: "t", message: "m", details: { code: 7 } }), 1)
    expect(withDetails).toEqual({
      success: false,
      output: null,
      error: "m",
      errorCode: "TOOL_ERROR",
      durationMs: 1,
      confirmed: true,
      tool: "t",
      version: "1.0.0",
      details: { code: 7 }
    })
    expect("details" in Result.fromError("t", "1.0.0", new ToolError({ tool: "t", message: "m" }), 1)).toBe(false)
    expect("details" in Result.fromError("t", null, new PolicyVeto({ tool: "t", reason: "no" }), 1)).toBe(false)
  })
})

describe("AgentMode.fromName", () => {
  it("finds each built-in mode by its name, and no other", () => {
    for (const mode of AgentMode.builtins) expect(AgentMode.fromName(mode.name)).toEqual(Option.some(mode))
    expect(AgentMode.fromName("plan")).toEqual(Option.some(AgentMode.Plan))
    expect(AgentMode.fromName("Plan")).toEqual(Option.none())
    expect(AgentMode.fromName("")).toEqual(Option.none())
  })
})
