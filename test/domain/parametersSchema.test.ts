/**
 * The parameter JSON Schema generated from a tool's Effect Schema: inlined, described,
 * with defaults at every depth, and what `Tool.make` refuses.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import { InvalidToolDefinition } from "../../src/domain/errors.js"
import { parametersJsonSchema } from "../../src/domain/parametersSchema.js"
import { make } from "../../src/tools/define.js"
import { isRecord, keysDeep, Rich } from "./richSchema.js"


/** `node.properties[name]`, failing the test when it is missing. */
const prop = (node: unknown, ...names: ReadonlyArray<string>): Record<string, unknown> => {
  let current: unknown = node
  for (const name of names) {
    if (!isRecord(current)) throw new Error(`not an object at ${name}`)
    const next: unknown = name === "[]" ? current.items : isRecord(current.properties) ? current.properties[name] : undefined
    if (!isRecord(next)) throw new Error(`no property ${names.join(".")}`)
    current = next
  }
  if (!isRecord(current)) throw new Error("not an object")
  return current
}

/** Made in each test: Stryker runs the tests of a mutant in a process where this module is already loaded. */
const richSchema = () => parametersJsonSchema(Rich)

describe("parametersJsonSchema", () => {
  it("inlines every reference: no $ref, $defs, $schema or $id anywhere", () => {
    const schema = richSchema()
    const keys = keysDeep(schema)
    for (const k of ["$ref", "$defs", "$schema", "$id"]) expect(keys.has(k)).toBe(false)
    // the Point definition was copied into both places that used it
    expect(prop(schema, "origin", "x")).toEqual({ type: "number", description: "x coordinate" })
    expect(prop(schema, "waypoints", "[]", "x")).toEqual({ type: "number", description: "x coordinate" })
  })

  it("is an object with additionalProperties: false and the right required list", () => {
    const schema = richSchema()
    expect(schema.type).toBe("object")
    expect(schema.additionalProperties).toBe(false)
    expect([...(schema.required as Array<string>)].sort()).toEqual(["level", "note", "origin", "path", "query", "tags"])
    expect(Object.keys(schema.properties as object)).toEqual([
      "path",
      "query",
      "limit",
      "mode",
      "level",
      "origin",
      "waypoints",
      "tags",
      "recursive",
      "also",
      "note"
    ])
  })

  it("keeps descriptions, also those set on optional property signatures", () => {
    const schema = richSchema()
    expect(prop(schema, "path").description).toBe("The file to search")
    expect(prop(schema, "query").description).toBe("What to look for")
    expect(prop(schema, "limit").description).toBe("At most this many matches")
    expect(prop(schema, "mode").description).toBe("Search mode")
    expect(prop(schema, "level").description).toBe("Depth")
    expect(prop(schema, "tags").description).toBe("Labels")
    expect(prop(schema, "origin").description).toBe("A point")
  })

  it("keeps descriptions and defaults of nested structs, also inside arrays", () => {
    const schema = richSchema()
    for (const at of [["origin"], ["waypoints", "[]"]]) {
      expect(prop(schema, ...at, "y")).toEqual({ type: "number", description: "y coordinate", default: 0 })
      expect(prop(schema, ...at, "label")).toEqual({ type: "string", description: "nested label" })
      expect(prop(schema, ...at).required).toEqual(["x"])
      expect(prop(schema, ...at).additionalProperties).toBe(false)
    }
  })

  it("writes defaults as `default`, and defaulted fields are not required", () => {
    const schema = richSchema()
    expect(prop(schema, "mode")).toEqual({ type: "string", enum: ["fast", "thorough"], default: "fast", description: "Search mode" })
    expect(prop(schema, "recursive")).toEqual({ type: "boolean", default: false })
    expect(schema.required).not.toContain("mode")
    expect(schema.required).not.toContain("recursive")
  })

  it("maps Int refinements, literal unions, arrays, paths and NullOr", () => {
    const schema = richSchema()
    const limit = prop(schema, "limit")
    expect(limit.type).toBe("integer")
    expect(limit.exclusiveMinimum).toBe(0)
    expect(limit.maximum).toBe(100)
    expect(prop(schema, "level")).toMatchObject({ type: "number", enum: [1, 2, 3] })
    expect(prop(schema, "tags")).toMatchObject({ type: "array", items: { type: "string" } })
    expect(prop(schema, "also", "[]").type).toBe("string")
    expect(prop(schema, "note")).toEqual({ anyOf: [{ type: "string" }, { type: "null" }] })
  })

  it("puts the type of a refined, defaulted field at the top (Effect emits an allOf)", () => {
    const s = parametersJsonSchema(
      Schema.Struct({
        timeout: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 600 })).pipe(
          Schema.withDecodingDefaultType(Effect.succeed(30))
        ),
        code: Schema.String.check(Schema.isPattern(/^[a-z]+$/), Schema.isPattern(/x/))
      })
    )
    expect(prop(s, "timeout")).toMatchObject({ type: "integer", minimum: 1, maximum: 600, default: 30 })
    expect(prop(s, "timeout").allOf).toBeUndefined()
    // two patterns conflict: the second stays in the allOf
    expect(prop(s, "code")).toMatchObject({ type: "string", allOf: [{ pattern: "^[a-z]+$" }] })
  })

  it("a bound refined again drops only its own looser bound from the allOf, never another keyword", () => {
    const s = parametersJsonSchema(
      Schema.Struct({
        tighter: Schema.String.check(Schema.isPattern(/a/), Schema.isPattern(/b/), Schema.isMinLength(2), Schema.isMinLength(3)),
        looser: Schema.String.check(Schema.isMinLength(2), Schema.isPattern(/a/), Schema.isMinLength(1), Schema.isPattern(/b/))
      })
    )
    // minLength 3 makes 2 redundant; the first pattern still holds
    expect(prop(s, "tighter")).toMatchObject({ type: "string", pattern: "b", minLength: 3, allOf: [{ pattern: "a" }] })
    // minLength 1 does not loosen 2, which stays, beside the first pattern
    expect(prop(s, "looser")).toMatchObject({ type: "string", pattern: "b", minLength: 1, allOf: [{ pattern: "a" }, { minLength: 2 }] })
  })

  it("finds defaults in the struct branches of a union", () => {
    const s = parametersJsonSchema(
      Schema.Struct({
        shape: Schema.Union([
          Schema.Struct({ kind: Schema.Literal("circle"), r: Schema.Number }),
          Schema.Struct({ kind: Schema.Literal("square"), side: Schema.Number.pipe(Schema.withDecodingDefaultType(Effect.succeed(1))) })
        ])
      })
    )
    const branches = prop(s, "shape").anyOf
    expect(Array.isArray(branches)).toBe(true)
    expect(branches).toHaveLength(2)
    expect(prop(Array.isArray(branches) ? branches[1] : undefined, "side")).toEqual({ type: "number", default: 1 })
  })

  it("annotates each union member where it is: an array member by its place, a struct among literals by its keys", () => {
    const defaulted = (value: string) => Schema.String.pipe(Schema.withDecodingDefaultType(Effect.succeed(value)))
    const byPlace = parametersJsonSchema(Schema.Struct({
      u: Schema.Union([Schema.Array(Schema.Struct({ a: defaulted("an item's a") })), Schema.Number])
    }))
    const members = prop(byPlace, "u").anyOf
    expect(Array.isArray(members) && prop(members[0], "[]", "a").default).toBe("an item's a")
    // literals are merged into one enum: the struct members are found by their exact keys
    const byKeys = parametersJsonSchema(Schema.Struct({
      u: Schema.Union([
        Schema.Literal("x"),
        Schema.Literal("y"),
        Schema.Struct({ a: defaulted("a beside b"), b: defaulted("b") }),
        Schema.Struct({ a: defaulted("a alone") })
      ])
    }))
    const alternatives = prop(byKeys, "u").anyOf
    if (!Array.isArray(alternatives)) throw new Error("no anyOf")
    const defaultsOf = (alt: unknown) =>
      isRecord(alt) && isRecord(alt.properties)
        ? Object.entries(alt.properties).map(([k, v]) => [k, isRecord(v) ? v.default : undefined])
        : []
    expect(alternatives.map(defaultsOf).filter((d) => d.length > 0)).toEqual([
      [["a", "a beside b"], ["b", "b"]],
      [["a", "a alone"]]
    ])
  })

  it("gives a parameterless tool an empty object schema", () => {
    expect(parametersJsonSchema(Schema.Struct({}))).toEqual({
      type: "object",
      properties: {},
      required: [],
      additionalProperties: false
    })
  })

  it("is what Tool.make puts on the spec", () => {
    const schema = richSchema()
    const tool = make("rich", { description: "d", parameters: Rich, handler: () => Effect.succeed("ok") })
    expect(tool.spec.parameters).toEqual(schema)
    expect([...tool.spec.required].sort()).toEqual(["level", "note", "origin", "path", "query", "tags"])
    expect(tool.pathFields).toEqual(["path", "also"])
  })

  it("describes what the Schema decodes: a default given by the schema is what the handler sees", () => {
    const tool = make("rich", { description: "d", parameters: Rich, handler: () => Effect.succeed("ok") })
    const call = tool.prepare({ path: "a", query: "q", level: 2, origin: { x: 1 }, tags: [], note: null })
    expect(Result.isSuccess(call)).toBe(true)
    if (Result.isSuccess(call)) {
      expect(call.success.args).toMatchObject({ mode: "fast", recursive: false, origin: { x: 1, y: 0 } })
    }
  })
})

describe("Tool.make refuses bad definitions", () => {
  const ok = { description: "d", parameters: Schema.Struct({}), handler: () => Effect.succeed("ok") }

  it("a recursive schema (it cannot be inlined)", () => {
    interface Tree {
      readonly children: ReadonlyArray<Tree>
    }
    const Tree: Schema.Codec<Tree> = Schema.Struct({
      children: Schema.Array(Schema.suspend((): Schema.Codec<Tree> => Tree))
    }).annotate({ identifier: "Tree" })
    expect(() => make("tree", { ...ok, parameters: Schema.Struct({ tree: Tree }) })).toThrow(InvalidToolDefinition)
    expect(() => make("tree", { ...ok, parameters: Schema.Struct({ tree: Tree }) })).toThrow(/recursive/)
  })

  it("parameters that are not a struct", () => {
    expect(() => make("str", { ...ok, parameters: Schema.String })).toThrow(InvalidToolDefinition)
    expect(() => make("arr", { ...ok, parameters: Schema.Array(Schema.String) })).toThrow(/struct/)
  })
})

describe("titles", () => {
  it("Effect's refinement titles are dropped, a parameter named title is kept", () => {
    const schema = parametersJsonSchema(
      Schema.Struct({
        title: Schema.String.check(Schema.isMinLength(1)),
        count: Schema.Int.check(Schema.isGreaterThan(0))
      })
    )
    expect(JSON.stringify(schema)).not.toContain("minLength(1)")
    expect(JSON.stringify(schema)).not.toContain("\"int\"")
    expect(schema.properties).toHaveProperty("title")
    expect(schema.required).toEqual(["title", "count"])
  })
})
