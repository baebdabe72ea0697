/**
 * The schema conversions of the exports, on hand-written JSON Schemas (the shapes MCP servers
 * send, not only what `Tool.make` generates): Gemini's subset, OpenAI's strict mode, and the
 * strict arguments brought back to the tool's own shape.
 */
import { describe, expect, it } from "@effect/vitest"
import { fromStrictArguments, toGeminiTool, toOpenAIStrictTool } from "../../src/domain/exports.js"
import { type JsonSchema, ToolSpec } from "../../src/domain/ToolSpec.js"

const spec = (parameters: JsonSchema) =>
  new ToolSpec({ name: "t", description: "d", parameters, required: [], readOnly: true })

/** The Gemini form of each of `properties`. */
const gemini = (properties: Record<string, unknown>): unknown =>
  toGeminiTool(spec({ type: "object", properties })).parameters?.properties

const strict = (parameters: JsonSchema) => toOpenAIStrictTool(spec(parameters)).function.parameters

describe("Gemini schemas", () => {
  it("an anyOf or oneOf with null: its one other member, nullable, with the union's description", () => {
    expect(gemini({
      a: { anyOf: [{ type: "integer", minimum: 1 }, { type: "null" }], description: "maybe" },
      b: { oneOf: [{ type: "string" }, { type: "number" }] },
      c: { anyOf: [{ type: "boolean" }] },
      d: { anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] }
    })).toEqual({
      a: { type: "INTEGER", minimum: 1, nullable: true, description: "maybe" },
      b: { type: "STRING" },
      c: { type: "BOOLEAN" },
      d: { type: "STRING", nullable: true }
    })
  })

  it("one type: null in a type list is nullable; a const is a one-value enum; enums are strings", () => {
    expect(gemini({
      a: { type: ["string", "null"] },
      b: { type: ["null", "integer"] },
      c: { const: 3 },
      d: { enum: [1, 2] },
      e: { properties: { x: { type: "string" } } },
      f: { description: "no type" },
      g: { type: "string", additionalProperties: false, title: "dropped", default: "x" }
    })).toEqual({
      a: { type: "STRING", nullable: true },
      b: { type: "INTEGER", nullable: true },
      c: { type: "STRING", enum: ["3"] },
      d: { type: "STRING", enum: ["1", "2"] },
      e: { type: "OBJECT", properties: { x: { type: "STRING" } } },
      f: { type: "STRING", description: "no type" },
      g: { type: "STRING", default: "x" }
    })
  })

  it("items, and exclusive integer bounds as inclusive ones one step in (a given bound wins)", () => {
    expect(gemini({
      list: { type: "array", items: { type: "integer", exclusiveMinimum: 0.5, exclusiveMaximum: 10 } },
      kept: { type: "integer", exclusiveMinimum: 0, minimum: 5, exclusiveMaximum: 10, maximum: 7 },
      real: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 },
      odd: 5
    })).toEqual({
      list: { type: "ARRAY", items: { type: "INTEGER", minimum: 1, maximum: 9 } },
      kept: { type: "INTEGER", minimum: 5, maximum: 7 },
      real: { type: "NUMBER" },
      odd: { type: "STRING" }
    })
  })
})

describe("OpenAI strict mode", () => {
  it("optional fields become nullable, each in the way its schema allows", () => {
    expect(strict({
      type: "object",
      properties: {
        s: { type: "string" },
        list: { type: ["string", "number"] },
        e: { enum: ["a", "b"] },
        k: { const: "x" },
        u: { anyOf: [{ type: "string" }, { type: "number" }] },
        n: { type: ["string", "null"] },
        given: { type: "string" }
      },
      required: ["given"]
    })).toEqual({
      type: "object",
      properties: {
        s: { type: ["string", "null"] },
        list: { type: ["string", "number", "null"] },
        e: { anyOf: [{ enum: ["a", "b"] }, { type: "null" }] },
        k: { anyOf: [{ const: "x" }, { type: "null" }] },
        u: { anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] },
        n: { type: ["string", "null"] },
        given: { type: "string" }
      },
      required: ["s", "list", "e", "k", "u", "n", "given"],
      additionalProperties: false
    })
  })

  it("unsupported keywords are named in the description; formats outside the subset too; meta keys dropped", () => {
    expect(strict({
      type: "object",
      description: "Args",
      properties: {
        a: { type: "string", minLength: 1, format: "uri", $comment: "x", examples: ["e"] },
        b: { type: "string", format: "date-time", description: "When" },
        c: { type: "array", items: { type: "integer", default: 2 } },
        t: { type: "array", items: [{ type: "string" }, { type: "number" }] },
        o: { oneOf: [{ type: "string" }, { type: "number" }] }
      },
      required: ["a", "b", "c", "t", "o"],
      additionalProperties: { type: "string" }
    })).toEqual({
      type: "object",
      description: "Args (additionalProperties: {\"type\":\"string\"})",
      properties: {
        a: { type: "string", description: "(minLength: 1, format: \"uri\")" },
        b: { type: "string", format: "date-time", description: "When" },
        c: { type: "array", items: { type: "integer", description: "(default: 2)" } },
        t: { type: "array", items: { anyOf: [{ type: "string" }, { type: "number" }] }, minItems: 2, maxItems: 2 },
        o: { anyOf: [{ type: "string" }, { type: "number" }] }
      },
      required: ["a", "b", "c", "t", "o"],
      additionalProperties: false
    })
  })

  it("a nested object is strict too", () => {
    expect(strict({
      type: "object",
      properties: { inner: { properties: { x: { type: "number" } } } },
      required: ["inner"]
    })).toEqual({
      type: "object",
      properties: {
        inner: { type: "object", properties: { x: { type: ["number", "null"] } }, required: ["x"], additionalProperties: false }
      },
      required: ["inner"],
      additionalProperties: false
    })
  })
})

describe("fromStrictArguments", () => {
  const parameters: JsonSchema = {
    type: "object",
    properties: {
      keep: { type: "string" },
      opt: { type: "string" },
      nullableOpt: { type: ["string", "null"] },
      list: { type: "array", items: { type: "object", properties: { x: { type: "number" } } } },
      either: {
        anyOf: [
          { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a"] },
          { type: "object", properties: { c: { type: "number" } } }
        ]
      }
    },
    required: ["keep"]
  }

  it("drops a null for an optional field that is not nullable, at every depth, and keeps the rest", () => {
    expect(fromStrictArguments(parameters, {
      keep: null,
      opt: null,
      nullableOpt: null,
      list: [{ x: null }, { x: 1 }],
      either: { a: 1, b: null }
    })).toEqual({ keep: null, nullableOpt: null, list: [{}, { x: 1 }], either: { a: 1 } })
    // the alternative whose properties hold every key given
    expect(fromStrictArguments(parameters, { keep: "k", either: { c: null } })).toEqual({ keep: "k", either: {} })
  })

  it("takes the alternative that holds every key given, not the first that holds one of them", () => {
    const either: JsonSchema = {
      anyOf: [
        { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
        { type: "object", properties: { a: { type: "number" }, c: { type: "number" } }, required: ["a"] }
      ]
    }
    // in the second, `a` is required: its null stays
    expect(fromStrictArguments(either, { a: null, c: 1 })).toEqual({ a: null, c: 1 })
    // in the first, `a` is optional: its null goes
    expect(fromStrictArguments(either, { a: null, b: 1 })).toEqual({ b: 1 })
  })

  it("leaves alone what it cannot match to an object schema", () => {
    expect(fromStrictArguments(parameters, "text")).toBe("text")
    expect(fromStrictArguments(parameters, { keep: "k", either: { z: null } })).toEqual({ keep: "k", either: { z: null } })
    expect(fromStrictArguments({ type: "array" }, [null])).toEqual([null])
    expect(fromStrictArguments({ type: "string" }, { a: null })).toEqual({ a: null })
  })
})
