/**
 * The pieces `jsonSchemaMake.ts`'s walk is made of, as Effect 3's `JSONSchema.make` had them: the
 * constant schemas, a view's JSON Schema annotations, refinements merged into their base, the
 * `undefined` members pruned, the errors of a schema with no JSON Schema.
 *
 * @since 1.0.0
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import {
  format,
  type View,
  type ViewAnnotations,
  view
} from "./schemaView.js"

export type Json = Record<string, unknown>

export const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

export const REF_PREFIX = "#/$defs/"

// -------------------------------------------------------------------------------------------------
// Effect 3's JSONSchema.make, on the view
// -------------------------------------------------------------------------------------------------

export const constNever: Json = { $id: "/schemas/never", not: {} }
export const constAny: Json = { $id: "/schemas/any" }
export const constUnknown: Json = { $id: "/schemas/unknown" }
export const constVoid: Json = { $id: "/schemas/void" }
export const constObject: Json = { $id: "/schemas/object", anyOf: [{ type: "object" }, { type: "array" }] }
export const constEmptyStruct: Json = { $id: "/schemas/%7B%7D", anyOf: [{ type: "object" }, { type: "array" }] }

/** A JSON value (what a `default` or an example may be), plain objects only, no cycles. */
export const isJsonValue = (value: unknown, visited: Set<unknown> = new Set()): boolean => {
  if (value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean") return true
  if (typeof value !== "object") return false
  if (visited.has(value)) return false
  visited.add(value)
  try {
    if (Array.isArray(value)) return value.every((item) => isJsonValue(item, visited))
    const proto: unknown = Object.getPrototypeOf(value)
    if (proto !== null && proto !== Object.prototype) return false
    if (Object.getOwnPropertySymbols(value).length > 0) return false
    return Object.values(value).every((v) => isJsonValue(v, visited))
  } finally {
    visited.delete(value)
  }
}

/** `value` encoded by the schema `v` stands for, as a JSON annotation shows it (`None` when it does not encode). */
const encodeOption = (v: View, value: unknown): Option.Option<unknown> => {
  try {
    return Schema.encodeUnknownOption(Schema.make<Schema.Codec<unknown, unknown>>(v.ast))(value)
  } catch {
    return Option.none()
  }
}

/** The `description`, `title`, `default` and `examples` of annotations, for the schema `v`. */
export const jsonAnnotations = (v: View, annotations: ViewAnnotations): Json | undefined => {
  const out: Json = {}
  if (typeof annotations.description === "string") out.description = annotations.description
  if (typeof annotations.title === "string") out.title = annotations.title
  if (annotations.default !== undefined) {
    const encoded = encodeOption(v, annotations.default)
    if (Option.isSome(encoded) && isJsonValue(encoded.value)) out.default = encoded.value
  }
  if (Array.isArray(annotations.examples)) {
    const examples = annotations.examples.flatMap((e: unknown) => {
      const encoded = encodeOption(v, e)
      return Option.isSome(encoded) && isJsonValue(encoded.value) ? [encoded.value] : []
    })
    if (examples.length > 0) out.examples = examples
  }
  return Object.keys(out).length === 0 ? undefined : out
}

/** Annotations added to a schema: beside a reference in an `allOf`, else over its keywords. */
export const addAnnotations = (json: Json, annotations: Json | undefined): Json => {
  if (annotations === undefined || Object.keys(annotations).length === 0) return json
  if ("$ref" in json) return { allOf: [json], ...annotations }
  return { ...json, ...annotations }
}

export const addViewAnnotations = (json: Json, v: View): Json => addAnnotations(json, jsonAnnotations(v, v.annotations))

export const jsonSchemaOf = (v: View): Json | undefined => {
  const hook = v.annotations.jsonSchema
  return isRecord(hook) ? hook : undefined
}

export const identifierOf = (v: View): string | undefined => {
  const id = v.annotations.jsonIdentifier ?? v.annotations.identifier
  if (typeof id === "string") return id
  return v._tag === "Suspend" ? identifierOf(v.f()) : undefined
}

/** Whether a hand-written JSON Schema replaces the generated one rather than adding to it. */
export const isOverride = (v: View, json: Json): boolean => {
  if (v._tag === "Refinement" && v.isInt) return "type" in json && json.type !== "integer"
  return "type" in json || "oneOf" in json || "anyOf" in json || "$ref" in json
}

/** The encoded side under a refinement's checks, when the schema it refines has an encoding. */
export const transformationFrom = (v: View): View | undefined => {
  switch (v._tag) {
    case "Transformation":
      return v.from
    case "Refinement":
      return transformationFrom(v.from)
    case "Suspend":
      return transformationFrom(v.f())
    default:
      return undefined
  }
}

/**
 * A refinement's keywords over those of the schema it refines; keywords it narrows stay in `allOf`,
 * less those of the same keyword the new one makes redundant (a looser bound). Members that hold
 * other keywords stay: a second `minLength` does not drop an earlier `pattern`.
 */
export const mergeRefinements = (from: Json, json: Json, v: View): Json => {
  const out: Json = { ...from, ...jsonAnnotations(v, v.annotations), ...json }
  let allOf: Array<unknown> = Array.isArray(out.allOf) ? [...out.allOf] : []
  const handle = (name: string, keep: (member: Json) => boolean) => {
    if (name in json && name in from) {
      allOf.unshift({ [name]: from[name] })
      allOf = allOf.filter((member) => !isRecord(member) || !(name in member) || keep(member))
    }
  }
  const num = (u: unknown): number => (typeof u === "number" ? u : Number.NaN)
  handle("minLength", (i) => num(i.minLength) > num(json.minLength))
  handle("maxLength", (i) => num(i.maxLength) < num(json.maxLength))
  handle("pattern", (i) => i.pattern !== json.pattern)
  handle("minItems", (i) => num(i.minItems) > num(json.minItems))
  handle("maxItems", (i) => num(i.maxItems) < num(json.maxItems))
  handle("minimum", (i) => num(i.minimum) > num(json.minimum))
  handle("maximum", (i) => num(i.maximum) < num(json.maximum))
  handle("exclusiveMinimum", (i) => num(i.exclusiveMinimum) > num(json.exclusiveMinimum))
  handle("exclusiveMaximum", (i) => num(i.exclusiveMaximum) < num(json.exclusiveMaximum))
  handle("multipleOf", (i) => i.multipleOf !== json.multipleOf)
  if (allOf.length === 0) delete out.allOf
  else out.allOf = allOf
  return out
}

/** A union without its `undefined` members (an optional field's), as Effect 3 pruned it. */
export const pruneUndefined = (v: View): View | undefined => {
  if (jsonSchemaOf(v) !== undefined) return undefined
  switch (v._tag) {
    case "UndefinedKeyword":
      return { _tag: "NeverKeyword", annotations: {}, ast: v.ast }
    case "Union": {
      const types: Array<View> = []
      let hasUndefined = false
      for (const type of v.types) {
        const pruned = pruneUndefined(type)
        if (pruned !== undefined) {
          hasUndefined = true
          if (pruned._tag !== "NeverKeyword") types.push(pruned)
        } else {
          types.push(type)
        }
      }
      if (!hasUndefined) return undefined
      const [only] = types
      if (types.length === 1 && only !== undefined) return only
      return types.length === 0
        ? { _tag: "NeverKeyword", annotations: {}, ast: v.ast }
        : { _tag: "Union", types, annotations: {}, ast: v.ast }
    }
    case "Suspend":
      return pruneUndefined(v.f())
    case "Transformation":
      return pruneUndefined(v.from)
    default:
      return undefined
  }
}

export const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((key) => `[${typeof key === "string" ? JSON.stringify(key) : String(key)}]`).join("")

/** Effect 3's error for a schema it could not write as JSON Schema. */
export const missingAnnotation = (details: string, path: ReadonlyArray<PropertyKey>, v: View): Error => {
  const at = path.length > 0 ? `\nat path: ${formatPath(path)}` : ""
  return new Error(`Missing annotation${at}\ndetails: ${details}\nschema (${v.ast._tag}): ${format(v)}`)
}

export const requiresJsonSchema = 'Generating a JSON Schema for this schema requires a "jsonSchema" annotation'

export const isNever = (json: Json): boolean => json === constNever
const idIs = (json: Json, id: string): boolean => json.$id === id

const isCompactableLiteral = (json: Json | undefined): json is Json =>
  json !== undefined && Array.isArray(json.enum) && "type" in json && Object.keys(json).length === 2

/** A union's members: `never` dropped, `any`-like ones absorbing the rest, literals of one type merged. */
export const compactUnion = (members: ReadonlyArray<Json>): Array<Json> => {
  const out: Array<Json> = []
  for (const m of members) {
    if (isNever(m)) continue
    if (idIs(m, "/schemas/any") || idIs(m, "/schemas/unknown") || idIs(m, "/schemas/void")) return [m]
    const last = out[out.length - 1]
    if (isCompactableLiteral(m) && isCompactableLiteral(last) && last.type === m.type && Array.isArray(last.enum) && Array.isArray(m.enum)) {
      out[out.length - 1] = { type: last.type, enum: [...last.enum, ...m.enum] }
      continue
    }
    out.push(m)
  }
  return out
}
