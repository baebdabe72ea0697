/**
 * The defaults and property descriptions of every level of a parameters schema, written into
 * its inlined JSON Schema as Effect 3's tool layer did.
 *
 * @since 1.0.0
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import {
  type View,
  type ViewProperty,
  type ViewTransformation,
  type ViewTupleType,
  type ViewTypeLiteral,
  type ViewUnion
} from "./schemaView.js"
import { addViewAnnotations, constNever, isJsonValue, isRecord, jsonSchemaOf } from "./jsonSchemaParts.js"

// -------------------------------------------------------------------------------------------------
// Defaults and property descriptions at every depth
// -------------------------------------------------------------------------------------------------

/** What a struct's transformation adds to its encoded fields: defaults and type-side descriptions. */
interface FieldExtras {
  readonly defaults: ReadonlyMap<string, unknown>
  readonly descriptions: ReadonlyMap<string, string>
}

export const noExtras: FieldExtras = { defaults: new Map(), descriptions: new Map() }

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
    const value = t.missingDefault()
    // a default with no JSON form (a bigint or a Date its schema keeps as one) is left out, not sent broken
    if (Option.isSome(value) && isJsonValue(value.value) && !defaults.has(t.from)) defaults.set(t.from, value.value)
  }
  for (const ps of typeSideLiteral(v.to)?.propertySignatures ?? []) {
    const name = encodedName.get(ps.name) ?? ps.name
    const d = descriptionOf(ps)
    if (typeof name === "string" && d !== undefined && !descriptions.has(name)) descriptions.set(name, d)
  }
  return { defaults, descriptions }
}

/** The struct a schema encodes to, through refinements and transformations. */
export const encodedTypeLiteral = (v: View): ViewTypeLiteral | undefined => {
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
export const annotate = (node: unknown, v: View, extras: FieldExtras): unknown => {
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

/**
 * Whether a union member has no alternative of its own in the union's JSON Schema: `undefined`
 * (an optional field's), and a plain `Never`, which the JSON Schema leaves out of a union.
 */
const leftOutOfUnion = (t: View): boolean =>
  t._tag === "UndefinedKeyword" ||
  (t._tag === "NeverKeyword" && jsonSchemaOf(t) === undefined && addViewAnnotations(constNever, t) === constNever)

const annotateUnion = (node: Record<string, unknown>, v: ViewUnion) => {
  const members = v.types.filter((t) => !leftOutOfUnion(t))
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
