/**
 * Tools from a raw JSON Schema (what MCP proxies are): ajv validation compiled once, unknown
 * properties refused unless the schema allows them, JSON Schema dialects, and patterns that
 * cannot run away.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { InvalidToolDefinition } from "../../../src/domain/errors.js"
import { makeRawTool } from "../../../src/tools/mcp/rawTool.js"

const tool = (parameters: Record<string, unknown>) =>
  makeRawTool("raw", { description: "A raw tool", parameters, handler: (args) => Effect.succeed(args) })

const issues = (t: ReturnType<typeof tool>, input: unknown) =>
  Result.match(t.prepare(input), { onFailure: (e) => e.issues.map((i) => `${i.path.join(".")}: ${i.message}`), onSuccess: () => [] })

describe("makeRawTool", () => {
  it("validates with the schema, refuses unknown properties, and has no paths", () => {
    const t = tool({
      type: "object",
      properties: { n: { type: "integer", minimum: 1 }, tags: { type: "array", items: { type: "string" } } },
      required: ["n"]
    })
    expect(t.spec.parameters.additionalProperties).toBe(false)
    expect(t.spec.required).toEqual(["n"])
    expect(t.pathFields).toEqual([])
    expect(t.scopedWrite).toBe(false)
    expect(issues(t, { n: 2, tags: ["a"] })).toEqual([])
    const found = issues(t, { n: 0, tags: [1], other: 1 })
    expect(found).toContain("other: unknown property")
    expect(found).toContain("n: must be >= 1")
    expect(found).toContain("tags.0: must be string")
    expect(issues(t, undefined)).toEqual(["n: is missing"])
    expect(issues(t, "text")).toEqual([": the arguments must be an object"])
    // an array is not the object asked for either (ajv is not asked)
    expect(issues(t, [{ n: 1 }])).toEqual([": the arguments must be an object"])
    // arguments nested past the bounds are refused before ajv sees them
    let deep: unknown = 1
    for (let i = 0; i < 100; i++) deep = { d: deep }
    expect(issues(t, { n: 1, deep })[0]).toContain("nested deeper than 64 levels")
  })

  it("keeps a schema's own additionalProperties", () => {
    const open = tool({ type: "object", properties: {}, additionalProperties: { type: "string" } })
    expect(issues(open, { a: "x" })).toEqual([])
    expect(issues(open, { a: 1 })).toEqual(["a: must be string"])
  })

  it("reads the 2020-12 dialect and draft-07, and tools with the same $id do not meet", () => {
    const t2020 = tool({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $id: "https://example.invalid/same.json",
      type: "object",
      properties: { pair: { type: "array", prefixItems: [{ type: "number" }, { type: "string" }], items: false } }
    })
    expect(issues(t2020, { pair: [1, "a"] })).toEqual([])
    expect(issues(t2020, { pair: [1, "a", 3] }).length).toBeGreaterThan(0)
    const t07 = tool({ $schema: "http://json-schema.org/draft-07/schema#", $id: "https://example.invalid/same.json", type: "object", properties: { a: { const: 1 } } })
    expect(issues(t07, { a: 2 })).toEqual(["a: must be equal to constant"])
  })

  it("runs patterns on a linear-time engine", () => {
    const t = tool({ type: "object", properties: { s: { type: "string", pattern: "^(a|a)*$" } } })
    const start = Date.now()
    expect(issues(t, { s: `${"a".repeat(5000)}b` })).toEqual(["s: must match pattern \"^(a|a)*$\""])
    expect(Date.now() - start).toBeLessThan(500)
    // each pattern is its own (ajv caches them by their text)
    const other = tool({ type: "object", properties: { s: { type: "string", pattern: "^b+$" } } })
    expect(issues(other, { s: "bb" })).toEqual([])
    expect(issues(other, { s: "aa" })).toEqual(["s: must match pattern \"^b+$\""])
    // a pattern re2 cannot run (a back-reference) is left to the server
    const backref = tool({ type: "object", properties: { s: { type: "string", pattern: "^(a)\\1$" } } })
    expect(issues(backref, { s: "zz" })).toEqual([])
  })

  it("takes a schema without a type as an object schema, and still refuses arguments that are not an object", () => {
    const untyped = tool({ properties: { a: { type: "number" } } })
    expect(issues(untyped, { a: 1 })).toEqual([])
    expect(issues(untyped, [1, 2])).toEqual([": the arguments must be an object"])
    expect(issues(untyped, null)).toEqual([])
  })

  it("defaults: no required names, not read-only, no tags, no confirmation, no deadline of its own", () => {
    const t = tool({ type: "object", properties: { a: { type: "number" } } })
    expect(t.spec.required).toEqual([])
    expect(t.spec.readOnly).toBe(false)
    expect(t.tags).toEqual([])
    expect(t.requiresConfirmation).toBe(false)
    expect(t.ownDeadline).toBe(false)
  })

  it("keeps its own deadline only when it has one", () => {
    const make = (options: { ownDeadline?: boolean; timeout?: "none" | "5 seconds" }) =>
      makeRawTool("raw", { description: "", parameters: { type: "object" }, handler: () => Effect.void, ...options })
    expect(make({ ownDeadline: true, timeout: "5 seconds" }).ownDeadline).toBe(true)
    expect(make({ ownDeadline: true }).ownDeadline).toBe(true)
    expect(make({ ownDeadline: true, timeout: "none" }).ownDeadline).toBe(false)
    expect(make({ timeout: "5 seconds" }).ownDeadline).toBe(false)
  })

  it("throws InvalidToolDefinition for a schema that cannot be used", () => {
    expect(() => tool({ type: "object", properties: { a: { type: "no-such-type" } } })).toThrow(/"raw": parameters: /)
    expect(() => tool({ type: "object", properties: { a: { $ref: "http://127.0.0.1:1/x.json" } } })).toThrow(InvalidToolDefinition)
    expect(() => tool({ type: "string" })).toThrow(/must be "object"/)
    expect(() => tool({ type: "object", properties: { a: { type: "no-such-type" } } })).toThrow(InvalidToolDefinition)
    expect(() => makeRawTool("bad name", { description: "", parameters: {}, handler: () => Effect.void })).toThrow(InvalidToolDefinition)
  })
})
