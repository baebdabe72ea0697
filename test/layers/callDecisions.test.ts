/**
 * The decisions a call's record and `explain` show for the steps it never reached, and for a
 * refusal its handler met as it acted.
 */
import { describe, expect, it } from "@effect/vitest"
import { Gate } from "../../src/index.js"
import { argumentsPassed, completed, lookupPassed, pathsPassed, refusedBy, withLateRefusal } from "../../src/layers/callDecisions.js"

const gates = [Gate.make("mode", () => Gate.pass("write mode")), Gate.make("confirmation", () => Gate.pass("confirmed"))]
const info = { name: "read_file", version: "1.0.0" }

describe("completed", () => {
  it("a call that ended before its lookup lists every step and gate as not reached", () => {
    expect(completed([], gates)).toEqual(
      ["lookup", "arguments", "paths", "mode", "confirmation"].map((gate) => ({
        gate,
        outcome: "not_reached",
        reason: "the call ended before this gate"
      }))
    )
  })

  it("after a refusal, the rest were not reached because of it", () => {
    const refusal = refusedBy("arguments", { code: "INVALID_ARGUMENTS", message: "missing path" })
    expect(completed([lookupPassed(info), refusal], gates)).toEqual([
      { gate: "lookup", outcome: "pass", reason: "read_file 1.0.0" },
      { gate: "arguments", outcome: "fail", reason: "missing path", code: "INVALID_ARGUMENTS" },
      ...["paths", "mode", "confirmation"].map((gate) => ({
        gate,
        outcome: "not_reached",
        reason: "an earlier gate refused the call"
      }))
    ])
  })
})

describe("withLateRefusal", () => {
  const reached = completed([lookupPassed(info), argumentsPassed, pathsPassed(2)], [])

  it("a path the handler resolved itself and found protected fails the paths step", () => {
    expect(withLateRefusal(reached, "PROTECTED_PATH", null)).toEqual([
      reached[0],
      reached[1],
      { gate: "paths", outcome: "fail", reason: "PROTECTED_PATH", code: "PROTECTED_PATH" }
    ])
  })

  it("any other end leaves the decisions as they are", () => {
    expect(withLateRefusal(reached, "TOOL_ERROR", "boom")).toBe(reached)
    expect(withLateRefusal(reached, null, null)).toBe(reached)
  })
})
