/**
 * The parameter JSON Schema of a tool, generated from its Effect Schema: inlined (no `$ref`),
 * with field descriptions and defaults, and without the `$schema` header model APIs reject.
 *
 * @since 0.1.0
 */
import * as JSONSchema from "effect/JSONSchema"
import * as Option from "effect/Option"
import type * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import type { JsonSchema } from "./ToolSpec.js"

const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const REF_PREFIX = "#/$defs/"

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
    // a JSON pointer: `~1` and `~0` escape "/" and "~" (Effect escapes nothing else)
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
 * Merges the members of an `allOf` into the schema where no keyword conflicts (Effect emits
 * `{ allOf: [{ type: "integer", minimum: 1 }], default: 30 }` for a refined defaulted field,
 * and model APIs want the `type` at the top). Conflicting members (two `pattern`s) stay.
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

/** What a struct's transformation adds to its encoded fields: defaults and type-side descriptions. */
interface FieldExtras {
  readonly defaults: ReadonlyMap<string, unknown>
  readonly descriptions: ReadonlyMap<string, string>
}

const noExtras: FieldExtras = { defaults: new Map(), descriptions: new Map() }

const descriptionOf = (annotated: SchemaAST.Annotated): string | undefined => {
  const d = annotated.annotations[SchemaAST.DescriptionAnnotationId]
  return typeof d === "string" ? d : undefined
}

/**
 * The extras of a struct transformation (`Schema.optionalWith(X, { default })` fields):
 * each default read by decoding a missing key, each type-side property description, both
 * keyed by the encoded field name.
 */
const extrasOf = (ast: SchemaAST.Transformation, outer: FieldExtras): FieldExtras => {
  if (!SchemaAST.isTypeLiteralTransformation(ast.transformation)) return outer
  const defaults = new Map(outer.defaults)
  const descriptions = new Map(outer.descriptions)
  const encodedName = new Map<PropertyKey, PropertyKey>()
  for (const pst of ast.transformation.propertySignatureTransformations) {
    encodedName.set(pst.to, pst.from)
    if (typeof pst.from !== "string") continue
    const value = pst.decode(Option.none())
    if (Option.isSome(value) && !defaults.has(pst.from)) defaults.set(pst.from, value.value)
  }
  const typeSide = SchemaAST.typeAST(ast.to)
  if (typeSide._tag === "TypeLiteral") {
    for (const ps of typeSide.propertySignatures) {
      const name = encodedName.get(ps.name) ?? ps.name
      const d = descriptionOf(ps)
      if (typeof name === "string" && d !== undefined && !descriptions.has(name)) descriptions.set(name, d)
    }
  }
  return { defaults, descriptions }
}

/** The struct (type literal) an AST encodes to, through refinements and transformations. */
const encodedTypeLiteral = (ast: SchemaAST.AST): SchemaAST.TypeLiteral | undefined => {
  switch (ast._tag) {
    case "TypeLiteral":
      return ast
    case "Refinement":
    case "Transformation":
      return encodedTypeLiteral(ast.from)
    default:
      return undefined
  }
}

const sameKeys = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean =>
  a.length === b.length && a.every((k) => b.includes(k))

/**
 * Walks the JSON Schema beside the AST it was made from, adding what `JSONSchema.make` leaves
 * out at every depth: defaults of `optionalWith(..., { default })` fields and descriptions set
 * on property signatures (`Schema.optional(X).annotations({ description })`).
 */
const annotate = (node: unknown, ast: SchemaAST.AST, extras: FieldExtras): unknown => {
  if (!isRecord(node)) return node
  switch (ast._tag) {
    case "Refinement":
      return annotate(node, ast.from, extras)
    case "Transformation":
      return annotate(node, ast.from, extrasOf(ast, extras))
    case "TypeLiteral":
      return annotateObject(node, ast, extras)
    case "Union":
      return annotateUnion(node, ast)
    case "TupleType":
      return annotateArray(node, ast)
    default:
      return node
  }
}

const annotateObject = (node: Record<string, unknown>, ast: SchemaAST.TypeLiteral, extras: FieldExtras) => {
  if (!isRecord(node.properties)) return node
  const properties: Record<string, unknown> = { ...node.properties }
  for (const ps of ast.propertySignatures) {
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

const annotateUnion = (node: Record<string, unknown>, ast: SchemaAST.Union) => {
  const members = ast.types.filter((t) => t._tag !== "UndefinedKeyword")
  const alternatives = node.anyOf
  if (!Array.isArray(alternatives)) {
    const only = members.length === 1 ? members[0] : undefined
    return only === undefined ? node : annotate(node, only, noExtras)
  }
  const anyOf = alternatives.map((alt, i) => {
    if (alternatives.length === members.length) {
      const member = members[i]
      return member === undefined ? alt : annotate(alt, member, noExtras)
    }
    // literals are merged into one `enum`, so match the struct members by their keys
    if (!isRecord(alt) || !isRecord(alt.properties)) return alt
    const keys = Object.keys(alt.properties)
    const member = members.find((m) => {
      const literal = encodedTypeLiteral(m)
      // (the `[]` for a symbol key is not reached: JSONSchema.make refuses a struct with one)
      return literal !== undefined &&
        sameKeys(keys, literal.propertySignatures.flatMap((ps) => typeof ps.name === "string" ? [ps.name] : []))
    })
    return member === undefined ? alt : annotate(alt, member, noExtras)
  })
  return { ...node, anyOf }
}

/** An array's items (`items`), or a tuple's: its elements (`items`, a list) and its rest (`additionalItems`). */
const annotateArray = (node: Record<string, unknown>, ast: SchemaAST.TupleType) => {
  const out: Record<string, unknown> = { ...node }
  const rest = ast.rest[0]
  for (const key of ["items", "additionalItems"] as const) {
    const value = node[key]
    if (isRecord(value) && rest !== undefined) out[key] = annotate(value, rest.type, noExtras)
  }
  const elements = node.items
  if (Array.isArray(elements)) {
    out.items = elements.map((item, i) => {
      const element = ast.elements[i]
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
export const parametersJsonSchema = (schema: Schema.Schema.Any): JsonSchema => {
  const literal = encodedTypeLiteral(schema.ast)
  if (literal !== undefined && literal.propertySignatures.length === 0 && literal.indexSignatures.length === 0) {
    return EMPTY_OBJECT
  }
  const raw: unknown = JSONSchema.make(schema)
  const defs = isRecord(raw) && isRecord(raw.$defs) ? raw.$defs : {}
  const inlined = annotate(inline(raw, defs, []), schema.ast, noExtras)
  if (!isRecord(inlined) || inlined.type !== "object") {
    throw new Error("parameters must be a struct schema (a JSON object)")
  }
  return {
    ...inlined,
    properties: isRecord(inlined.properties) ? inlined.properties : {},
    required: Array.isArray(inlined.required) ? inlined.required : []
  }
}
