/**
 * `WorkspacePath`: the schema of a path argument. The model sends a string; the executor
 * resolves every value typed with it, at any depth of the arguments, through the `Workspace`
 * service before the mode gate and before any handler code runs. The handler receives a
 * `ResolvedPath`: absolute, real (symlinks followed) and inside the workspace.
 *
 * @since 0.1.0
 */
import { Brand, ParseResult, Schema, SchemaAST } from "effect"

/** The annotation that marks a schema as a workspace path. */
export const WorkspacePathId: unique symbol = Symbol.for("effect-tool-system/WorkspacePath")

/**
 * A path the `Workspace` resolved: absolute, real and inside the workspace root when it was
 * resolved. Handlers receive their `WorkspacePath` arguments in this type; the only ways to
 * make one are the executor and `Workspace.resolve`.
 */
export type ResolvedPath = string & Brand.Brand<"effect-tool-system/ResolvedPath">

/** Brands a string the resolver has checked. Internal: only the resolver may call it. */
export const unsafeResolvedPath: Brand.Brand.Constructor<ResolvedPath> = Brand.nominal<ResolvedPath>()

/** A short form of a value that is not a path, for the argument error. */
const shown = (value: unknown): string => {
  // Stryker disable next-line all: equivalent, a string always decodes as a WorkspacePath, so the message is never asked for one
  if (typeof value === "string") return JSON.stringify(value.slice(0, 40))
  if (Array.isArray(value)) return "an array"
  return typeof value === "object" && value !== null ? "an object" : String(value)
}

/**
 * A path inside the workspace: relative to its root, or absolute inside it. Its encoded side
 * (what a model sends) is a string; its type side (what the handler gets) a `ResolvedPath`.
 *
 * @example
 * ```ts
 * Schema.Struct({ filepath: WorkspacePath.annotations({ description: "The file to read" }) })
 * ```
 */
export const WorkspacePath: Schema.brand<typeof Schema.String, "effect-tool-system/ResolvedPath"> = Schema.String
  .pipe(Schema.brand("effect-tool-system/ResolvedPath"))
  .annotations({
    [WorkspacePathId]: true,
    message: (issue) => `Expected a path (a string), actual ${shown(issue.actual)}`,
    description: "A path inside the workspace (relative to its root)"
  })

/**
 * The default of an optional `WorkspacePath` field, e.g.
 * `Schema.optionalWith(WorkspacePath, { default: defaultPath(".") })`. The executor resolves
 * it like any value the model sends.
 */
export const defaultPath = (path: string): (() => ResolvedPath) => () => unsafeResolvedPath(path)

/** Whether a schema AST node is itself a `WorkspacePath`. */
const isPathNode = (ast: SchemaAST.AST): boolean => ast.annotations[WorkspacePathId] === true

/** Whether a schema AST holds a `WorkspacePath` anywhere (through structs, arrays, unions, ...). */
export const containsWorkspacePath = (ast: SchemaAST.AST, seen: Set<SchemaAST.AST> = new Set()): boolean => {
  if (isPathNode(ast)) return true
  if (seen.has(ast)) return false
  seen.add(ast)
  switch (ast._tag) {
    case "Refinement":
      return containsWorkspacePath(ast.from, seen)
    case "Transformation":
      return containsWorkspacePath(ast.from, seen) || containsWorkspacePath(ast.to, seen)
    case "Union":
      return ast.types.some((t) => containsWorkspacePath(t, seen))
    case "TupleType":
      return ast.elements.some((e) => containsWorkspacePath(e.type, seen)) ||
        ast.rest.some((r) => containsWorkspacePath(r.type, seen))
    case "TypeLiteral":
      return ast.propertySignatures.some((ps) => containsWorkspacePath(ps.type, seen)) ||
        ast.indexSignatures.some((is) => containsWorkspacePath(is.type, seen))
    case "Declaration":
      return ast.typeParameters.some((t) => containsWorkspacePath(t, seen))
    case "Suspend":
      return containsWorkspacePath(ast.f(), seen)
    default:
      return false
  }
}

/** The names of the top-level fields of a struct schema that hold workspace paths (at any depth). */
export const pathFieldsOf = (ast: SchemaAST.AST): ReadonlyArray<string> => {
  const typeSide = SchemaAST.typeAST(ast)
  if (typeSide._tag !== "TypeLiteral") return []
  const fields: Array<string> = []
  for (const ps of typeSide.propertySignatures) {
    if (typeof ps.name === "string" && containsWorkspacePath(ps.type)) fields.push(ps.name)
  }
  return fields
}

/** Where one path value of decoded arguments sits: its holder and key, and the raw string. */
export interface PathSlot {
  readonly holder: object
  readonly key: PropertyKey
  readonly raw: string
}

/** Collects the path slots of the value at `holder[key]` (appends to `out`). */
type Locate = (holder: object, key: PropertyKey, out: Array<PathSlot>) => void

/** A `WorkspacePath` in a shape the locator cannot see into; refused when the tool is defined. */
export class UnsupportedPathPosition extends Error {}

const none: Locate = () => {}

const slot: Locate = (holder, key, out) => {
  const value: unknown = Reflect.get(holder, key)
  if (typeof value === "string") out.push({ holder, key, raw: value })
}

/**
 * Compiles, once per tool, a function that finds every `WorkspacePath` value of decoded
 * arguments: in struct fields and records, array and tuple items, the matching member of a
 * union, at any depth. `undefined` when the schema holds no path. Throws
 * `UnsupportedPathPosition` for a path inside a shape it cannot see into (a class, an
 * `Option`, a transformation), so a path can never reach a handler unresolved.
 */
export const compilePathLocator = (schema: Schema.Schema.Any): ((args: unknown) => Array<PathSlot>) | undefined => {
  const typeSide = SchemaAST.typeAST(schema.ast)
  if (!containsWorkspacePath(typeSide)) return undefined
  const compiled = new Map<SchemaAST.AST, Locate>()

  const compile = (ast: SchemaAST.AST): Locate => {
    const known = compiled.get(ast)
    if (known !== undefined) return known
    if (!containsWorkspacePath(ast)) return none
    if (isPathNode(ast)) return slot
    // recursive schemas: the entry is in place before the body can refer to it
    let self: Locate = none
    compiled.set(ast, (holder, key, out) => self(holder, key, out))
    self = build(ast)
    return self
  }

  const build = (ast: SchemaAST.AST): Locate => {
    switch (ast._tag) {
      case "Refinement":
        return compile(ast.from)
      case "Suspend":
        return compile(ast.f())
      case "TypeLiteral": {
        const fields = ast.propertySignatures
          .filter((ps) => containsWorkspacePath(ps.type))
          .map((ps) => ({ key: ps.name, locate: compile(ps.type) }))
        const records = ast.indexSignatures.filter((is) => containsWorkspacePath(is.type)).map((is) => compile(is.type))
        const named = new Set<PropertyKey>(ast.propertySignatures.map((ps) => ps.name))
        return (holder, key, out) => {
          const value: unknown = Reflect.get(holder, key)
          if (typeof value !== "object" || value === null) return
          for (const f of fields) f.locate(value, f.key, out)
          if (records.length === 0) return
          for (const k of Object.keys(value)) {
            if (named.has(k)) continue
            for (const r of records) r(value, k, out)
          }
        }
      }
      case "TupleType": {
        const elements = ast.elements.map((e) => compile(e.type))
        const rest = ast.rest.map((r) => compile(r.type))
        return (holder, key, out) => {
          const value: unknown = Reflect.get(holder, key)
          if (!Array.isArray(value)) return
          for (let i = 0; i < value.length; i++) {
            const locate = i < elements.length ? elements[i] : rest[0]
            if (locate !== undefined) locate(value, i, out)
          }
        }
      }
      case "Union": {
        const members = ast.types.map((member) => ({ is: ParseResult.is(Schema.make(member)), locate: compile(member) }))
        return (holder, key, out) => {
          const value: unknown = Reflect.get(holder, key)
          members.find((m) => m.is(value))?.locate(holder, key, out)
        }
      }
      default:
        throw new UnsupportedPathPosition(
          `a WorkspacePath inside a ${ast._tag} is not supported: use structs, records, arrays, tuples and unions`
        )
    }
  }

  const root = compile(typeSide)
  return (args) => {
    const out: Array<PathSlot> = []
    root({ args }, "args", out)
    return out
  }
}
