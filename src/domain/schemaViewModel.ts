/**
 * The shape of a schema as Effect 3 built it (`schemaView.ts` rebuilds it from Effect 4's AST):
 * a node per check (refinement) and per encoding (transformation), over the schema's body.
 *
 * @since 1.0.0
 */
import * as Option from "effect/Option"
import type * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"

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

/** No annotations (one shared object). @internal */
export const noAnnotations: ViewAnnotations = {}

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
  /** The default a missing key takes (`withDecodingDefault*`), encoded (as a model sends it), if any. */
  readonly missingDefault: () => Option.Option<unknown>
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

/** A node's annotations, or none. @internal */
export const annotationsOf = (annotations: Schema.Annotations.Annotations | undefined): ViewAnnotations =>
  annotations ?? noAnnotations
