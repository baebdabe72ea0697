/**
 * Tool specs in the shapes model APIs take: OpenAI (plain and strict), Anthropic, MCP, Gemini.
 *
 * @since 0.1.0
 */
import type { JsonSchema, OpenAITool, ToolSpec } from "./ToolSpec.js"

/**
 * The export formats, by name (the CLI's `--format`).
 *
 * @since 0.1.0
 * @category constants
 */
export const formats = ["openai", "openai-strict", "anthropic", "mcp", "gemini"] as const

/**
 * One of `formats`: what `ToolRegistry.export` and the CLI's `export --format` take.
 *
 * @since 0.1.0
 * @category models
 */
export type ExportFormat = (typeof formats)[number]

/**
 * `{ type: "function", function: { name, description, parameters } }`.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toOpenAITool = (spec: ToolSpec): OpenAITool => spec.toOpenAITool()

/**
 * OpenAI strict mode: every property required, optional ones nullable, no additional
 * properties, no `default` (it is named in the description instead).
 *
 * @since 0.1.0
 * @category conversions
 */
export const toOpenAIStrictTool = (spec: ToolSpec): OpenAITool => ({
  type: "function",
  function: {
    name: spec.name,
    description: spec.description,
    parameters: strictObject(spec.parameters),
    strict: true
  }
})

/**
 * Anthropic's tool shape: `{ name, description, input_schema }`.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toAnthropicTool = (spec: ToolSpec) => ({
  name: spec.name,
  description: spec.description,
  input_schema: spec.parameters
})

/**
 * The MCP `tools/list` shape, with read-only and destructive hints.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toMcpTool = (spec: ToolSpec) => ({
  name: spec.name,
  description: spec.description,
  inputSchema: spec.parameters,
  annotations: { readOnlyHint: spec.readOnly, destructiveHint: !spec.readOnly }
})

/**
 * A Gemini function declaration; its schema is the OpenAPI subset Gemini accepts. A tool
 * without parameters has no `parameters` (Gemini refuses an OBJECT with no properties).
 *
 * @since 0.1.0
 * @category conversions
 */
export const toGeminiTool = (spec: ToolSpec): GeminiFunctionDeclaration => {
  const properties = spec.parameters.properties
  if (!isRecord(properties) || Object.keys(properties).length === 0) {
    return { name: spec.name, description: spec.description }
  }
  return { name: spec.name, description: spec.description, parameters: toGeminiSchema(spec.parameters) }
}

/**
 * Gemini's `FunctionDeclaration`.
 *
 * @since 0.1.0
 * @category models
 */
export interface GeminiFunctionDeclaration {
  readonly name: string
  readonly description: string
  readonly parameters?: Record<string, unknown>
}

/**
 * Exports one spec in the given format.
 *
 * @since 0.1.0
 * @category conversions
 */
export const exportSpec = (spec: ToolSpec, format: ExportFormat): unknown => {
  switch (format) {
    case "openai":
      return toOpenAITool(spec)
    case "openai-strict":
      return toOpenAIStrictTool(spec)
    case "anthropic":
      return toAnthropicTool(spec)
    case "mcp":
      return toMcpTool(spec)
    case "gemini":
      return toGeminiTool(spec)
  }
}

const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** The keywords OpenAI's strict mode accepts (its "supported schemas" list). */
const STRICT_KEYS = new Set([
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
  "maxItems"
])

/** The string formats strict mode accepts. */
const STRICT_FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"])

/** Keywords with nothing a model needs to know: dropped without a note. */
const META_KEYS = new Set(["$schema", "$id", "$comment", "examples", "additionalItems"])

/** Appends `(default: 5, minLength: 1)` for the keywords strict mode refuses. */
const withNotes = (out: Record<string, unknown>, notes: ReadonlyArray<string>): Record<string, unknown> => {
  if (notes.length === 0) return out
  const note = `(${notes.join(", ")})`
  return { ...out, description: typeof out.description === "string" ? `${out.description} ${note}` : note }
}

const isObjectSchema = (schema: Record<string, unknown>): boolean =>
  schema.type === "object" || isRecord(schema.properties)

/**
 * A subschema in strict mode's subset: supported keywords kept, `oneOf` as `anyOf`, a tuple's
 * items as an `anyOf` of its elements with a fixed length, every other keyword (a `default`,
 * `minLength`, ...) named in the description so the model still knows it.
 */
const strictAny = (schema: unknown): unknown => {
  if (!isRecord(schema)) return schema
  if (isObjectSchema(schema)) return strictObject(schema)
  const out: Record<string, unknown> = {}
  const notes: Array<string> = []
  for (const [key, value] of Object.entries(schema)) {
    if (key === "items" && Array.isArray(value)) {
      out.items = { anyOf: value.map(strictAny) }
      out.minItems = value.length
      out.maxItems = value.length
    } else if (key === "items") {
      out.items = strictAny(value)
    } else if (key === "anyOf" || key === "oneOf") {
      // a union that is not a list (a server's malformed schema) is named, as a keyword strict mode refuses
      if (Array.isArray(value)) out.anyOf = [...(Array.isArray(out.anyOf) ? out.anyOf : []), ...value.map(strictAny)]
      else notes.push(`${key}: ${JSON.stringify(value)}`)
    } else if (key === "format" && (typeof value !== "string" || !STRICT_FORMATS.has(value))) {
      notes.push(`format: ${JSON.stringify(value)}`)
    } else if (STRICT_KEYS.has(key)) {
      if (!(key in out)) out[key] = value
    } else if (!META_KEYS.has(key)) {
      notes.push(`${key}: ${JSON.stringify(value)}`)
    }
  }
  return withNotes(out, notes)
}

const allowsNull = (schema: Record<string, unknown>): boolean =>
  schema.type === "null" ||
  (Array.isArray(schema.type) && schema.type.includes("null")) ||
  (Array.isArray(schema.anyOf) && schema.anyOf.some((s) => isRecord(s) && allowsNull(s)))

/** An optional field in strict mode: required, but `null` allowed. */
const nullable = (schema: unknown): unknown => {
  if (!isRecord(schema) || allowsNull(schema)) return schema
  if (typeof schema.type === "string" && !Array.isArray(schema.enum) && !("const" in schema)) {
    return { ...schema, type: [schema.type, "null"] }
  }
  if (Array.isArray(schema.type) && !Array.isArray(schema.enum) && !("const" in schema)) {
    return { ...schema, type: [...schema.type, "null"] }
  }
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: "null" }] }
  return { anyOf: [schema, { type: "null" }] }
}

/** An object in strict mode: every property required (optional ones nullable), no extra keys. */
const strictObject = (schema: Record<string, unknown>): JsonSchema => {
  const properties = isRecord(schema.properties) ? schema.properties : {}
  const required = Array.isArray(schema.required) ? new Set<unknown>(schema.required) : new Set<unknown>()
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(properties)) {
    const strict = strictAny(value)
    out[key] = required.has(key) ? strict : nullable(strict)
  }
  // the object's own keywords are written below; the rest (its description, ...) are converted like every other schema's
  const { additionalProperties: _additional, properties: _properties, required: _required, type: _type, ...rest } = schema
  const extraKeys = isRecord(schema.additionalProperties)
    ? [`additionalProperties: ${JSON.stringify(schema.additionalProperties)}`]
    : []
  const described = strictAny(rest)
  return {
    ...withNotes(isRecord(described) ? described : {}, extraKeys),
    type: "object",
    properties: out,
    required: Object.keys(out),
    additionalProperties: false
  }
}

/**
 * A strict-mode call's arguments back in the tool's own shape. Strict mode makes the model
 * send every field, `null` for the ones it leaves out; this drops a `null` given for a field
 * that `parameters` (the tool's plain schema) has optional and not nullable, at every depth,
 * so the arguments decode with the tool's Schema.
 *
 * @since 0.1.0
 * @category conversions
 *
 * @example
 * ```ts
 * import { Exports, readFile } from "effect-tool-system"
 *
 * // a strict model sends null for the optional fields it leaves out
 * Exports.fromStrictArguments(readFile.spec.parameters, { filepath: "a.txt", max_lines: null }) // { filepath: "a.txt" }
 * ```
 */
export const fromStrictArguments = (parameters: JsonSchema, args: unknown): unknown => stripNulls(parameters, args)

const stripNulls = (schema: unknown, value: unknown): unknown => {
  if (!isRecord(schema)) return value
  if (Array.isArray(value)) return isRecord(schema.items) ? value.map((v) => stripNulls(schema.items, v)) : value
  if (!isRecord(value)) return value
  const keys = Object.keys(value)
  const alternatives = Array.isArray(schema.anyOf) ? schema.anyOf : []
  const object = isRecord(schema.properties)
    ? schema
    : alternatives.find((alt) => {
      const props = isRecord(alt) ? alt.properties : undefined
      return isRecord(props) && keys.every((k) => k in props)
    })
  if (!isRecord(object) || !isRecord(object.properties)) return value
  const properties = object.properties
  const required = object.required
  const out: Record<string, unknown> = {}
  for (const [key, v] of Object.entries(value)) {
    const prop = properties[key]
    if (v === null && !(Array.isArray(required) && required.includes(key)) && !(isRecord(prop) && allowsNull(prop))) continue
    out[key] = stripNulls(prop, v)
  }
  return out
}

const GEMINI_KEYS = new Set([
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

/** Maps a JSON Schema onto Gemini's subset: one `type`, `nullable`, no `additionalProperties`. */
const toGeminiSchema = (schema: unknown): Record<string, unknown> => {
  if (!isRecord(schema)) return { type: "STRING" }
  const alternatives = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined
  if (alternatives !== undefined) {
    const nonNull = alternatives.filter((s) => !(isRecord(s) && s.type === "null"))
    const base = nonNull.length === 1 ? toGeminiSchema(nonNull[0]) : { type: "STRING" }
    const out: Record<string, unknown> = nonNull.length < alternatives.length ? { ...base, nullable: true } : base
    if (typeof schema.description === "string") out.description = schema.description
    return out
  }
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(schema)) if (GEMINI_KEYS.has(k)) out[k] = v
  if ("const" in schema) out.enum = [schema.const]
  const types = Array.isArray(schema.type) ? schema.type : [schema.type]
  const named = types.filter((t): t is string => typeof t === "string" && t !== "null")
  if (types.includes("null")) out.nullable = true
  out.type = (named[0] ?? (Array.isArray(out.enum) ? "string" : isRecord(schema.properties) ? "object" : "string")).toUpperCase()
  if (isRecord(schema.properties)) {
    const props: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(schema.properties)) props[k] = toGeminiSchema(v)
    out.properties = props
  }
  if (schema.items !== undefined) out.items = toGeminiSchema(schema.items)
  if (Array.isArray(out.enum)) out.enum = out.enum.map(String)
  // Gemini has no exclusive bounds; for an integer they are an inclusive bound one step in
  if (out.type === "INTEGER" && typeof schema.exclusiveMinimum === "number" && out.minimum === undefined) {
    out.minimum = Math.floor(schema.exclusiveMinimum) + 1
  }
  if (out.type === "INTEGER" && typeof schema.exclusiveMaximum === "number" && out.maximum === undefined) {
    out.maximum = Math.ceil(schema.exclusiveMaximum) - 1
  }
  return out
}
