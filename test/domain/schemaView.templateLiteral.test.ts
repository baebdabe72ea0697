/**
 * A template literal as Effect 3 gave it to a model (schemaView.ts's `templatePattern` and
 * `templateText`): the JSON Schema `pattern` of a template-literal parameter or record key (its
 * literal parts escaped, its numbers as numbers, a union's members as alternatives, any other part
 * as free text), what that pattern takes and refuses, and its text in a problem line.
 */
import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { argumentParseOptions, issuesOf } from "../../src/domain/argumentLimits.js"
import { parametersJsonSchema } from "../../src/domain/parametersSchema.js"
import { view } from "../../src/domain/schemaView.js"

const NUMBER = "[+-]?\\d*\\.?\\d+(?:[Ee][+-]?\\d+)?"

/** The `pattern` a template literal's view carries. */
const pattern = (schema: Schema.Top): string => {
  const v = view(schema.ast)
  if (v._tag !== "TemplateLiteral") throw new Error(`not a template literal: ${v._tag}`)
  return v.pattern
}

describe("a template literal's pattern", () => {
  it("each literal character a regular expression gives a meaning to is escaped; other characters are not", () => {
    const special = "a/b\\c^d$e*f+g?h.i(j)k|l[m]n{o}p-q"
    const schema = Schema.TemplateLiteral([special, Schema.Number])
    expect(pattern(schema)).toBe(`^a\\/b\\\\c\\^d\\$e\\*f\\+g\\?h\\.i\\(j\\)k\\|l\\[m\\]n\\{o\\}p-q(${NUMBER})$`)
    const re = new RegExp(pattern(schema))
    expect(re.test(`${special}12`)).toBe(true)
    expect(re.test(`${special.replace(".", "x")}12`)).toBe(false)
  })

  it("numbers as numbers, strings as free text, a union's members as alternatives, literal numbers as text", () => {
    const schema = Schema.TemplateLiteral([1, "x", Schema.Number, ":", Schema.String, Schema.Literals(["a.b", "c"])])
    expect(pattern(schema)).toBe(`^1x(${NUMBER}):([\\s\\S]*)(a\\.b|c)$`)
    const re = new RegExp(pattern(schema))
    expect(re.test("1x-2.5e3:any text\nhere a.b")).toBe(true)
    expect(re.test("1x2:c")).toBe(true)
    expect(re.test("1xnan:c")).toBe(false)
    expect(re.test("1x2:axb")).toBe(false)
    expect(re.test("2x2:c")).toBe(false)
    // a union of numbers and strings inside
    expect(pattern(Schema.TemplateLiteral(["v", Schema.Union([Schema.Number, Schema.Literal("n")])]))).toBe(`^v(${NUMBER}|n)$`)
  })

  it("a parameter or a record key gives that pattern to the model", () => {
    const id = Schema.TemplateLiteral(["user-", Schema.Number])
    expect(parametersJsonSchema(Schema.Struct({ id })).properties).toStrictEqual({
      id: { type: "string", description: "a template literal", pattern: `^user\\-(${NUMBER})$`.replace("\\-", "-") }
    })
    expect(parametersJsonSchema(Schema.Struct({ byId: Schema.Record(id, Schema.String) })).properties).toStrictEqual({
      byId: {
        type: "object",
        required: [],
        properties: {},
        patternProperties: { "": { type: "string" } },
        propertyNames: { type: "string", pattern: `^user-(${NUMBER})$` }
      }
    })
  })
})

describe("a template literal's text", () => {
  it("its parts as TypeScript writes them, in a problem line", () => {
    const schema = Schema.Struct({ id: Schema.TemplateLiteral(["user-", Schema.Number, "/", Schema.Literals(["a", "b"])]) })
    const decoded = Schema.decodeUnknownResult(Schema.Struct({ list: Schema.Array(schema) }), argumentParseOptions)({ list: [1] })
    if (Result.isSuccess(decoded)) throw new Error("decoded")
    expect(issuesOf(decoded.failure)).toStrictEqual([
      { path: ["list", 0], message: "Expected { readonly id: `user-${number}/${\"a\" | \"b\"}` }, actual 1" }
    ])
    const v = view(Schema.TemplateLiteral([Schema.String, "!"]).ast)
    expect(v._tag === "TemplateLiteral" && v.text).toBe("`${string}!`")
  })
})
