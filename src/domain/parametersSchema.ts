/**
 * The parameter JSON Schema of a tool, generated from its Effect Schema: inlined (no `$ref`),
 * with field descriptions and defaults, and without the `$schema` header model APIs reject.
 *
 * It is written exactly as the library wrote it on Effect 3 (whose `JSONSchema.make` it follows,
 * on the schema seen as Effect 3 built it, see `schemaView.ts`): Effect 4's own JSON Schema
 * describes a schema's canonical JSON codec (optional fields nullable, numbers as strings too,
 * open objects), which is not what a tool accepts, and every model would be sent something new.
 * A schema may carry a hand-written JSON Schema in its `jsonSchema` annotation, as on Effect 3.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import type { JsonSchema } from "./ToolSpec.js"
import { view } from "./schemaView.js"
import { annotate, encodedTypeLiteral, noExtras } from "./jsonSchemaExtras.js"
import { inline } from "./jsonSchemaInline.js"
import { type Go, go } from "./jsonSchemaMake.js"
import { isRecord } from "./jsonSchemaParts.js"


const EMPTY_OBJECT: JsonSchema = { type: "object", properties: {}, required: [], additionalProperties: false }

/**
 * The JSON Schema of a struct schema's encoded side (what a model sends): inlined, with the
 * defaults and property descriptions of every level. `Schema.Struct({})` gives an object with
 * no properties. Throws on a schema that cannot be a tool's parameters (not an object,
 * recursive).
 */
export const parametersJsonSchema = (schema: Schema.Top): JsonSchema => {
  const root = view(schema.ast)
  const literal = encodedTypeLiteral(root)
  if (literal !== undefined && literal.propertySignatures.length === 0 && literal.indexSignatures.length === 0) {
    return EMPTY_OBJECT
  }
  const state: Go = { defs: {}, errors: true }
  const raw = go(root, state, true, [])
  const inlined = annotate(inline(raw, state.defs, []), root, noExtras)
  if (!isRecord(inlined) || inlined.type !== "object") {
    throw new Error("parameters must be a struct schema (a JSON object)")
  }
  return {
    ...inlined,
    properties: isRecord(inlined.properties) ? inlined.properties : {},
    required: Array.isArray(inlined.required) ? inlined.required : []
  }
}

/**
 * The dialect `outputJsonSchema` declares: the one `parametersJsonSchema` writes in (a tuple's
 * `items` is a list, as in draft-07). A schema without `$schema` is read as 2020-12 by MCP
 * 2025-11-25 and by SDK v2's client, where a list of `items` is no schema at all.
 */
export const OUTPUT_SCHEMA_DIALECT = "http://json-schema.org/draft-07/schema#"

/**
 * The JSON Schema of a tool's `success` schema (its encoded side: what a call's output is),
 * made as `parametersJsonSchema` makes a tool's parameters, with its dialect declared; or
 * `undefined` when the encoded side is not an object (MCP's `outputSchema` must be one) or
 * has no JSON Schema (a `bigint`, a recursive schema, a declared type without a `jsonSchema`
 * annotation).
 */
export const outputJsonSchema = (schema: Schema.Top): JsonSchema | undefined => {
  let json: JsonSchema
  try {
    json = parametersJsonSchema(schema)
  } catch {
    return undefined
  }
  return { $schema: OUTPUT_SCHEMA_DIALECT, ...json }
}
