/**
 * How a proxy's argument check names what is wrong: issue paths from ajv's JSON Pointers
 * (escapes undone, array indexes as numbers), the missing or unknown property in the path,
 * the 2019-09 dialect, and a bounded list of issues with bounded messages.
 */
import { describe, expect, it } from "@effect/vitest"
import { compileArgumentsValidator } from "../../../src/tools/mcp/jsonSchema.js"

const check = (schema: Record<string, unknown>, args: unknown) => compileArgumentsValidator(schema).validate(args)

describe("compileArgumentsValidator", () => {
  it("gives paths with JSON Pointer escapes undone and array indexes as numbers", () => {
    const schema = {
      type: "object",
      properties: {
        "a/b~c": { type: "number" },
        x1: { type: "number" },
        "1a": { type: "number" },
        "01": { type: "number" },
        list: { type: "array", items: { type: "string" } }
      }
    }
    const list = Array.from({ length: 16 }, (_, i) => (i === 5 || i === 15 ? 0 : "ok"))
    const issues = check(schema, { "a/b~c": "no", x1: "no", "1a": "no", "01": "no", list }) ?? []
    expect(issues.map((i) => i.path)).toEqual([["a/b~c"], ["x1"], ["1a"], ["01"], ["list", 5], ["list", 15]])
    expect(issues[0]?.message).toBe("must be number")
  })

  it("puts the missing or unknown property at the end of the path", () => {
    const schema = { type: "object", properties: { inner: { type: "object", properties: { n: { type: "number" } }, required: ["n"] } }, required: ["inner"] }
    expect(check(schema, {})).toEqual([{ path: ["inner"], message: "is missing" }])
    expect(check(schema, { inner: {}, extra: 1 })).toEqual([
      { path: ["extra"], message: "unknown property" },
      { path: ["inner", "n"], message: "is missing" }
    ])
  })

  it("reads the 2019-09 dialect", () => {
    const schema = {
      $schema: "https://json-schema.org/draft/2019-09/schema",
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      dependentRequired: { a: ["b"] }
    }
    expect(check(schema, { a: 1, b: 2 })).toBeUndefined()
    expect(check(schema, { a: 1 })?.map((i) => i.message)).toEqual(["must have property b when property a is present"])
  })

  it("keeps unevaluatedProperties as the schema says (no additionalProperties added)", () => {
    const schema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { a: { type: "number" } },
      unevaluatedProperties: { type: "string" }
    }
    expect(compileArgumentsValidator(schema).effective).not.toHaveProperty("additionalProperties")
    expect(check(schema, { a: 1, z: "free" })).toBeUndefined()
  })

  it("lists at most 20 issues and counts the rest; cuts a message at 200 characters", () => {
    const properties = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`p${i}`, { type: "number" }]))
    const wrong = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, "no"]))
    const many = check({ type: "object", properties }, wrong(25)) ?? []
    expect(many).toHaveLength(21)
    expect(many[20]).toEqual({ path: [], message: "and 5 more problems" })
    expect(check({ type: "object", properties }, wrong(20))).toHaveLength(20)
    const long = check({ type: "object", properties: { s: { type: "string", pattern: `^${"a".repeat(300)}$` } } }, { s: "b" }) ?? []
    expect(long[0]?.message).toHaveLength(200)
    expect(long[0]?.message.startsWith("must match pattern")).toBe(true)
  })

  it("checks each pattern with its own expression, also across tools and flags; one re2js cannot run is not checked", () => {
    const a = compileArgumentsValidator({ type: "object", properties: { s: { type: "string", pattern: "^a+$" } } })
    const b = compileArgumentsValidator({
      type: "object",
      properties: { s: { type: "string", pattern: "^b+$" } },
      patternProperties: { "^x": { type: "string", pattern: "^c+$" } }
    })
    expect(a.validate({ s: "aaa" })).toBeUndefined()
    expect(b.validate({ s: "bbb", x1: "ccc" })).toBeUndefined()
    expect(a.validate({ s: "bbb" })).toEqual([{ path: ["s"], message: "must match pattern \"^a+$\"" }])
    expect(b.validate({ s: "aaa" })).toEqual([{ path: ["s"], message: "must match pattern \"^b+$\"" }])
    expect(b.validate({ s: "b", x1: "b" })).toEqual([{ path: ["x1"], message: "must match pattern \"^c+$\"" }])
    // a back-reference: re2js refuses it, so the server is left to check it
    const backReference = compileArgumentsValidator({ type: "object", properties: { s: { type: "string", pattern: "^(a)\\1$" } } })
    expect(backReference.validate({ s: "xyz" })).toBeUndefined()
  })
})
