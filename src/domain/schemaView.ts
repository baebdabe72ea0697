/**
 * A tool's parameter schema seen as the library described it on Effect 3, so that what a model
 * is sent (the parameter JSON Schema) and what it reads back (the argument problem lines) stay
 * as they were. Effect 4's AST keeps a node's checks and its encoding on the node itself;
 * Effect 3 wrote them as nodes of their own (a refinement per check, a transformation per
 * encoding, a struct transformation for a field whose key is optional on one side only). The
 * view below rebuilds that shape, with each check's title, description and JSON Schema keywords
 * as Effect 3 wrote them, and Effect 3's way of writing a schema as text ("Expected ...").
 *
 * @since 0.4.0
 */
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import * as SchemaParser from "effect/SchemaParser"
import { checkAnnotations, filtersOf } from "./schemaCheckText.js"
import {
  annotationsOf,
  noAnnotations,
  type View,
  type ViewAnnotations,
  type ViewPropertyTransformation,
  type ViewTypeLiteral
} from "./schemaViewModel.js"
import { baseOf, format } from "./schemaViewText.js"

export * from "./schemaCheckText.js"
export * from "./schemaViewModel.js"
export * from "./schemaViewText.js"


/** The annotations of a node's key (Effect 3's property signature annotations). */
const keyAnnotations = (ast: SchemaAST.AST): ViewAnnotations => annotationsOf(ast.context?.annotations)

/**
 * The node at the end of a node's encoding chain (its most encoded side, not its children's).
 *
 * @internal
 */
export const encodedNode = (ast: SchemaAST.AST): SchemaAST.AST => {
  let node = ast
  while (node.encoding !== undefined) {
    const last = node.encoding[node.encoding.length - 1]
    if (last === undefined) break
    node = last.to
  }
  return node
}

/**
 * Whether a field's key is optional on one side and required on the other (a decoding default);
 * a field without an encoding is its own encoded node.
 */
const changesKey = (field: SchemaAST.AST): boolean => SchemaAST.isOptional(field) !== SchemaAST.isOptional(encodedNode(field))

/**
 * The default a missing key takes through `field`, when it has one, as its encoded side writes it
 * (what a model sends: `"1"` for a `BigIntFromString` defaulting to `1n`); none when the default
 * does not encode.
 */
const missingDefault = (field: SchemaAST.AST) => (): Option.Option<unknown> => {
  const struct = Schema.Struct({ value: Schema.make<Schema.Codec<unknown, unknown>>(field) })
  const decoded = SchemaParser.decodeUnknownExit(struct)({})
  if (Exit.isFailure(decoded) || !Object.hasOwn(decoded.value, "value")) return Option.none()
  const encoded = SchemaParser.encodeUnknownExit(struct)(decoded.value)
  return Exit.isSuccess(encoded) && Object.hasOwn(encoded.value, "value") ? Option.some(encoded.value.value) : Option.none()
}

// -------------------------------------------------------------------------------------------------
// The view
// -------------------------------------------------------------------------------------------------

const views = new WeakMap<SchemaAST.AST, View>()

/**
 * How Effect 3 would have built `ast`: its checks as refinements over its encoding over its body.
 *
 * @internal
 */
export const view = (ast: SchemaAST.AST): View => {
  const known = views.get(ast)
  if (known !== undefined) return known
  const filters = filtersOf(ast.checks)
  let out: View = encoded(ast)
  filters.forEach((check) => {
    const annotations = checkAnnotations(check, ast._tag === "Arrays")
    out = {
      _tag: "Refinement",
      from: out,
      annotations,
      ast,
      isInt: check.annotations?.representation?.id === "effect/schema/isInt"
    }
  })
  views.set(ast, out)
  return out
}

/** The view of a node without its checks: a transformation when it has an encoding. */
const encoded = (ast: SchemaAST.AST): View => {
  const last = ast.encoding?.[ast.encoding.length - 1]
  if (last === undefined) return body(ast)
  const to = body(ast)
  const from = view(last.to)
  return {
    _tag: "Transformation",
    from,
    to,
    annotations: ast.checks === undefined ? annotationsOf(ast.annotations) : noAnnotations,
    ast,
    properties: ast._tag === "Objects" ? renamedProperties(ast, last.to) : undefined
  }
}

/**
 * The fields of a struct whose encoding renames keys (`Schema.encodeKeys`): each type-side
 * field found on the encoded side by its encoded schema, with the fields that change keys.
 */
const renamedProperties = (
  ast: SchemaAST.Objects,
  encodedSide: SchemaAST.AST
): ReadonlyArray<ViewPropertyTransformation> | undefined => {
  if (encodedSide._tag !== "Objects") return undefined
  const out: Array<ViewPropertyTransformation> = []
  for (const ps of ast.propertySignatures) {
    const encodedType = SchemaAST.toEncoded(ps.type)
    const found = encodedSide.propertySignatures.find((e) => e.type === encodedType)
    const from = found?.name ?? ps.name
    if (from !== ps.name || changesKey(ps.type)) out.push({ from, to: ps.name, missingDefault: missingDefault(ps.type) })
  }
  return out
}

/** The view of a node's own shape (its checks and encoding aside). */
const body = (ast: SchemaAST.AST): View => {
  // a node's own annotations are its body's: those given after its checks are the checks'
  const annotations = annotationsOf(ast.annotations)
  switch (ast._tag) {
    case "Objects":
      return objects(ast, annotations)
    case "Arrays":
      return {
        _tag: "TupleType",
        elements: ast.elements.map((e) => ({ type: view(e), isOptional: SchemaAST.isOptional(e), annotations: keyAnnotations(e) })),
        rest: ast.rest.map((r) => ({ type: view(r), annotations: noAnnotations })),
        annotations,
        ast
      }
    case "Union":
      return { _tag: "Union", types: ast.types.map(view), annotations, ast }
    case "Suspend":
      return { _tag: "Suspend", f: () => view(ast.thunk()), annotations, ast }
    case "Literal":
      return { _tag: "Literal", literal: ast.literal, annotations, ast }
    case "Null":
      return { _tag: "Literal", literal: null, annotations, ast }
    case "Enum":
      return { _tag: "Enums", enums: ast.enums, annotations, ast }
    case "TemplateLiteral":
      return { _tag: "TemplateLiteral", pattern: templatePattern(ast), text: templateText(ast), annotations, ast }
    case "String":
      return { _tag: "StringKeyword", annotations, ast }
    case "Number":
      return { _tag: "NumberKeyword", annotations, ast }
    case "Boolean":
      return { _tag: "BooleanKeyword", annotations, ast }
    case "Undefined":
      return { _tag: "UndefinedKeyword", annotations, ast }
    case "Void":
      return { _tag: "VoidKeyword", annotations, ast }
    case "Never":
      return { _tag: "NeverKeyword", annotations, ast }
    case "Unknown":
      return { _tag: "UnknownKeyword", annotations, ast }
    case "Any":
      return { _tag: "AnyKeyword", annotations, ast }
    case "BigInt":
      return { _tag: "BigIntKeyword", annotations, ast }
    case "Symbol":
      return { _tag: "SymbolKeyword", annotations, ast }
    case "ObjectKeyword":
      return { _tag: "ObjectKeyword", annotations, ast }
    case "UniqueSymbol":
      return { _tag: "UniqueSymbol", annotations, ast }
    case "Declaration":
      return { _tag: "Declaration", annotations, ast }
  }
}

/**
 * A struct. When a field's key is optional on one side only (a decoding default), Effect 3 made
 * the whole struct a transformation from the encoded fields to the decoded ones.
 */
const objects = (ast: SchemaAST.Objects, annotations: ViewAnnotations): View => {
  const indexSignatures = ast.indexSignatures.map((is) => ({ parameter: view(is.parameter), type: view(is.type) }))
  const changed = ast.propertySignatures.filter((ps) => changesKey(ps.type))
  if (changed.length === 0) {
    return {
      _tag: "TypeLiteral",
      propertySignatures: ast.propertySignatures.map((ps) => ({
        name: ps.name,
        type: view(ps.type),
        isOptional: SchemaAST.isOptional(ps.type),
        annotations: keyAnnotations(ps.type)
      })),
      indexSignatures,
      annotations,
      ast
    }
  }
  // Effect 3's encoded side kept no key annotations (its decoded side has them)
  const from: ViewTypeLiteral = {
    _tag: "TypeLiteral",
    propertySignatures: ast.propertySignatures.map((ps) => {
      const key = changesKey(ps.type) ? encodedNode(ps.type) : ps.type
      return { name: ps.name, type: view(key), isOptional: SchemaAST.isOptional(key), annotations: noAnnotations }
    }),
    indexSignatures,
    annotations: encodedSideTitle,
    ast
  }
  const to: ViewTypeLiteral = {
    _tag: "TypeLiteral",
    propertySignatures: ast.propertySignatures.map((ps) => ({
      name: ps.name,
      type: view(SchemaAST.toType(ps.type)),
      isOptional: SchemaAST.isOptional(ps.type),
      annotations: keyAnnotations(ps.type)
    })),
    indexSignatures,
    annotations: typeSideTitle,
    ast
  }
  return {
    _tag: "Transformation",
    from,
    to,
    annotations,
    ast,
    properties: changed.map((ps) => ({ from: ps.name, to: ps.name, missingDefault: missingDefault(ps.type) }))
  }
}

/** The titles Effect 3 gave the sides of a struct transformation (shown when a value is not an object). */
const encodedSideTitle: ViewAnnotations = { autoTitle: "Struct (Encoded side)" }
const typeSideTitle: ViewAnnotations = { autoTitle: "Struct (Type side)" }

const escapeRegExp = (s: string): string => s.replace(/[/\\^$*+?.()|[\]{}]/g, "\\$&")

/** The pattern Effect 3 gave a template literal (its strings as free text, its numbers as numbers). */
const templatePattern = (ast: SchemaAST.TemplateLiteral): string => {
  const part = (p: SchemaAST.AST): string => {
    switch (p._tag) {
      case "Literal":
        return escapeRegExp(String(p.literal))
      case "Number":
        return "[+-]?\\d*\\.?\\d+(?:[Ee][+-]?\\d+)?"
      case "Union":
        return p.types.map(part).join("|")
      default:
        return "[\\s\\S]*"
    }
  }
  return `^${ast.parts.map((p) => (p._tag === "Literal" ? part(p) : `(${part(p)})`)).join("")}$`
}

const templateText = (ast: SchemaAST.TemplateLiteral): string =>
  "`" + ast.parts.map((p) => (p._tag === "Literal" ? String(p.literal) : `\${${format(view(p))}}`)).join("") + "`"

/**
 * What a node checks a value's type against, its checks and encoding aside (a struct with
 * decoding defaults: its encoded side, as Effect 3 named it).
 *
 * @internal
 */
export const typeOf = (ast: SchemaAST.AST): View => baseOf(body(ast))
