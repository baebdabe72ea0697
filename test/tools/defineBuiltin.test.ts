/**
 * The library's own tools make their parameter JSON Schema when it is first read (so the command
 * line's `list` makes none), and that spec reads as any other: the same schema and `required`
 * as `Tool.make` gives, own enumerable fields for a spread or `JSON.stringify`, made once. A bad
 * schema throws `InvalidToolDefinition` at that first read; `Tool.make` still throws as the tool
 * is defined.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Equal, Hash, Result, Schema } from "effect"
import { InvalidToolDefinition } from "../../src/domain/errors.js"
import { parametersJsonSchema } from "../../src/domain/parametersSchema.js"
import { lazyToolSpec, requiredOf } from "../../src/domain/ToolSpec.js"
import { make as makeBuiltin } from "../../src/tools/defineBuiltin.js"
import { make } from "../../src/tools/define.js"
import { readFile } from "../../src/tools/builtin/readFile.js"
import { thrownBy } from "../helpers/thrownBy.js"

const options = {
  description: "Greets someone",
  parameters: Schema.Struct({ name: Schema.String, loud: Schema.optional(Schema.Boolean) }),
  readOnly: true,
  handler: ({ name }: { readonly name: string }) => Effect.succeed(`Hello, ${name}`)
}

describe("a builtin tool's spec", () => {
  it("is the spec Tool.make gives, field for field, spread, written as JSON and compared with Equal", () => {
    const eager = make("greet", options)
    const lazy = makeBuiltin("greet", options)
    expect({ ...lazy.spec }).toEqual({ ...eager.spec })
    expect(JSON.stringify(lazy.spec)).toBe(JSON.stringify(eager.spec))
    expect(lazy.spec.required).toEqual(["name"])
    expect(lazy.spec.toOpenAITool()).toEqual(eager.spec.toOpenAITool())
    expect(Object.keys(lazy.spec).sort()).toEqual(Object.keys(eager.spec).sort())
    expect(Equal.equals(lazy.spec, eager.spec)).toBe(true)
    expect(Hash.hash(lazy.spec)).toBe(Hash.hash(eager.spec))
    expect(Equal.equals(lazy.spec, makeBuiltin("greet", { ...options, parameters: Schema.Struct({ name: Schema.String }) }).spec)).toBe(false)
  })

  it("makes its JSON Schema at the first read of `parameters` or `required`, once", () => {
    let made = 0
    const spec = lazyToolSpec({ name: "count", description: "Counts", readOnly: true }, () => {
      made++
      return parametersJsonSchema(options.parameters)
    })
    expect([spec.name, spec.description, spec.readOnly, made]).toEqual(["count", "Counts", true, 0])
    const first = spec.required
    expect(made).toBe(1)
    expect(first).toEqual(["name"])
    expect(spec.parameters).toBe(spec.parameters)
    expect(spec.required).toBe(first)
    expect({ ...spec }.parameters).toBe(spec.parameters)
    expect(made).toBe(1)
  })

  it("required: the strings a schema lists as required, none when it lists none", () => {
    expect(requiredOf({ required: ["a", 1, null, "b"] })).toEqual(["a", "b"])
    expect(requiredOf({ required: "a" })).toEqual([])
    expect(requiredOf({})).toEqual([])
  })

  it("a builtin's is made on first read: readFile's spec object holds a getter until then", () => {
    const descriptor = Object.getOwnPropertyDescriptor(readFile.spec, "parameters")
    expect(descriptor?.get).toBeTypeOf("function")
    expect(descriptor?.enumerable).toBe(true)
    expect(readFile.spec.required).toContain("filepath")
  })

  it("calls check the arguments as Tool.make's do, before any read of the spec", () => {
    const none = makeBuiltin("none", { description: "x", parameters: Schema.Struct({}), handler: () => Effect.void })
    const refused = none.prepare({ extra: 1 })
    if (Result.isSuccess(refused)) throw new Error("accepted an unknown property")
    expect(refused.failure.issues).toEqual([{ path: ["extra"], message: "unknown property; this tool takes no arguments" }])
    expect(Result.isSuccess(makeBuiltin("g", options).prepare({ name: "Ada" }))).toBe(true)
  })

  it("a bad schema: Tool.make throws as it defines the tool, the builtin maker at the first read", () => {
    const bad = { description: "x", parameters: Schema.String, handler: (text: string) => Effect.succeed(text) }
    const eager = thrownBy(() => make("bad", bad))
    expect(eager).toBeInstanceOf(InvalidToolDefinition)
    const lazy = makeBuiltin("bad", bad)
    const atRead = thrownBy(() => lazy.spec.parameters)
    expect(atRead).toBeInstanceOf(InvalidToolDefinition)
    expect(atRead).toMatchObject({ name: "bad", reason: (eager as InvalidToolDefinition).reason })
    expect(thrownBy(() => lazy.spec.required)).toBeInstanceOf(InvalidToolDefinition)
  })
})
