/**
 * Tool specs in the shapes model APIs take: OpenAI (plain and strict), Anthropic, MCP, Gemini.
 *
 * @since 0.1.0
 */
import type { JsonSchema, OpenAITool, ToolSpec } from "./ToolSpec.js"

/** The export formats, by name (the CLI's `--format`). */
export const formats = ["openai", "openai-strict", "anthropic", "mcp", "gemini"] as const
export type ExportFormat = (typeof formats)[number]

/** `{ type: "function", function: { name, description, parameters } }`. */
export const toOpenAITool = (spec: ToolSpec): OpenAITool => spec.toOpenAITool()

/**
 * OpenAI strict mode: every property required, optional ones nullable, no additional
 * properties, no `default` (it is named in the description instead).
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

/** Anthropic's tool shape: `{ name, description, input_schema }`. */
export const toAnthropicTool = (spec: ToolSpec) => ({
  name: spec.name,
  description: spec.description,
  input_schema: spec.parameters
})

/** The MCP `tools/list` shape, with read-only and destructive hints. */
export const toMcpTool = (spec: ToolSpec) => ({
  name: spec.name,
  description: spec.description,
  inputSchema: spec.parameters,
  annotations: { readOnlyHint: spec.readOnly, destructiveHint: !spec.readOnly }
})

/** A Gemini function declaration; its schema is the OpenAPI subset Gemini accepts. */
export const toGeminiTool = (spec: ToolSpec) => ({
  name: spec.name,
  description: spec.description,
  parameters: toGeminiSchema(spec.parameters)
})

/** Exports one spec in the given format. */
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

const withoutKeys = (schema: JsonSchema, keys: ReadonlyArray<string>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(schema)) if (!keys.includes(k)) out[k] = v
  return out
}

const describeDefault = (schema: JsonSchema): Record<string, unknown> => {
  const out = withoutKeys(schema, ["default"])
  if ("default" in schema) {
    const note = `(default: ${JSON.stringify(schema.default)})`
    out.description = typeof schema.description === "string" ? `${schema.description} ${note}` : note
  }
  return out
}

const strictAny = (schema: unknown): unknown => {
  if (!isRecord(schema)) return schema
  if (schema.type === "object" || isRecord(schema.properties)) return strictObject(schema)
  const out = describeDefault(schema)
  if (isRecord(schema.items)) out.items = strictAny(schema.items)
  for (const key of ["anyOf", "oneOf", "allOf"] as const) {
    const list = schema[key]
    if (Array.isArray(list)) out[key] = list.map(strictAny)
  }
  return out
}

const nullable = (schema: unknown): unknown => {
  if (!isRecord(schema)) return schema
  if (typeof schema.type === "string" && !Array.isArray(schema.enum)) {
    return { ...schema, type: [schema.type, "null"] }
  }
  return { anyOf: [schema, { type: "null" }] }
}

const strictObject = (schema: JsonSchema): JsonSchema => {
  const properties = isRecord(schema.properties) ? schema.properties : {}
  const required = new Set(Array.isArray(schema.required) ? schema.required : [])
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(properties)) {
    const strict = strictAny(value)
    out[key] = required.has(key) ? strict : nullable(strict)
  }
  return {
    ...describeDefault(withoutKeys(schema, ["$schema"])),
    type: "object",
    properties: out,
    required: Object.keys(out),
    additionalProperties: false
  }
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
  return out
}
