/**
 * What counts as a change of a server's tool: its description, its input schema (as a JSON
 * value: the order of keys is not a change) and its `readOnlyHint`.
 */
import { describe, expect, it } from "@effect/vitest"
import { changedParts, McpNotPending, sameDefinition } from "../../../src/tools/mcp/changes.js"

const base = {
  description: "Tells the weather",
  inputSchema: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" } }, required: ["city"] },
  readOnlyHint: true
}

describe("changedParts", () => {
  it("ignores the order of keys, and names each part that changed", () => {
    const reordered = {
      readOnlyHint: true,
      inputSchema: { required: ["city"], properties: { days: { type: "integer" }, city: { type: "string" } }, type: "object" },
      description: "Tells the weather"
    }
    expect(changedParts(base, reordered)).toEqual([])
    expect(sameDefinition(base, reordered)).toBe(true)
    // the order of a list is part of its value
    expect(changedParts(base, { ...base, inputSchema: { ...base.inputSchema, required: ["days", "city"] } })).toEqual(["inputSchema"])
    expect(changedParts(base, { ...base, description: "Tells the weather." })).toEqual(["description"])
    expect(changedParts(base, { ...base, readOnlyHint: false, description: "x" })).toEqual(["description", "readOnlyHint"])
    const nested = { ...base, inputSchema: { ...base.inputSchema, properties: { city: { type: "string", maxLength: 9 } } } }
    expect(sameDefinition(base, nested)).toBe(false)
  })

  it("McpNotPending says what is held, if anything", () => {
    expect(new McpNotPending({ name: "s__t", version: undefined, pending: undefined }).message).toBe(
      `No change of "s__t" waits for approval`
    )
    expect(new McpNotPending({ name: "s__t", version: "2.0.0", pending: "3.0.0" }).message).toBe(
      `The held version of "s__t" is 3.0.0, not 2.0.0: look at it before approving it`
    )
    expect(new McpNotPending({ name: "s__t", version: undefined, pending: "3.0.0" }).message).toBe(
      `The held version of "s__t" is 3.0.0, not ?: look at it before approving it`
    )
  })
})
