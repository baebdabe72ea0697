/**
 * The export formats (OpenAI plain and strict, Anthropic, MCP, Gemini), checked against
 * each API's documented rules, the registry's export filters, and the names and versions
 * `Tool.make` refuses.
 */
import { beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import * as AgentMode from "../../src/domain/AgentMode.js"
import { InvalidToolDefinition } from "../../src/domain/errors.js"
import {
  exportSpec,
  formats,
  fromStrictArguments,
  toAnthropicTool,
  toGeminiTool,
  toMcpTool,
  toOpenAIStrictTool,
  toOpenAITool
} from "../../src/domain/exports.js"
import type { JsonSchema } from "../../src/domain/ToolSpec.js"
import { WorkspacePath } from "../../src/domain/WorkspacePath.js"
import { ToolRegistry } from "../../src/services/ToolRegistry.js"
import { make } from "../../src/tools/define.js"
import { isRecord, keysDeep, Rich as SearchParams } from "./richSchema.js"

// ---------------------------------------------------------------------------------------------
// Tools with every kind of field
// ---------------------------------------------------------------------------------------------

const search = make("search", {
  description: "Search a file",
  parameters: SearchParams,
  readOnly: true,
  tags: ["files", "search"],
  handler: (args) => Effect.succeed(args)
})

const writePlan = make("write_plan", {
  description: "Write a plan",
  parameters: Schema.Struct({ filepath: WorkspacePath, content: Schema.String }),
  scopedWrite: true,
  requiresConfirmation: true,
  tags: ["files", "plans"],
  handler: () => Effect.succeed("ok")
})

const shell = make("shell", {
  description: "Run a command",
  parameters: Schema.Struct({
    command: Schema.String,
    timeout_s: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 600 })).pipe(
      Schema.withDecodingDefaultType(Effect.succeed(30))
    )
  }),
  requiresConfirmation: true,
  tags: ["exec"],
  handler: () => Effect.succeed("ok")
})

const now = make("now", {
  description: "The current time",
  parameters: Schema.Struct({}),
  readOnly: true,
  tags: ["time"],
  handler: () => Effect.succeed(new Date(0).toISOString())
})

/** Keywords strict mode does not support, in every place Effect emits them. */
const constrained = make("constrained", {
  description: "Constraints strict mode has no keyword for",
  parameters: Schema.Struct({
    name: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(10)).annotate({ description: "A short name" }),
    ids: Schema.NonEmptyArray(Schema.String),
    env: Schema.Record(Schema.String.check(Schema.isMinLength(2)), Schema.String),
    pair: Schema.Tuple([Schema.String, Schema.Number]),
    code: Schema.String.check(Schema.isPattern(/^[a-z]+$/), Schema.isPattern(/x/)),
    when: Schema.DateFromString,
    either: Schema.optional(Schema.Union([Schema.String, Schema.Number])),
    maybeName: Schema.optional(Schema.NullOr(Schema.String))
  }),
  readOnly: true,
  handler: () => Effect.succeed("ok")
})

const all = [search, writePlan, shell, now, constrained]

// ---------------------------------------------------------------------------------------------
// Checkers
// ---------------------------------------------------------------------------------------------

const record = (u: unknown): Record<string, unknown> => {
  if (!isRecord(u)) throw new Error(`not an object: ${JSON.stringify(u)}`)
  return u
}

/** `node.properties.a.properties.b...` (`[]` steps into `items`). */
const at = (node: unknown, ...names: ReadonlyArray<string>): Record<string, unknown> =>
  names.reduce<Record<string, unknown>>(
    (current, name) => record(name === "[]" ? current.items : record(current.properties)[name]),
    record(node)
  )

const typesOf = (schema: Record<string, unknown>): ReadonlyArray<unknown> =>
  schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type]

/** Whether a JSON Schema lets `null` through. */
const acceptsNull = (schema: unknown): boolean =>
  isRecord(schema) &&
  (typesOf(schema).includes("null") ||
    (Array.isArray(schema.enum) && schema.enum.includes(null)) ||
    (Array.isArray(schema.anyOf) && schema.anyOf.some(acceptsNull)))

/**
 * OpenAI's documented strict-mode rules ("Supported schemas" of the Structured Outputs guide):
 * the root is an object (not `anyOf`); every object has `additionalProperties: false` and all
 * its properties required; only the supported keywords (no `default`, `minLength`, `oneOf`,
 * `allOf`, `patternProperties`, ...); `items` is one schema; formats from the list; at most 10
 * levels of nesting, 5000 properties and 1000 enum values.
 */
const strictViolations = (root: unknown): ReadonlyArray<string> => {
  const allowed = new Set([
    "type",
    "description",
    "title",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "pattern",
    "format",
    "multipleOf",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
    "$ref",
    "$defs"
  ])
  const types = new Set(["string", "number", "integer", "boolean", "object", "array", "null"])
  const stringFormats = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"])
  const problems: Array<string> = []
  let propertyCount = 0
  let enumCount = 0
  const visit = (node: unknown, path: string, depth: number): void => {
    if (!isRecord(node)) return void problems.push(`${path}: not a schema`)
    for (const k of Object.keys(node)) if (!allowed.has(k)) problems.push(`${path}: "${k}" is not supported`)
    for (const t of typesOf(node)) if (typeof t !== "string" || !types.has(t)) problems.push(`${path}: type ${String(t)}`)
    if (node.type === undefined && node.anyOf === undefined && node.enum === undefined && node.const === undefined) {
      problems.push(`${path}: no type`)
    }
    if (typeof node.format === "string" && !stringFormats.has(node.format)) problems.push(`${path}: format ${node.format}`)
    if (typesOf(node).includes("object") || node.properties !== undefined) {
      if (depth > 10) problems.push(`${path}: nested deeper than 10 levels`)
      if (node.additionalProperties !== false) problems.push(`${path}: additionalProperties is not false`)
      const properties = isRecord(node.properties) ? node.properties : {}
      const keys = Object.keys(properties)
      propertyCount += keys.length
      const required = Array.isArray(node.required) ? node.required : []
      if (required.length !== keys.length || !keys.every((k) => required.includes(k))) {
        problems.push(`${path}: required ${JSON.stringify(required)} is not every property ${JSON.stringify(keys)}`)
      }
      for (const k of keys) visit(properties[k], `${path}.${k}`, depth + 1)
    }
    if (typesOf(node).includes("array")) {
      if (!isRecord(node.items)) problems.push(`${path}: items is not one schema`)
      else visit(node.items, `${path}[]`, depth)
    }
    if (node.anyOf !== undefined) {
      if (!Array.isArray(node.anyOf)) problems.push(`${path}: anyOf is not a list`)
      else node.anyOf.forEach((alt, i) => visit(alt, `${path}|${i}`, depth))
    }
    if (Array.isArray(node.enum)) enumCount += node.enum.length
  }
  const r = record(root)
  if (r.type !== "object") problems.push("$: the root is not an object")
  if (r.anyOf !== undefined) problems.push("$: the root is an anyOf")
  visit(r, "$", 1)
  if (propertyCount > 5000) problems.push(`${propertyCount} properties`)
  if (enumCount > 1000) problems.push(`${enumCount} enum values`)
  return problems
}

/** Gemini's `Schema`: the OpenAPI subset its function declarations accept. */
const geminiViolations = (root: unknown): ReadonlyArray<string> => {
  const allowed = new Set([
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "properties",
    "required",
    "items",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "default"
  ])
  const types = new Set(["STRING", "NUMBER", "INTEGER", "BOOLEAN", "OBJECT", "ARRAY"])
  const problems: Array<string> = []
  const visit = (node: unknown, path: string): void => {
    if (!isRecord(node)) return void problems.push(`${path}: not a schema`)
    for (const k of Object.keys(node)) if (!allowed.has(k)) problems.push(`${path}: "${k}" is not supported`)
    if (typeof node.type !== "string" || !types.has(node.type)) problems.push(`${path}: type ${JSON.stringify(node.type)}`)
    if (node.nullable !== undefined && node.nullable !== true) problems.push(`${path}: nullable ${String(node.nullable)}`)
    if (node.enum !== undefined) {
      if (!Array.isArray(node.enum) || !node.enum.every((v) => typeof v === "string")) {
        problems.push(`${path}: enum values must be strings`)
      }
    }
    if (node.type === "OBJECT") {
      // the documented refusal is for the declaration's parameters; a nested free-form map
      // (a Record field) has no Gemini form and stays an OBJECT without properties
      if (path === "$" && (!isRecord(node.properties) || Object.keys(node.properties).length === 0)) {
        problems.push(`${path}: parameters need properties`)
      }
      if (isRecord(node.properties)) for (const [k, v] of Object.entries(node.properties)) visit(v, `${path}.${k}`)
    }
    if (node.type === "ARRAY") visit(node.items, `${path}[]`)
  }
  visit(root, "$")
  return problems
}

// ---------------------------------------------------------------------------------------------
describe("OpenAI", () => {
  it("is { type: 'function', function: { name, description, parameters } }", () => {
    const out = toOpenAITool(search.spec)
    expect(out).toEqual({
      type: "function",
      function: { name: "search", description: "Search a file", parameters: search.spec.parameters }
    })
    expect("strict" in out.function).toBe(false)
    expect(exportSpec(search.spec, "openai")).toEqual(out)
  })

  it("keeps the plain schema: defaults, optional fields out of required", () => {
    const parameters = toOpenAITool(search.spec).function.parameters
    expect(at(parameters, "mode").default).toBe("fast")
    expect(parameters.required).not.toContain("limit")
    expect(parameters.additionalProperties).toBe(false)
  })
})

describe("OpenAI strict", () => {
  // made before each test, not when the file loads: Stryker runs a mutant's tests in a process
  // where this module is already loaded
  let strict: ReturnType<typeof toOpenAIStrictTool>
  let parameters: JsonSchema
  beforeEach(() => {
    strict = toOpenAIStrictTool(search.spec)
    parameters = strict.function.parameters
  })

  it("has the OpenAI shape with strict: true", () => {
    expect(strict.type).toBe("function")
    expect(strict.function.name).toBe("search")
    expect(strict.function.description).toBe("Search a file")
    expect(strict.function.strict).toBe(true)
    expect(exportSpec(search.spec, "openai-strict")).toEqual(strict)
  })

  it("requires every property at every object level, with additionalProperties: false", () => {
    expect([...(parameters.required as Array<string>)].sort()).toEqual(Object.keys(SearchParams.fields).sort())
    expect(parameters.additionalProperties).toBe(false)
    for (const path of [["origin"], ["waypoints", "[]"]]) {
      const object = at(parameters, ...path)
      expect(object.required).toEqual(["x", "y", "label"])
      expect(object.additionalProperties).toBe(false)
    }
  })

  it("makes optional fields nullable, and leaves required ones as they were", () => {
    const original = search.spec.parameters
    const originalRequired = original.required as Array<string>
    for (const key of Object.keys(SearchParams.fields)) {
      const wasNullable = acceptsNull(at(original, key))
      expect(acceptsNull(at(parameters, key)), key).toBe(!originalRequired.includes(key) || wasNullable)
    }
    // nested optional fields too
    expect(acceptsNull(at(parameters, "origin", "y"))).toBe(true)
    expect(acceptsNull(at(parameters, "origin", "label"))).toBe(true)
    expect(acceptsNull(at(parameters, "origin", "x"))).toBe(false)
    expect(at(parameters, "limit").type).toEqual(["integer", "null"])
    // an enum cannot just add "null" to its type: it becomes an anyOf with null
    const mode = at(parameters, "mode")
    expect(mode.anyOf).toEqual([
      { type: "string", enum: ["fast", "thorough"], description: 'Search mode (default: "fast")' },
      { type: "null" }
    ])
    // an optional object or array takes null in its type
    expect(at(parameters, "waypoints").type).toEqual(["array", "null"])
  })

  it("leaves no `default` keyword: defaults are named in the description", () => {
    expect(keysDeep(parameters).has("default")).toBe(false)
    expect(at(parameters, "recursive").description).toBe("(default: false)")
    expect(at(parameters, "origin", "y").description).toBe("y coordinate (default: 0)")
  })

  it("follows OpenAI's documented strict-mode rules for every tool", () => {
    for (const tool of all) expect(strictViolations(toOpenAIStrictTool(tool.spec).function.parameters), tool.name).toEqual([])
  })

  it("the checker itself catches what the rules forbid", () => {
    expect(strictViolations(search.spec.parameters).length).toBeGreaterThan(0)
    expect(strictViolations(constrained.spec.parameters).some((p) => p.includes("minLength"))).toBe(true)
    expect(strictViolations({ anyOf: [{ type: "object" }] })).toContain("$: the root is not an object")
  })

  it("names the constraints it had to drop in the description", () => {
    const p = toOpenAIStrictTool(constrained.spec).function.parameters
    expect(at(p, "name").description).toBe("A short name (minLength: 1, maxLength: 10)")
    expect(at(p, "name").maxLength).toBeUndefined()
    expect(String(at(p, "env").description)).toContain("patternProperties")
    expect(at(p, "env").properties).toEqual({})
    expect(at(p, "pair").items).toEqual({ anyOf: [{ type: "string" }, { type: "number" }] })
    expect(at(p, "pair")).toMatchObject({ minItems: 2, maxItems: 2 })
    expect(String(at(p, "code").description)).toContain("allOf")
    expect(at(p, "ids").minItems).toBe(1)
    expect(at(p, "either").anyOf).toEqual([{ type: "string" }, { type: "number" }, { type: "null" }])
  })

  it("a parameterless tool is an empty strict object", () => {
    expect(toOpenAIStrictTool(now.spec).function.parameters).toEqual({
      type: "object",
      properties: {},
      required: [],
      additionalProperties: false
    })
  })
})

describe("fromStrictArguments", () => {
  it("drops the nulls a strict-mode model sends for optional fields, so the tool's Schema decodes them", () => {
    const sent = {
      path: "a.txt",
      query: "q",
      limit: null,
      mode: null,
      level: 2,
      origin: { x: 1, y: null, label: null },
      waypoints: [{ x: 2, y: 5, label: null }],
      tags: ["t"],
      recursive: null,
      note: null
    }
    expect(Result.isFailure(search.prepare(sent))).toBe(true)
    const args = fromStrictArguments(search.spec.parameters, sent)
    expect(args).toEqual({
      path: "a.txt",
      query: "q",
      level: 2,
      origin: { x: 1 },
      waypoints: [{ x: 2, y: 5 }],
      tags: ["t"],
      note: null
    })
    const call = search.prepare(args)
    expect(Result.isSuccess(call)).toBe(true)
    if (Result.isSuccess(call)) {
      expect(call.success.args).toMatchObject({ mode: "fast", recursive: false, origin: { x: 1, y: 0 }, note: null })
    }
  })

  it("keeps a null the tool accepts, and leaves non-objects alone", () => {
    expect(fromStrictArguments(constrained.spec.parameters, { maybeName: null, either: null })).toEqual({ maybeName: null })
    expect(fromStrictArguments(search.spec.parameters, "x")).toBe("x")
  })
})

describe("Anthropic and MCP", () => {
  it("Anthropic uses input_schema", () => {
    expect(toAnthropicTool(search.spec)).toEqual({
      name: "search",
      description: "Search a file",
      input_schema: search.spec.parameters
    })
    expect(exportSpec(search.spec, "anthropic")).toEqual(toAnthropicTool(search.spec))
  })

  it("MCP uses inputSchema and hints from readOnly", () => {
    expect(toMcpTool(search.spec)).toEqual({
      name: "search",
      description: "Search a file",
      inputSchema: search.spec.parameters,
      annotations: { readOnlyHint: true, destructiveHint: false }
    })
    expect(toMcpTool(shell.spec).annotations).toEqual({ readOnlyHint: false, destructiveHint: true })
    expect(toMcpTool(now.spec).inputSchema).toEqual({ type: "object", properties: {}, required: [], additionalProperties: false })
    expect(exportSpec(shell.spec, "mcp")).toEqual(toMcpTool(shell.spec))
  })

  it("none of the JSON Schema exports carries $schema, $ref or $defs", () => {
    for (const tool of all) {
      for (const format of formats) {
        const keys = keysDeep(exportSpec(tool.spec, format))
        for (const k of ["$schema", "$ref", "$defs", "$id"]) expect(keys.has(k), `${tool.name} ${format} ${k}`).toBe(false)
      }
    }
  })
})

describe("Gemini", () => {
  let gemini: ReturnType<typeof toGeminiTool>
  let parameters: ReturnType<typeof toGeminiTool>["parameters"]
  beforeEach(() => {
    gemini = toGeminiTool(search.spec)
    parameters = gemini.parameters
  })

  it("is a function declaration in Gemini's schema subset", () => {
    expect(gemini.name).toBe("search")
    expect(gemini.description).toBe("Search a file")
    expect(exportSpec(search.spec, "gemini")).toEqual(gemini)
    for (const tool of all.filter((t) => t !== now)) {
      expect(geminiViolations(toGeminiTool(tool.spec).parameters), tool.name).toEqual([])
    }
  })

  it("uses one uppercase type per schema and nullable instead of null unions", () => {
    expect(parameters?.type).toBe("OBJECT")
    expect(at(parameters, "path").type).toBe("STRING")
    expect(at(parameters, "limit").type).toBe("INTEGER")
    expect(at(parameters, "tags").type).toBe("ARRAY")
    expect(at(parameters, "tags", "[]").type).toBe("STRING")
    expect(at(parameters, "origin").type).toBe("OBJECT")
    expect(at(parameters, "note")).toEqual({ type: "STRING", nullable: true })
    expect(at(toGeminiTool(constrained.spec).parameters, "maybeName")).toEqual({ type: "STRING", nullable: true })
  })

  it("drops additionalProperties, $schema and exclusive bounds (an integer's becomes inclusive)", () => {
    const keys = keysDeep(parameters)
    for (const k of ["additionalProperties", "$schema", "exclusiveMinimum", "exclusiveMaximum", "anyOf", "title"]) {
      expect(keys.has(k), k).toBe(false)
    }
    expect(at(parameters, "limit")).toMatchObject({ minimum: 1, maximum: 100 })
  })

  it("keeps the type of a refined, defaulted integer (Effect wraps it in an allOf)", () => {
    expect(at(toGeminiTool(shell.spec).parameters, "timeout_s")).toEqual({
      type: "INTEGER",
      description: "a number between 1 and 600",
      minimum: 1,
      maximum: 600,
      default: 30
    })
  })

  it("writes enum values as strings", () => {
    expect(at(parameters, "mode").enum).toEqual(["fast", "thorough"])
    expect(at(parameters, "level").enum).toEqual(["1", "2", "3"])
  })

  it("keeps descriptions, required and nested structure", () => {
    expect(at(parameters, "path").description).toBe("The file to search")
    expect([...(record(parameters).required as Array<string>)].sort()).toEqual(["level", "note", "origin", "path", "query", "tags"])
    expect(at(parameters, "waypoints", "[]", "y").description).toBe("y coordinate")
  })

  it("leaves out parameters for a tool without any (Gemini refuses an empty OBJECT)", () => {
    expect(toGeminiTool(now.spec)).toEqual({ name: "now", description: "The current time" })
  })
})

describe("ToolRegistry.export filters", () => {
  const registry = Effect.gen(function*() {
    const reg = yield* ToolRegistry
    for (const tool of all) yield* reg.register(tool)
    return reg
  })
  const names = (exported: ReadonlyArray<unknown>) => exported.map((e) => String(record(record(e).function).name))

  it.effect("exports every tool, sorted by name, in every format", () =>
    Effect.gen(function*() {
      const reg = yield* registry
      expect(names(yield* reg.export("openai"))).toEqual(["constrained", "now", "search", "shell", "write_plan"])
      for (const format of formats) {
        const exported = yield* reg.export(format)
        expect(exported).toHaveLength(all.length)
        expect(exported[2]).toEqual(exportSpec(search.spec, format))
      }
    }).pipe(Effect.provide(ToolRegistry.layerEmpty)))

  it.effect("filters by tags (any of them)", () =>
    Effect.gen(function*() {
      const reg = yield* registry
      expect(names(yield* reg.export("openai", { tags: ["files"] }))).toEqual(["search", "write_plan"])
      expect(names(yield* reg.export("openai-strict", { tags: ["exec", "time"] }))).toEqual(["now", "shell"])
      expect(yield* reg.export("openai", { tags: ["nothing"] })).toEqual([])
      expect(names(yield* reg.export("openai", { tags: [] }))).toHaveLength(all.length)
    }).pipe(Effect.provide(ToolRegistry.layerEmpty)))

  it.effect("filters by mode: Explore keeps read-only tools, Plan also scoped-write tools", () =>
    Effect.gen(function*() {
      const reg = yield* registry
      expect(names(yield* reg.export("openai", { mode: AgentMode.Explore }))).toEqual(["constrained", "now", "search"])
      expect(names(yield* reg.export("openai", { mode: AgentMode.Plan }))).toEqual([
        "constrained",
        "now",
        "search",
        "write_plan"
      ])
      expect(names(yield* reg.export("openai", { mode: AgentMode.Default }))).toHaveLength(all.length)
      expect(names(yield* reg.export("openai", { mode: AgentMode.Plan, tags: ["plans", "exec"] }))).toEqual(["write_plan"])
      const mcp = yield* reg.export("mcp", { mode: AgentMode.Explore })
      expect(mcp.map((t) => record(record(t).annotations).readOnlyHint)).toEqual([true, true, true])
    }).pipe(Effect.provide(ToolRegistry.layerEmpty)))
})

describe("Tool.make refuses bad names and versions", () => {
  const define = (name: string, version?: string) =>
    make(name, {
      description: "d",
      parameters: Schema.Struct({}),
      ...(version === undefined ? {} : { version }),
      handler: () => Effect.succeed("ok")
    })

  it("names outside ^[a-zA-Z0-9_-]{1,64}$", () => {
    for (const name of ["a".repeat(65), "has space", "has.dot", "", "slash/name", "ünï", "tab\t", "a:b"]) {
      expect(() => define(name), JSON.stringify(name)).toThrow(InvalidToolDefinition)
    }
    try {
      define("has space")
    } catch (error) {
      expect(error).toMatchObject({ _tag: "InvalidToolDefinition", name: "has space" })
      expect(String(error)).toContain("^[a-zA-Z0-9_-]{1,64}$")
    }
  })

  it("accepts the names at the edge", () => {
    for (const name of ["a".repeat(64), "a", "A-b_9", "read_file", "server__tool"]) {
      expect(define(name).name).toBe(name)
    }
  })

  it("versions that are not semver", () => {
    for (const version of ["1.0", "v1.0.0", "latest", "", "1.0.0.0", "01.0.0x"]) {
      expect(() => define("versioned", version), version).toThrow(InvalidToolDefinition)
    }
    expect(() => define("versioned", "1.0")).toThrow(/semver/)
    for (const version of ["0.0.1", "2.10.3", "1.2.3-beta.1", "1.2.3+build.5"]) {
      expect(define("versioned", version).version).toBe(version)
    }
    expect(define("versioned").version).toBe("1.0.0")
  })
})

const _typecheck: ReadonlyArray<JsonSchema> = all.map((t) => t.spec.parameters)
void _typecheck
