/**
 * `WorkspacePath`: the schema of a path argument. Fields typed with it are resolved by the
 * `Workspace` service, and the mode gate finds a tool's path arguments from the schema itself.
 *
 * @since 0.1.0
 */
import { Schema, SchemaAST } from "effect"

/** The annotation that marks a schema as a workspace path. */
export const WorkspacePathId: unique symbol = Symbol.for("effect-tool-system/WorkspacePath")

/**
 * A path inside the workspace: relative to its root, or absolute inside it.
 *
 * @example
 * ```ts
 * Schema.Struct({ filepath: WorkspacePath.annotations({ description: "The file to read" }) })
 * ```
 */
export const WorkspacePath = Schema.String.annotations({
  [WorkspacePathId]: true,
  description: "A path inside the workspace (relative to its root)"
})

/** Whether a schema AST is a `WorkspacePath` (or an array / optional of one). */
export const isWorkspacePathAST = (ast: SchemaAST.AST): boolean => {
  if (ast.annotations[WorkspacePathId] === true) return true
  switch (ast._tag) {
    case "Refinement":
      return isWorkspacePathAST(ast.from)
    case "Transformation":
      return isWorkspacePathAST(ast.to)
    case "Union":
      return ast.types.some(isWorkspacePathAST)
    case "TupleType":
      return ast.rest.some((r) => isWorkspacePathAST(r.type)) || ast.elements.some((e) => isWorkspacePathAST(e.type))
    case "Suspend":
      return false
    default:
      return false
  }
}

/** The names of the top-level fields of a struct schema that hold workspace paths. */
export const pathFieldsOf = (ast: SchemaAST.AST): ReadonlyArray<string> => {
  const typeSide = SchemaAST.typeAST(ast)
  if (typeSide._tag !== "TypeLiteral") return []
  const fields: Array<string> = []
  for (const ps of typeSide.propertySignatures) {
    if (typeof ps.name === "string" && isWorkspacePathAST(ps.type)) fields.push(ps.name)
  }
  return fields
}

/** The path values of decoded arguments: each path field's string, or each string of its array. */
export const pathValuesOf = (fields: ReadonlyArray<string>, args: unknown): ReadonlyArray<string> => {
  if (fields.length === 0 || typeof args !== "object" || args === null) return []
  const out: Array<string> = []
  for (const field of fields) {
    const value: unknown = Reflect.get(args, field)
    if (typeof value === "string") out.push(value)
    else if (Array.isArray(value)) for (const v of value) if (typeof v === "string") out.push(v)
  }
  return out
}
