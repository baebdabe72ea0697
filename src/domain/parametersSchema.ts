/**
 * The parameter JSON Schema of a tool, generated from its Effect Schema: inlined (no `$ref`),
 * with field descriptions and defaults, and without the `$schema` header model APIs reject.
 *
 * @since 0.1.0
 */
import { JSONSchema, Option, type Schema, SchemaAST } from "effect"
import type { JsonSchema } from "./ToolSpec.js"

const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const REF_PREFIX = "#/$defs/"

/** Replaces every `$ref` into `$defs` by the definition itself; refuses recursive schemas. */
const inline = (node: unknown, defs: Record<string, unknown>, seen: ReadonlyArray<string>): unknown => {
  if (Array.isArray(node)) return node.map((n) => inline(n, defs, seen))
  if (!isRecord(node)) return node
  let base: Record<string, unknown> = node
  if (typeof node.$ref === "string" && node.$ref.startsWith(REF_PREFIX)) {
    const id = decodeURIComponent(node.$ref.slice(REF_PREFIX.length)).replace(/~1/g, "/").replace(/~0/g, "~")
    if (seen.includes(id)) throw new Error(`recursive schema "${id}" cannot be inlined`)
    const def = defs[id]
    if (!isRecord(def)) throw new Error(`missing definition "${id}"`)
    const { $ref: _ref, ...rest } = node
    const resolved = inline(def, defs, [...seen, id])
    base = isRecord(resolved) ? { ...resolved, ...rest } : rest
    seen = [...seen, id]
  }
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(base)) {
    if (k === "$schema" || k === "$defs" || k === "$ref") continue
    out[k] = inline(v, defs, seen)
  }
  return out
}

/** Field defaults of `Schema.optionalWith(..., { default })`, read from the transformation. */
const defaultsOf = (ast: SchemaAST.AST): Map<string, unknown> => {
  const out = new Map<string, unknown>()
  if (ast._tag === "Transformation" && SchemaAST.isTypeLiteralTransformation(ast.transformation)) {
    for (const pst of ast.transformation.propertySignatureTransformations) {
      if (typeof pst.from !== "string") continue
      const value = pst.decode(Option.none())
      if (Option.isSome(value)) out.set(pst.from, value.value)
    }
  }
  return out
}

/** Descriptions set on property signatures (`Schema.optional(X).annotations({ description })`). */
const descriptionsOf = (ast: SchemaAST.AST): Map<string, string> => {
  const out = new Map<string, string>()
  for (const side of [SchemaAST.encodedAST(ast), SchemaAST.typeAST(ast)]) {
    if (side._tag !== "TypeLiteral") continue
    for (const ps of side.propertySignatures) {
      const d = ps.annotations[SchemaAST.DescriptionAnnotationId]
      if (typeof ps.name === "string" && typeof d === "string" && !out.has(ps.name)) out.set(ps.name, d)
    }
  }
  return out
}

/**
 * The JSON Schema of a struct schema's encoded side (what a model sends).
 * Throws on a schema that cannot be a tool's parameters (not an object, recursive).
 */
export const parametersJsonSchema = (schema: Schema.Schema.Any): JsonSchema => {
  const raw: unknown = JSONSchema.make(schema)
  const defs = isRecord(raw) && isRecord(raw.$defs) ? raw.$defs : {}
  const inlined = inline(raw, defs, [])
  if (!isRecord(inlined) || inlined.type !== "object") {
    throw new Error("parameters must be a struct schema (a JSON object)")
  }
  const properties = isRecord(inlined.properties) ? { ...inlined.properties } : {}
  for (const [name, value] of defaultsOf(schema.ast)) {
    const prop = properties[name]
    if (isRecord(prop) && !("default" in prop)) properties[name] = { ...prop, default: value }
  }
  for (const [name, description] of descriptionsOf(schema.ast)) {
    const prop = properties[name]
    if (isRecord(prop)) properties[name] = { ...prop, description }
  }
  return { ...inlined, properties, required: Array.isArray(inlined.required) ? inlined.required : [] }
}
