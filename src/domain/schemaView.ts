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
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import * as SchemaParser from "effect/SchemaParser"

/**
 * The brands of a schema, for its text in a message (`string & Brand<"x">`): Effect 4's
 * `Schema.brand` is a type only, so a schema that wants its brand shown says it here.
 *
 * @internal
 */
export const BrandsAnnotationId = "effect-tool-system/brands"

/**
 * Annotations as Effect 3 read them (`title`, `description`, `default`, `jsonSchema`, ...).
 *
 * @internal
 */
export type ViewAnnotations = Readonly<Record<string, unknown>>

const noAnnotations: ViewAnnotations = {}

/**
 * A property of a struct: its name, its schema, whether it may be left out, its own annotations.
 *
 * @internal
 */
export interface ViewProperty {
  readonly name: PropertyKey
  readonly type: View
  readonly isOptional: boolean
  readonly annotations: ViewAnnotations
}

/**
 * A struct field whose key changes between the sides: its encoded and decoded names, its default.
 *
 * @internal
 */
export interface ViewPropertyTransformation {
  readonly from: PropertyKey
  readonly to: PropertyKey
  /** The value a missing key decodes to (`withDecodingDefault*`), if any. */
  readonly decodeMissing: () => Option.Option<unknown>
}

interface Node<Tag extends string> {
  readonly _tag: Tag
  readonly annotations: ViewAnnotations
  /** The Effect 4 node this one stands for (a refinement: the node with all its checks). */
  readonly ast: SchemaAST.AST
}

/**
 * One check of a node, as an Effect 3 refinement over the node's earlier checks.
 *
 * @internal
 */
export interface ViewRefinement extends Node<"Refinement"> {
  readonly from: View
  /** `int`: the refinement of `Schema.Int`, whose `type: "integer"` is not an override. */
  readonly isInt: boolean
}

/**
 * A node with an encoding: `from` is the encoded side, `to` the decoded one.
 *
 * @internal
 */
export interface ViewTransformation extends Node<"Transformation"> {
  readonly from: View
  readonly to: View
  /** Set for a struct whose fields change keys (Effect 3's `TypeLiteralTransformation`). */
  readonly properties: ReadonlyArray<ViewPropertyTransformation> | undefined
}

/**
 * A struct: its properties and index signatures (records).
 *
 * @internal
 */
export interface ViewTypeLiteral extends Node<"TypeLiteral"> {
  readonly propertySignatures: ReadonlyArray<ViewProperty>
  readonly indexSignatures: ReadonlyArray<{ readonly parameter: View; readonly type: View }>
}

/**
 * An array or a tuple: its elements, its rest and the elements after it.
 *
 * @internal
 */
export interface ViewTupleType extends Node<"TupleType"> {
  readonly elements: ReadonlyArray<{ readonly type: View; readonly isOptional: boolean; readonly annotations: ViewAnnotations }>
  readonly rest: ReadonlyArray<{ readonly type: View; readonly annotations: ViewAnnotations }>
}

/**
 * A union of schemas.
 *
 * @internal
 */
export interface ViewUnion extends Node<"Union"> {
  readonly types: ReadonlyArray<View>
}

/**
 * A suspended (recursive) schema.
 *
 * @internal
 */
export interface ViewSuspend extends Node<"Suspend"> {
  readonly f: () => View
}

/**
 * A literal; `null` is one, as on Effect 3.
 *
 * @internal
 */
export interface ViewLiteral extends Node<"Literal"> {
  readonly literal: SchemaAST.LiteralValue | null
}

/**
 * A TypeScript enum.
 *
 * @internal
 */
export interface ViewEnums extends Node<"Enums"> {
  readonly enums: ReadonlyArray<readonly [string, string | number]>
}

/**
 * A template literal string.
 *
 * @internal
 */
export interface ViewTemplateLiteral extends Node<"TemplateLiteral"> {
  /** The pattern Effect 3 gave a template literal. */
  readonly pattern: string
  readonly text: string
}

/**
 * A node Effect 3 wrote as a keyword (`string`, `number`, ...).
 *
 * @internal
 */
export interface ViewKeyword extends
  Node<
    | "StringKeyword"
    | "NumberKeyword"
    | "BooleanKeyword"
    | "UndefinedKeyword"
    | "VoidKeyword"
    | "NeverKeyword"
    | "UnknownKeyword"
    | "AnyKeyword"
    | "BigIntKeyword"
    | "SymbolKeyword"
    | "ObjectKeyword"
    | "UniqueSymbol"
    | "Declaration"
  >
{}

/**
 * A schema as Effect 3 built it.
 *
 * @internal
 */
export type View =
  | ViewRefinement
  | ViewTransformation
  | ViewTypeLiteral
  | ViewTupleType
  | ViewUnion
  | ViewSuspend
  | ViewLiteral
  | ViewEnums
  | ViewTemplateLiteral
  | ViewKeyword

const annotationsOf = (annotations: Schema.Annotations.Annotations | undefined): ViewAnnotations =>
  annotations ?? noAnnotations

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

/** Whether a field's key is optional on one side and required on the other (a decoding default). */
const changesKey = (field: SchemaAST.AST): boolean =>
  field.encoding !== undefined && SchemaAST.isOptional(field) !== SchemaAST.isOptional(encodedNode(field))

/** What a missing key decodes to through `field`: its default, when it has one. */
const decodeMissing = (field: SchemaAST.AST) => (): Option.Option<unknown> => {
  const exit = SchemaParser.decodeUnknownExit(Schema.Struct({ value: Schema.make<Schema.Codec<unknown, unknown>>(field) }))({})
  return Exit.isSuccess(exit) && Object.hasOwn(exit.value, "value") ? Option.some(exit.value.value) : Option.none()
}

// -------------------------------------------------------------------------------------------------
// Checks as Effect 3 wrote them
// -------------------------------------------------------------------------------------------------

/** What Effect 3 gave a built-in check: its title, description and JSON Schema keywords. */
interface CheckText {
  readonly title?: string
  readonly description?: string
  readonly jsonSchema?: Readonly<Record<string, unknown>>
}

const numberOf = (payload: unknown, key: string): number | undefined => {
  const value: unknown = Predicate.isObject(payload) ? Reflect.get(payload, key) : undefined
  return typeof value === "number" ? value : typeof value === "string" ? Number(value) : undefined
}

const stringOf = (payload: unknown, key: string): string | undefined => {
  const value: unknown = Predicate.isObject(payload) ? Reflect.get(payload, key) : undefined
  return typeof value === "string" ? value : undefined
}

/** The bound checks written one way for numbers: `greaterThan(0)` is Effect 3's `positive()`. */
const bound = (
  n: number,
  keyword: string,
  name: string,
  zero: string,
  zeroText: string,
  text: string
): CheckText => ({
  title: n === 0 ? zero : `${name}(${n})`,
  description: n === 0 ? zeroText : `${text} ${n}`,
  jsonSchema: { [keyword]: n }
})

/** Effect 3's texts of an Effect 4 check, by its representation (a length: of an array, or of a string). */
const builtinText = (check: SchemaAST.Filter<unknown>, isArray: boolean): CheckText | undefined => {
  const representation = check.annotations?.representation
  if (representation === undefined) return undefined
  const payload: unknown = representation.payload
  switch (representation.id) {
    case "effect/schema/isInt":
      return { title: "int", description: "an integer", jsonSchema: { type: "integer" } }
    case "effect/schema/isFinite":
      return { title: "finite", description: "a finite number", jsonSchema: {} }
    case "effect/schema/isGreaterThan": {
      const n = numberOf(payload, "exclusiveMinimum") ?? 0
      return bound(n, "exclusiveMinimum", "greaterThan", "positive", "a positive number", "a number greater than")
    }
    case "effect/schema/isGreaterThanOrEqualTo": {
      const n = numberOf(payload, "minimum") ?? 0
      return bound(n, "minimum", "greaterThanOrEqualTo", "nonNegative", "a non-negative number", "a number greater than or equal to")
    }
    case "effect/schema/isLessThan": {
      const n = numberOf(payload, "exclusiveMaximum") ?? 0
      return bound(n, "exclusiveMaximum", "lessThan", "negative", "a negative number", "a number less than")
    }
    case "effect/schema/isLessThanOrEqualTo": {
      const n = numberOf(payload, "maximum") ?? 0
      return bound(n, "maximum", "lessThanOrEqualTo", "nonPositive", "a non-positive number", "a number less than or equal to")
    }
    case "effect/schema/isBetween": {
      const minimum = numberOf(payload, "minimum") ?? 0
      const maximum = numberOf(payload, "maximum") ?? 0
      const exclusiveMinimum = Predicate.isObject(payload) && Reflect.get(payload, "exclusiveMinimum") === true
      const exclusiveMaximum = Predicate.isObject(payload) && Reflect.get(payload, "exclusiveMaximum") === true
      return {
        title: `between(${minimum}, ${maximum})`,
        description: `a number between ${minimum} and ${maximum}`,
        jsonSchema: {
          [exclusiveMinimum ? "exclusiveMinimum" : "minimum"]: minimum,
          [exclusiveMaximum ? "exclusiveMaximum" : "maximum"]: maximum
        }
      }
    }
    case "effect/schema/isMultipleOf": {
      const divisor = numberOf(payload, "divisor") ?? 1
      return { title: `multipleOf(${divisor})`, description: `a number divisible by ${divisor}`, jsonSchema: { multipleOf: divisor } }
    }
    case "effect/schema/isMinLength": {
      const n = numberOf(payload, "minLength") ?? 0
      return isArray
        ? { title: `minItems(${n})`, description: `an array of at least ${n} item(s)`, jsonSchema: { minItems: n } }
        : { title: `minLength(${n})`, description: `a string at least ${n} character(s) long`, jsonSchema: { minLength: n } }
    }
    case "effect/schema/isMaxLength": {
      const n = numberOf(payload, "maxLength") ?? 0
      return isArray
        ? { title: `maxItems(${n})`, description: `an array of at most ${n} item(s)`, jsonSchema: { maxItems: n } }
        : { title: `maxLength(${n})`, description: `a string at most ${n} character(s) long`, jsonSchema: { maxLength: n } }
    }
    case "effect/schema/isBetweenLength": {
      const min = numberOf(payload, "minimum") ?? 0
      const max = numberOf(payload, "maximum") ?? min
      if (isArray) {
        return min === max
          ? { title: `itemsCount(${min})`, description: `an array of exactly ${min} item(s)`, jsonSchema: { minItems: min, maxItems: min } }
          : {
            description: `an array of at least ${min} item(s) and at most ${max} item(s)`,
            jsonSchema: { minItems: min, maxItems: max }
          }
      }
      return min === max
        ? {
          title: `length(${min})`,
          description: min === 1 ? "a single character" : `a string ${min} character(s) long`,
          jsonSchema: { minLength: min, maxLength: min }
        }
        : {
          title: `length({ min: ${min}, max: ${max})`,
          description: `a string at least ${min} character(s) and at most ${max} character(s) long`,
          jsonSchema: { minLength: min, maxLength: max }
        }
    }
    case "effect/schema/isPattern": {
      const source = stringOf(payload, "source") ?? ""
      return { description: `a string matching the pattern ${source}`, jsonSchema: { pattern: source } }
    }
    case "effect/schema/isTrimmed":
      return {
        title: "trimmed",
        description: "a string with no leading or trailing whitespace",
        jsonSchema: { pattern: "^\\S[\\s\\S]*\\S$|^\\S$|^$" }
      }
    case "effect/schema/isStartingWith": {
      const s = stringOf(payload, "startsWith") ?? ""
      const formatted = JSON.stringify(s)
      return { title: `startsWith(${formatted})`, description: `a string starting with ${formatted}`, jsonSchema: { pattern: `^${s}` } }
    }
    case "effect/schema/isEndingWith": {
      const s = stringOf(payload, "endsWith") ?? ""
      const formatted = JSON.stringify(s)
      return { title: `endsWith(${formatted})`, description: `a string ending with ${formatted}`, jsonSchema: { pattern: `^.*${s}$` } }
    }
    case "effect/schema/isIncluding": {
      const s = stringOf(payload, "includes") ?? ""
      const formatted = JSON.stringify(s)
      return { title: `includes(${formatted})`, description: `a string including ${formatted}`, jsonSchema: { pattern: `.*${s}.*` } }
    }
    case "effect/schema/isLowercased":
      return { title: "lowercased", description: "a lowercase string", jsonSchema: { pattern: "^[^A-Z]*$" } }
    case "effect/schema/isUppercased":
      return { title: "uppercased", description: "an uppercase string", jsonSchema: { pattern: "^[^a-z]*$" } }
    case "effect/schema/isCapitalized":
      return { title: "capitalized", description: "a capitalized string", jsonSchema: { pattern: "^[^a-z]?.*$" } }
    case "effect/schema/isUncapitalized":
      return { title: "uncapitalized", description: "a uncapitalized string", jsonSchema: { pattern: "^[^A-Z]?.*$" } }
    default:
      return undefined
  }
}

/** The first check of `Schema.X`, whose refinement Effect 3 named `X` (its `Schema.Int` was a class). */
const namedChecks: ReadonlyArray<readonly [SchemaAST.AST, string, CheckText]> = [
  [Schema.Int.ast, "Int", {}],
  [Schema.Finite.ast, "Finite", {}],
  [Schema.NonEmptyString.ast, "NonEmptyString", { title: "nonEmptyString", description: "a non empty string" }]
]

/**
 * The refinement a check stands for: Effect 3's texts, the check's own annotations over them (a
 * `description` given to the check wins), and the identifier Effect 3 gave `Schema.Int` and
 * its like when the check is theirs.
 */
const checkAnnotations = (check: SchemaAST.Filter<unknown>, isArray: boolean): ViewAnnotations => {
  const out: Record<string, unknown> = {}
  const builtin = builtinText(check, isArray)
  if (builtin?.title !== undefined) out.title = builtin.title
  if (builtin?.description !== undefined) out.description = builtin.description
  if (builtin?.jsonSchema !== undefined) out.jsonSchema = builtin.jsonSchema
  // the very check of `Schema.Int` (annotating it makes a new one, as it lost Effect 3's identifier)
  for (const [named, identifier, text] of namedChecks) {
    if (named.checks?.[0] === check) {
      out.identifier = identifier
      if (text.title !== undefined) out.title = text.title
      if (text.description !== undefined) out.description = text.description
    }
  }
  const own = check.annotations
  for (const key of ["title", "description", "identifier", "jsonSchema", "default", "examples", "message"]) {
    const value = own?.[key]
    if (value !== undefined) out[key] = value
  }
  return out
}

/**
 * A node's checks, one filter each (a group's members in order).
 *
 * @internal
 */
export const filtersOf = (checks: SchemaAST.Checks | undefined): ReadonlyArray<SchemaAST.Filter<unknown>> => {
  const out: Array<SchemaAST.Filter<unknown>> = []
  const add = (check: SchemaAST.Check<unknown>): void => {
    if (check._tag === "Filter") out.push(check)
    else for (const member of check.checks) add(member)
  }
  for (const check of checks ?? []) add(check)
  return out
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
    if (from !== ps.name || changesKey(ps.type)) out.push({ from, to: ps.name, decodeMissing: decodeMissing(ps.type) })
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
    properties: changed.map((ps) => ({ from: ps.name, to: ps.name, decodeMissing: decodeMissing(ps.type) }))
  }
}

/** The titles Effect 3 gave the sides of a struct transformation (shown when a value is not an object). */
const encodedSideTitle: ViewAnnotations = { autoTitle: "Struct (Encoded side)" }
const typeSideTitle: ViewAnnotations = { autoTitle: "Struct (Type side)" }

const escapeRegExp = (s: string): string => s.replace(/[/\\^$*+?.()|[\]{}]/g, "\\$&")

/** The pattern Effect 3 gave a template literal (its strings as any text, its numbers as numbers). */
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

// -------------------------------------------------------------------------------------------------
// Effect 3's text of a schema
// -------------------------------------------------------------------------------------------------

const stringAnnotation = (annotations: ViewAnnotations, key: string): string | undefined => {
  const value = annotations[key]
  return typeof value === "string" ? value : undefined
}

/** ` & Brand<"x">` for each brand a schema shows. */
const brandsOf = (v: View): string => {
  const brands = v.annotations[BrandsAnnotationId]
  return Array.isArray(brands) ? brands.map((b: unknown) => ` & Brand<${formatUnknown(b)}>`).join("") : ""
}

/** `title`, else `description`, with the brands: what Effect 3 expected of a schema with them. */
const expectedOf = (v: View): string | undefined => {
  const text = stringAnnotation(v.annotations, "title") ?? stringAnnotation(v.annotations, "description") ??
    stringAnnotation(v.annotations, "autoTitle")
  return text === undefined ? undefined : text + brandsOf(v)
}

/** `identifier`, else `title`, `description`: what Effect 3 called a schema that has them. */
const named = (v: View): string | undefined => stringAnnotation(v.annotations, "identifier") ?? expectedOf(v)

/**
 * A value as Effect 3 showed it in a message: a string quoted, an object as compact JSON-like
 * text, a `Date` as ISO text, a bigint as `1n`.
 *
 * @internal
 */
export const formatUnknown = (input: unknown): string => {
  const seen = new WeakSet<object>()
  const go = (v: unknown): string => {
    if (Array.isArray(v)) {
      if (seen.has(v)) return "[Circular]"
      seen.add(v)
      return `[${v.map(go).join(",")}]`
    }
    if (v instanceof Date) {
      try {
        return v.toISOString()
      } catch {
        return "Invalid Date"
      }
    }
    if (
      Predicate.hasProperty(v, "toString") && typeof v.toString === "function" &&
      v.toString !== Object.prototype.toString && v.toString !== Array.prototype.toString
    ) {
      let s: string
      try {
        const text: unknown = v.toString()
        s = typeof text === "string" ? text : String(text)
      } catch {
        s = "[toString threw]"
      }
      return v instanceof Error && v.cause !== undefined ? `${s} (cause: ${go(v.cause)})` : s
    }
    if (typeof v === "string") return JSON.stringify(v)
    if (typeof v === "number" || v == null || typeof v === "boolean" || typeof v === "symbol") return String(v)
    if (typeof v === "bigint") return `${String(v)}n`
    if (v instanceof Set || v instanceof Map) {
      if (seen.has(v)) return "[Circular]"
      seen.add(v)
      return `${v.constructor.name}(${go(Array.from(v))})`
    }
    if (typeof v === "object") {
      if (seen.has(v)) return "[Circular]"
      seen.add(v)
      let keys: Array<PropertyKey>
      try {
        keys = Reflect.ownKeys(v)
      } catch {
        keys = ["[ownKeys threw]"]
      }
      const body = `{${keys.map((k) => `${formatKey(k)}:${go(Reflect.get(v, k))}`).join(",")}}`
      const ctor: unknown = Reflect.get(v, "constructor")
      return typeof ctor === "function" && ctor !== Object && ctor.name !== "" ? `${ctor.name}(${body})` : body
    }
    return String(v)
  }
  return go(input)
}

const formatKey = (k: PropertyKey): string => (typeof k === "string" ? JSON.stringify(k) : String(k))

const keywords: Readonly<Record<string, string>> = {
  StringKeyword: "string",
  NumberKeyword: "number",
  BooleanKeyword: "boolean",
  UndefinedKeyword: "undefined",
  VoidKeyword: "void",
  NeverKeyword: "never",
  UnknownKeyword: "unknown",
  AnyKeyword: "any",
  BigIntKeyword: "bigint",
  SymbolKeyword: "symbol",
  ObjectKeyword: "object"
}

/**
 * A schema as Effect 3 wrote it in a message: `string`, `"a" | "b"`, `{ readonly n: number }`.
 *
 * @internal
 */
export const format = (v: View): string => {
  switch (v._tag) {
    case "Refinement": {
      const identifier = stringAnnotation(v.annotations, "identifier")
      if (identifier !== undefined) return identifier
      const expected = expectedOf(v)
      if (expected === undefined) return `{ ${format(v.from)} | filter }`
      // a check over another names both: `Int & greaterThanOrEqualTo(1)`
      return v.from._tag === "Refinement" ? `${format(v.from)} & ${expected}` : expected
    }
    case "Transformation":
      return named(v) ?? `(${format(v.from)} <-> ${format(v.to)})`
    case "TypeLiteral": {
      const own = named(v)
      if (own !== undefined) return own
      const pss = v.propertySignatures.map((ps) =>
        `readonly ${String(ps.name)}${ps.isOptional ? "?" : ""}: ${format(ps.type)}`
      )
      const iss = v.indexSignatures.map((is) => `readonly [x: ${format(is.parameter)}]: ${format(is.type)}`)
      const all = [...pss, ...iss]
      return all.length === 0 ? "{}" : `{ ${all.join("; ")} }`
    }
    case "TupleType": {
      const own = named(v)
      if (own !== undefined) return own
      const elements = v.elements.map((e) => `${format(e.type)}${e.isOptional ? "?" : ""}`).join(", ")
      const [head, ...tail] = v.rest
      if (head === undefined) return `readonly [${elements}]`
      const formattedHead = format(head.type)
      const wrappedHead = formattedHead.includes(" | ") ? `(${formattedHead})` : formattedHead
      if (tail.length > 0) {
        const formattedTail = tail.map((t) => format(t.type)).join(", ")
        return v.elements.length > 0
          ? `readonly [${elements}, ...${wrappedHead}[], ${formattedTail}]`
          : `readonly [...${wrappedHead}[], ${formattedTail}]`
      }
      return v.elements.length > 0 ? `readonly [${elements}, ...${wrappedHead}[]]` : `ReadonlyArray<${formattedHead}>`
    }
    case "Union":
      return named(v) ?? v.types.map(format).join(" | ")
    case "Suspend":
      return named(v) ?? "<suspended schema>"
    case "Literal":
      return named(v) ?? formatUnknown(v.literal)
    case "Enums":
      return named(v) ?? `<enum ${v.enums.length} value(s): ${v.enums.map(([, value]) => JSON.stringify(value)).join(" | ")}>`
    case "TemplateLiteral":
      return named(v) ?? v.text
    case "UniqueSymbol":
      return named(v) ?? (v.ast._tag === "UniqueSymbol" ? String(v.ast.symbol) : "symbol")
    case "Declaration": {
      // Effect 4's declarations say what they expect (`a valid Date`), as Effect 3's refinements of them did
      const expected = v.ast.annotations?.expected
      return named(v) ?? (typeof expected === "string" ? expected : "<declaration schema>")
    }
    default:
      // Effect 3's keywords had a title of their own ("string"), which a description did not replace
      return stringAnnotation(v.annotations, "identifier") ??
        (stringAnnotation(v.annotations, "title") ?? keywords[v._tag] ?? v._tag) + brandsOf(v)
  }
}

/**
 * What a failed check expected, as Effect 3 said it, for the value it refused (which tells a
 * string's length from an array's).
 *
 * @internal
 */
export const filterExpected = (check: SchemaAST.Filter<unknown>, input: unknown): string => {
  const annotations = checkAnnotations(check, Array.isArray(input))
  const kind = input === null ? "null" : Array.isArray(input) ? "ReadonlyArray<unknown>" : typeof input
  return stringAnnotation(annotations, "description") ?? stringAnnotation(annotations, "title") ??
    stringAnnotation(annotations, "identifier") ?? `{ ${kind} | filter }`
}

/**
 * The schema under a node's checks and encoding (what a value's type is checked against first).
 *
 * @internal
 */
export const baseOf = (v: View): View =>
  v._tag === "Refinement" ? baseOf(v.from) : v._tag === "Transformation" ? baseOf(v.from) : v

/**
 * What a node checks a value's type against, its checks and encoding aside (a struct with
 * decoding defaults: its encoded side, as Effect 3 named it).
 *
 * @internal
 */
export const typeOf = (ast: SchemaAST.AST): View => baseOf(body(ast))
