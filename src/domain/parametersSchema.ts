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
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { JsonSchema } from "./ToolSpec.js"
import {
  format,
  type View,
  type ViewAnnotations,
  type ViewProperty,
  type ViewTransformation,
  type ViewTupleType,
  type ViewTypeLiteral,
  type ViewUnion,
  view
} from "./schemaView.js"

type Json = Record<string, unknown>

const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const REF_PREFIX = "#/$defs/"

// -------------------------------------------------------------------------------------------------
// Effect 3's JSONSchema.make, on the view
// -------------------------------------------------------------------------------------------------

const constNever: Json = { $id: "/schemas/never", not: {} }
const constAny: Json = { $id: "/schemas/any" }
const constUnknown: Json = { $id: "/schemas/unknown" }
const constVoid: Json = { $id: "/schemas/void" }
const constObject: Json = { $id: "/schemas/object", anyOf: [{ type: "object" }, { type: "array" }] }
const constEmptyStruct: Json = { $id: "/schemas/%7B%7D", anyOf: [{ type: "object" }, { type: "array" }] }

/** A JSON value (what a `default` or an example may be), plain objects only, no cycles. */
const isJsonValue = (value: unknown, visited: Set<unknown> = new Set()): boolean => {
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
const jsonAnnotations = (v: View, annotations: ViewAnnotations): Json | undefined => {
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
const addAnnotations = (json: Json, annotations: Json | undefined): Json => {
  if (annotations === undefined || Object.keys(annotations).length === 0) return json
  if ("$ref" in json) return { allOf: [json], ...annotations }
  return { ...json, ...annotations }
}

const addViewAnnotations = (json: Json, v: View): Json => addAnnotations(json, jsonAnnotations(v, v.annotations))

const jsonSchemaOf = (v: View): Json | undefined => {
  const hook = v.annotations.jsonSchema
  return isRecord(hook) ? hook : undefined
}

const identifierOf = (v: View): string | undefined => {
  const id = v.annotations.jsonIdentifier ?? v.annotations.identifier
  if (typeof id === "string") return id
  return v._tag === "Suspend" ? identifierOf(v.f()) : undefined
}

/** Whether a hand-written JSON Schema replaces the generated one rather than adding to it. */
const isOverride = (v: View, json: Json): boolean => {
  if (v._tag === "Refinement" && v.isInt) return "type" in json && json.type !== "integer"
  return "type" in json || "oneOf" in json || "anyOf" in json || "$ref" in json
}

/** The encoded side under a refinement's checks, when the schema it refines has an encoding. */
const transformationFrom = (v: View): View | undefined => {
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

/** A refinement's keywords over those of the schema it refines; keywords it narrows stay in `allOf`. */
const mergeRefinements = (from: Json, json: Json, v: View): Json => {
  const out: Json = { ...from, ...jsonAnnotations(v, v.annotations), ...json }
  let allOf: Array<unknown> = Array.isArray(out.allOf) ? [...out.allOf] : []
  const handle = (name: string, keep: (member: Json) => boolean) => {
    if (name in json && name in from) {
      allOf.unshift({ [name]: from[name] })
      allOf = allOf.filter((member) => !isRecord(member) || keep(member))
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
const pruneUndefined = (v: View): View | undefined => {
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

const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((key) => `[${typeof key === "string" ? JSON.stringify(key) : String(key)}]`).join("")

/** Effect 3's error for a schema it could not write as JSON Schema. */
const missingAnnotation = (details: string, path: ReadonlyArray<PropertyKey>, v: View): Error => {
  const at = path.length > 0 ? `\nat path: ${formatPath(path)}` : ""
  return new Error(`Missing annotation${at}\ndetails: ${details}\nschema (${v.ast._tag}): ${format(v)}`)
}

const requiresJsonSchema = 'Generating a JSON Schema for this schema requires a "jsonSchema" annotation'

const isNever = (json: Json): boolean => json === constNever
const idIs = (json: Json, id: string): boolean => json.$id === id

const isCompactableLiteral = (json: Json | undefined): json is Json =>
  json !== undefined && Array.isArray(json.enum) && "type" in json && Object.keys(json).length === 2

/** A union's members: `never` dropped, `any`-like ones absorbing the rest, literals of one type merged. */
const compactUnion = (members: ReadonlyArray<Json>): Array<Json> => {
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

interface Go {
  readonly defs: Record<string, Json>
  readonly errors: boolean
}

const go = (v: View, state: Go, identifier: boolean, path: ReadonlyArray<PropertyKey>, annotation = true): Json => {
  if (identifier) {
    const id = identifierOf(v)
    if (id !== undefined) {
      const out: Json = { $ref: REF_PREFIX + id.replace(/~/g, "~0").replace(/\//g, "~1") }
      if (!Object.hasOwn(state.defs, id)) {
        state.defs[id] = out
        state.defs[id] = go(v, state, false, path)
      }
      return out
    }
  }
  if (annotation) {
    const hook = jsonSchemaOf(v)
    if (hook !== undefined) {
      if (isOverride(v, hook)) return v._tag === "Declaration" ? addViewAnnotations(hook, v) : hook
      if (v._tag === "Refinement") {
        const t = transformationFrom(v)
        return t === undefined ? mergeRefinements(go(v.from, state, identifier, path), hook, v) : go(t, state, identifier, path)
      }
      return { ...go(v, state, identifier, path, false), ...hook }
    }
  }
  switch (v._tag) {
    case "Declaration":
    case "UndefinedKeyword":
    case "BigIntKeyword":
    case "UniqueSymbol":
    case "SymbolKeyword":
      if (!state.errors) return addViewAnnotations(constAny, v)
      throw missingAnnotation(requiresJsonSchema, path, v)
    case "Suspend":
      if (identifier) {
        if (!state.errors) return addViewAnnotations(constAny, v)
        throw missingAnnotation('Generating a JSON Schema for this schema requires an "identifier" annotation', path, v)
      }
      return go(v.f(), state, false, path)
    case "NeverKeyword":
      return addViewAnnotations(constNever, v)
    case "VoidKeyword":
      return addViewAnnotations(constVoid, v)
    case "UnknownKeyword":
      return addViewAnnotations(constUnknown, v)
    case "AnyKeyword":
      return addViewAnnotations(constAny, v)
    case "ObjectKeyword":
      return addViewAnnotations(constObject, v)
    case "StringKeyword":
      return addViewAnnotations({ type: "string" }, v)
    case "NumberKeyword":
      return addViewAnnotations({ type: "number" }, v)
    case "BooleanKeyword":
      return addViewAnnotations({ type: "boolean" }, v)
    case "Literal": {
      const literal = v.literal
      if (literal === null) return addViewAnnotations({ type: "null" }, v)
      if (typeof literal === "string") return addViewAnnotations({ type: "string", enum: [literal] }, v)
      if (typeof literal === "number") return addViewAnnotations({ type: "number", enum: [literal] }, v)
      if (typeof literal === "boolean") return addViewAnnotations({ type: "boolean", enum: [literal] }, v)
      if (!state.errors) return addViewAnnotations(constAny, v)
      throw missingAnnotation(requiresJsonSchema, path, v)
    }
    case "Enums": {
      const anyOf = v.enums.map(([title, value]) => ({ type: typeof value === "number" ? "number" : "string", title, enum: [value] }))
      return anyOf.length >= 1 ? addViewAnnotations({ $comment: "/schemas/enums", anyOf }, v) : addViewAnnotations(constNever, v)
    }
    case "TupleType":
      return tuple(v, state, path)
    case "TypeLiteral":
      return typeLiteral(v, state, path)
    case "Union": {
      const anyOf = compactUnion(v.types.map((t) => go(t, state, true, path)))
      const [only] = anyOf
      if (only === undefined) return constNever
      return anyOf.length === 1 ? addViewAnnotations(only, v) : addViewAnnotations({ anyOf }, v)
    }
    case "Refinement":
      return go(v.from, state, identifier, path)
    case "TemplateLiteral":
      return addViewAnnotations({ type: "string", title: v.text, description: "a template literal", pattern: v.pattern }, v)
    case "Transformation":
      return transformation(v, state, identifier, path)
  }
}

/** A property's or element's own annotations, for its schema `type`. */
const contextAnnotations = (type: View, annotations: ViewAnnotations): Json | undefined => jsonAnnotations(type, annotations)

const tuple = (v: ViewTupleType, state: Go, path: ReadonlyArray<PropertyKey>): Json => {
  const elements = v.elements.map((e, i) =>
    addAnnotations(go(e.type, state, true, [...path, i]), contextAnnotations(e.type, e.annotations))
  )
  const rest = v.rest.map((r) => addAnnotations(go(r.type, state, true, path), contextAnnotations(r.type, r.annotations)))
  const output: Json = { type: "array" }
  const len = v.elements.length
  if (len > 0) {
    output.minItems = len - v.elements.filter((e) => e.isOptional).length
    output.items = elements
  }
  const [head] = rest
  if (head !== undefined) {
    const isHomogeneous = rest.length === 1 && v.elements.every((e) => e.type === v.rest[0]?.type)
    if (isHomogeneous) output.items = head
    else output.additionalItems = head
    if (rest.length > 1) {
      if (!state.errors) return addViewAnnotations(constAny, v)
      const at = path.length > 0 ? `\nat path: ${formatPath(path)}` : ""
      throw new Error(
        "Generating a JSON Schema for post-rest elements is not currently supported. You're welcome to contribute by submitting a Pull Request" +
          at
      )
    }
  } else if (len > 0) {
    output.additionalItems = false
  } else {
    output.maxItems = 0
  }
  return addViewAnnotations(output, v)
}

const typeLiteral = (v: ViewTypeLiteral, state: Go, path: ReadonlyArray<PropertyKey>): Json => {
  if (v.propertySignatures.length === 0 && v.indexSignatures.length === 0) return addViewAnnotations(constEmptyStruct, v)
  const required: Array<string> = []
  const properties: Json = {}
  const output: Json = { type: "object", required, properties, additionalProperties: false }
  let patternProperties: Json | undefined
  let propertyNames: Json | undefined
  for (const is of v.indexSignatures) {
    const pruned = pruneUndefined(is.type) ?? is.type
    switch (is.parameter._tag) {
      case "StringKeyword": {
        const additional = go(pruned, state, true, path)
        output.additionalProperties = isNever(additional) ? false : additional
        break
      }
      case "TemplateLiteral":
        patternProperties = go(pruned, state, true, path)
        propertyNames = { type: "string", pattern: is.parameter.pattern }
        break
      case "Refinement":
        patternProperties = go(pruned, state, true, path)
        propertyNames = go(is.parameter, state, true, path)
        break
      case "SymbolKeyword":
        output.additionalProperties = go(pruned, state, true, [...path, "[symbol]"])
        propertyNames = go(is.parameter, state, true, [...path, "[symbol]"])
        break
    }
  }
  for (const ps of v.propertySignatures) {
    if (typeof ps.name !== "string") {
      if (!state.errors) return addViewAnnotations(constAny, v)
      const at = path.length > 0 ? `\nat path: ${formatPath(path)}` : ""
      throw new Error(`Unsupported key${at}\ndetails: Cannot encode ${String(ps.name)} key to JSON Schema`)
    }
    const pruned = pruneUndefined(ps.type)
    const type = pruned ?? ps.type
    properties[ps.name] = addAnnotations(go(type, state, true, [...path, ps.name]), contextAnnotations(type, ps.annotations))
    if (!ps.isOptional && pruned === undefined) required.push(ps.name)
  }
  if (patternProperties !== undefined) {
    delete output.additionalProperties
    output.patternProperties = { "": patternProperties }
  }
  if (propertyNames !== undefined) output.propertyNames = propertyNames
  return addViewAnnotations(output, v)
}

const isJsonObject = (json: unknown): json is Json & { readonly properties: Json } =>
  isRecord(json) && json.type === "object" && isRecord(json.properties)

const transformation = (v: ViewTransformation, state: Go, identifier: boolean, path: ReadonlyArray<PropertyKey>): Json => {
  const from = go(v.from, state, identifier, path)
  if (v.properties !== undefined && isJsonObject(from)) {
    const to = go(v.to, { defs: {}, errors: false }, false, path)
    if (isJsonObject(to)) {
      const fromProperties: Json = { ...from.properties }
      for (const t of v.properties) {
        if (typeof t.to !== "string" || typeof t.from !== "string") continue
        const toProperty = to.properties[t.to]
        const fromProperty = fromProperties[t.from]
        if (!isRecord(toProperty) || !isRecord(fromProperty)) continue
        const annotations: Json = {}
        if (typeof toProperty.title === "string") annotations.title = toProperty.title
        if (typeof toProperty.description === "string") annotations.description = toProperty.description
        if (Array.isArray(toProperty.examples)) annotations.examples = toProperty.examples
        if (Object.hasOwn(toProperty, "default") && toProperty.default !== undefined) annotations.default = toProperty.default
        fromProperties[t.from] = addAnnotations(fromProperty, annotations)
      }
      return addViewAnnotations({ ...from, properties: fromProperties }, v)
    }
  }
  return addViewAnnotations(from, v)
}

// -------------------------------------------------------------------------------------------------
// Inlining
// -------------------------------------------------------------------------------------------------

/** Keywords of a schema the generated one leaves out: headers and references, inlined here. */
const DROPPED = new Set(["$schema", "$defs", "$ref", "$id"])

/** Keywords whose value is data (a default, examples), not a schema: copied as they are. */
const DATA = new Set(["default", "examples", "const", "enum"])

/**
 * Replaces every `$ref` into `$defs` by the definition itself; refuses recursive schemas.
 * `namesMap`: `node` maps property names to schemas (`properties`), whose keys are names,
 * not keywords, whatever they are called (`$id`, `title`).
 */
const inline = (node: unknown, defs: Record<string, unknown>, seen: ReadonlyArray<string>, namesMap = false): unknown => {
  if (Array.isArray(node)) return node.map((n) => inline(n, defs, seen))
  return isRecord(node) ? inlineObject(node, defs, seen, namesMap) : node
}

const inlineObject = (
  node: Record<string, unknown>,
  defs: Record<string, unknown>,
  seen: ReadonlyArray<string>,
  namesMap: boolean
): Record<string, unknown> => {
  let base = node
  if (typeof node.$ref === "string" && node.$ref.startsWith(REF_PREFIX)) {
    // a JSON pointer: `~1` and `~0` escape "/" and "~" (nothing else is escaped)
    const id = node.$ref.slice(REF_PREFIX.length).replace(/~1/g, "/").replace(/~0/g, "~")
    if (seen.includes(id)) throw new Error(`recursive schema "${id}" cannot be inlined`)
    const def = defs[id]
    if (!isRecord(def)) throw new Error(`missing definition "${id}"`)
    const { $ref: _ref, ...rest } = node
    // the annotations beside the reference (a description) win over the definition's
    base = { ...inlineObject(def, defs, [...seen, id], false), ...rest }
  }
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(base)) {
    if (namesMap) {
      out[k] = inline(v, defs, seen)
      continue
    }
    if (DROPPED.has(k)) continue
    // Effect titles refinements ("int", "minLength(1)"): noise for a model, so schema titles go.
    if (k === "title" && typeof v === "string") continue
    out[k] = DATA.has(k) ? v : inline(v, defs, seen, k === "properties" || k === "patternProperties")
  }
  return flattenAllOf(out)
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/**
 * Merges the members of an `allOf` into the schema where no keyword conflicts (a refined
 * defaulted field is `{ allOf: [{ type: "integer", minimum: 1 }], default: 30 }`, and model
 * APIs want the `type` at the top). Conflicting members (two `pattern`s) stay.
 */
const flattenAllOf = (node: Record<string, unknown>): Record<string, unknown> => {
  if (!Array.isArray(node.allOf)) return node
  const { allOf, ...out } = node
  const kept: Array<unknown> = []
  for (const member of allOf) {
    const conflict = !isRecord(member) ||
      Object.keys(member).some((k) => k in out && k !== "description" && k !== "title" && !sameJson(out[k], member[k]))
    if (conflict || !isRecord(member)) {
      kept.push(member)
      continue
    }
    for (const [k, v] of Object.entries(member)) if (!(k in out)) out[k] = v
  }
  return kept.length > 0 ? { ...out, allOf: kept } : out
}

// -------------------------------------------------------------------------------------------------
// Defaults and property descriptions at every depth
// -------------------------------------------------------------------------------------------------

/** What a struct's transformation adds to its encoded fields: defaults and type-side descriptions. */
interface FieldExtras {
  readonly defaults: ReadonlyMap<string, unknown>
  readonly descriptions: ReadonlyMap<string, string>
}

const noExtras: FieldExtras = { defaults: new Map(), descriptions: new Map() }

const descriptionOf = (ps: ViewProperty): string | undefined => {
  const d = ps.annotations.description
  return typeof d === "string" ? d : undefined
}

/** The decoded struct of a transformation's type side, through the transformations it holds. */
const typeSideLiteral = (v: View): ViewTypeLiteral | undefined =>
  v._tag === "TypeLiteral" ? v : v._tag === "Transformation" ? typeSideLiteral(v.to) : undefined

/**
 * The extras of a struct transformation (fields with a decoding default, renamed keys): each
 * default read by decoding a missing key, each type-side property description, both keyed by
 * the encoded field name.
 */
const extrasOf = (v: ViewTransformation, outer: FieldExtras): FieldExtras => {
  if (v.properties === undefined) return outer
  const defaults = new Map(outer.defaults)
  const descriptions = new Map(outer.descriptions)
  const encodedName = new Map<PropertyKey, PropertyKey>()
  for (const t of v.properties) {
    encodedName.set(t.to, t.from)
    if (typeof t.from !== "string") continue
    const value = t.decodeMissing()
    if (Option.isSome(value) && !defaults.has(t.from)) defaults.set(t.from, value.value)
  }
  for (const ps of typeSideLiteral(v.to)?.propertySignatures ?? []) {
    const name = encodedName.get(ps.name) ?? ps.name
    const d = descriptionOf(ps)
    if (typeof name === "string" && d !== undefined && !descriptions.has(name)) descriptions.set(name, d)
  }
  return { defaults, descriptions }
}

/** The struct a schema encodes to, through refinements and transformations. */
const encodedTypeLiteral = (v: View): ViewTypeLiteral | undefined => {
  switch (v._tag) {
    case "TypeLiteral":
      return v
    case "Refinement":
    case "Transformation":
      return encodedTypeLiteral(v.from)
    default:
      return undefined
  }
}

const sameKeys = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean =>
  a.length === b.length && a.every((k) => b.includes(k))

/**
 * Walks the JSON Schema beside the schema it was made from, adding what Effect 3's
 * `JSONSchema.make` left out at every depth: defaults of fields with a decoding default and
 * descriptions set on keys (`Schema.optional(X).annotateKey({ description })`).
 */
const annotate = (node: unknown, v: View, extras: FieldExtras): unknown => {
  if (!isRecord(node)) return node
  switch (v._tag) {
    case "Refinement":
      return annotate(node, v.from, extras)
    case "Transformation":
      return annotate(node, v.from, extrasOf(v, extras))
    case "TypeLiteral":
      return annotateObject(node, v, extras)
    case "Union":
      return annotateUnion(node, v)
    case "TupleType":
      return annotateArray(node, v)
    default:
      return node
  }
}

const annotateObject = (node: Record<string, unknown>, v: ViewTypeLiteral, extras: FieldExtras) => {
  if (!isRecord(node.properties)) return node
  const properties: Record<string, unknown> = { ...node.properties }
  for (const ps of v.propertySignatures) {
    if (typeof ps.name !== "string") continue
    const prop = annotate(properties[ps.name], ps.type, noExtras)
    if (!isRecord(prop)) continue
    const out: Record<string, unknown> = { ...prop }
    const description = descriptionOf(ps) ?? extras.descriptions.get(ps.name)
    if (description !== undefined) out.description = description
    if (extras.defaults.has(ps.name) && !("default" in out)) out.default = extras.defaults.get(ps.name)
    properties[ps.name] = out
  }
  return { ...node, properties }
}

const annotateUnion = (node: Record<string, unknown>, v: ViewUnion) => {
  const members = v.types.filter((t) => t._tag !== "UndefinedKeyword")
  const alternatives = node.anyOf
  if (!Array.isArray(alternatives)) {
    const only = members.length === 1 ? members[0] : undefined
    return only === undefined ? node : annotate(node, only, noExtras)
  }
  const anyOf = alternatives.map((alt: unknown, i) => {
    if (alternatives.length === members.length) {
      const member = members[i]
      return member === undefined ? alt : annotate(alt, member, noExtras)
    }
    // literals are merged into one `enum`, so match the struct members by their keys
    if (!isRecord(alt) || !isRecord(alt.properties)) return alt
    const keys = Object.keys(alt.properties)
    const member = members.find((m) => {
      const literal = encodedTypeLiteral(m)
      // (the `[]` for a symbol key is not reached: a struct with one has no JSON Schema)
      return literal !== undefined &&
        sameKeys(keys, literal.propertySignatures.flatMap((ps) => typeof ps.name === "string" ? [ps.name] : []))
    })
    return member === undefined ? alt : annotate(alt, member, noExtras)
  })
  return { ...node, anyOf }
}

/** An array's items (`items`), or a tuple's: its elements (`items`, a list) and its rest (`additionalItems`). */
const annotateArray = (node: Record<string, unknown>, v: ViewTupleType) => {
  const out: Record<string, unknown> = { ...node }
  const rest = v.rest[0]
  for (const key of ["items", "additionalItems"] as const) {
    const value = node[key]
    if (isRecord(value) && rest !== undefined) out[key] = annotate(value, rest.type, noExtras)
  }
  const elements = node.items
  if (Array.isArray(elements)) {
    out.items = elements.map((item: unknown, i) => {
      const element = v.elements[i]
      return element === undefined ? item : annotate(item, element.type, noExtras)
    })
  }
  return out
}

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
