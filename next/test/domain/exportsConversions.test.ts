/**
 * How the strict (OpenAI Structured Outputs) and Gemini exports convert single JSON Schema
 * keywords, each on a small raw schema: nested objects without properties, arrays of objects,
 * `oneOf`, tuples, optional constants, and Gemini's single type.
 */
import { describe, expect, it } from "@effect/vitest"
import { toGeminiTool, toOpenAIStrictTool } from "../../src/domain/exports.js"
import { type JsonSchema, ToolSpec } from "../../src/domain/ToolSpec.js"

const specOf = (properties: Record<string, unknown>, required: ReadonlyArray<string> = []) =>
  new ToolSpec({
    name: "t",
    description: "A tool",
    parameters: { type: "object", properties, required },
    required,
    readOnly: true
  })

/** The strict export's schema of the one property `p` (optional unless `required`). */
const strictOf = (schema: unknown, required = true): JsonSchema => {
  const parameters = toOpenAIStrictTool(specOf({ p: schema }, required ? ["p"] : [])).function.parameters
  const properties = parameters.properties as Record<string, JsonSchema>
  return properties.p ?? {}
}

const geminiOf = (schema: unknown): unknown => {
  const parameters = toGeminiTool(specOf({ p: schema }, ["p"])).parameters
  return (parameters?.properties as Record<string, unknown> | undefined)?.p
}

describe("strict export of single keywords", () => {
  it("an object with a type and no properties is a closed strict object", () => {
    expect(strictOf({ type: "object" })).toEqual({ type: "object", properties: {}, required: [], additionalProperties: false })
  })

  it("an array's items are converted too: its objects are strict, their optional fields nullable", () => {
    expect(strictOf({ type: "array", items: { type: "object", properties: { a: { type: "string" } } } })).toEqual({
      type: "array",
      items: {
        type: "object",
        properties: { a: { type: ["string", "null"] } },
        required: ["a"],
        additionalProperties: false
      }
    })
  })

  it("oneOf is anyOf, with its members converted", () => {
    expect(strictOf({ oneOf: [{ type: "string" }, { type: "object", properties: {} }] })).toEqual({
      anyOf: [{ type: "string" }, { type: "object", properties: {}, required: [], additionalProperties: false }]
    })
  })

  it("a union that is not a list (a server's malformed schema) is named in the description, not sent", () => {
    expect(strictOf({ anyOf: { type: "string" }, description: "d" })).toEqual({ description: "d (anyOf: {\"type\":\"string\"})" })
    expect(strictOf({ oneOf: "x" })).toEqual({ description: "(oneOf: \"x\")" })
  })

  it("anyOf's members are converted too: an object in it is a closed strict object", () => {
    expect(strictOf({ anyOf: [{ type: "number" }, { type: "object", properties: { a: { type: "string" } } }] })).toEqual({
      anyOf: [
        { type: "number" },
        { type: "object", properties: { a: { type: ["string", "null"] } }, required: ["a"], additionalProperties: false }
      ]
    })
  })

  it("a tuple has the fixed length of its elements, whatever its own minItems says", () => {
    expect(strictOf({ type: "array", items: [{ type: "string" }, { type: "number" }], minItems: 1 })).toEqual({
      type: "array",
      items: { anyOf: [{ type: "string" }, { type: "number" }] },
      minItems: 2,
      maxItems: 2
    })
  })

  it("an optional constant (or enum) allows null beside it, not inside its type", () => {
    expect(strictOf({ type: "string", const: "x" }, false)).toEqual({
      anyOf: [{ type: "string", const: "x" }, { type: "null" }]
    })
    expect(strictOf({ type: ["string", "number"], const: "x" }, false)).toEqual({
      anyOf: [{ type: ["string", "number"], const: "x" }, { type: "null" }]
    })
    expect(strictOf({ type: ["string", "number"] }, false)).toEqual({ type: ["string", "number", "null"] })
  })
})

describe("Gemini export of single keywords", () => {
  it("an alternative of one type and null is that type, nullable; of several, a string", () => {
    expect(geminiOf({ anyOf: [{ type: "integer", minimum: 1 }, { type: "null" }], description: "n" })).toEqual({
      type: "INTEGER",
      minimum: 1,
      nullable: true,
      description: "n"
    })
    expect(geminiOf({ anyOf: [{ type: "integer" }, { type: "boolean" }] })).toStrictEqual({ type: "STRING" })
  })

  it("a list of types is its first type that is not null, nullable when null is in it", () => {
    expect(geminiOf({ type: ["null", "number"] })).toEqual({ type: "NUMBER", nullable: true })
  })

  it("a type that is not a name (a server's malformed schema) is skipped, not a crash", () => {
    expect(geminiOf({ type: [5, "integer"] })).toEqual({ type: "INTEGER" })
    expect(geminiOf({ type: { name: "object" } })).toEqual({ type: "STRING" })
  })
})
