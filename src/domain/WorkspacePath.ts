/**
 * `WorkspacePath`: the schema of a path argument. The model sends a string; the executor
 * resolves every value typed with it, at any depth of the arguments, through the `Workspace`
 * service before the mode gate and before any handler code runs. The handler receives a
 * `ResolvedPath`: absolute, real (symlinks followed) and inside the workspace.
 *
 * @since 0.1.0
 */
import * as Brand from "effect/Brand"
import * as Schema from "effect/Schema"
import type * as SchemaAST from "effect/SchemaAST"
import { IssueMessageId } from "./argumentLimits.js"
import { BrandsAnnotationId } from "./schemaView.js"

/**
 * The annotation that marks a schema as a workspace path (a string key: Effect 4's annotations
 * are keyed by strings).
 *
 * @internal
 */
export const WorkspacePathId = "effect-tool-system/WorkspacePath"

/**
 * A path the `Workspace` resolved: absolute, real and inside the workspace root when it was
 * resolved. Handlers receive their `WorkspacePath` arguments in this type; the only ways to
 * make one are the executor and `Workspace.resolve`.
 *
 * @since 0.1.0
 * @category models
 */
export type ResolvedPath = string & Brand.Brand<"effect-tool-system/ResolvedPath">

/**
 * Brands a string the resolver has checked. Internal: only the resolver may call it.
 *
 * @internal
 */
export const unsafeResolvedPath: Brand.Constructor<ResolvedPath> = Brand.nominal<ResolvedPath>()

/** A short form of a value that is not a path, for the argument error. */
const shown = (value: unknown): string => {
  if (typeof value === "string") return JSON.stringify(value.slice(0, 40))
  if (Array.isArray(value)) return "an array"
  return typeof value === "object" && value !== null ? "an object" : String(value)
}

/**
 * A path inside the workspace: relative to its root, or absolute inside it. Its encoded side
 * (what a model sends) is a string; its type side (what the handler gets) a `ResolvedPath`.
 *
 * @since 0.1.0
 * @category schemas
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WorkspacePath } from "effect-tool-system"
 *
 * const parameters = Schema.Struct({ filepath: WorkspacePath.annotate({ description: "The file to read" }) })
 * ```
 */
export const WorkspacePath: Schema.brand<Schema.String, "effect-tool-system/ResolvedPath"> = Schema.String
  .pipe(Schema.brand("effect-tool-system/ResolvedPath"))
  .annotate({
    [WorkspacePathId]: true,
    // what Effect 4's own formatter says; `issuesOf` (the arguments' problem lines) says more
    expected: "a path (a string)",
    [IssueMessageId]: (actual: unknown) => `Expected a path (a string), actual ${shown(actual)}`,
    [BrandsAnnotationId]: ["effect-tool-system/ResolvedPath"],
    description: "A path inside the workspace (relative to its root)"
  })

/**
 * The default of an optional `WorkspacePath` field, e.g.
 * `WorkspacePath.pipe(Schema.withDecodingDefaultType(Effect.sync(defaultPath("."))))`. The
 * executor resolves it like any value the model sends.
 *
 * @since 0.1.0
 * @category schemas
 */
export const defaultPath = (path: string): (() => ResolvedPath) => () => unsafeResolvedPath(path)

/** Whether a schema AST node is itself a `WorkspacePath`. */
const isPathNode = (ast: SchemaAST.AST): boolean => ast.annotations?.[WorkspacePathId] === true

/**
 * How many suspended schemas (`Schema.suspend`) one walk of a schema unfolds. A recursive
 * schema refers to the same nodes again, which a walk sees once; a suspension that builds new
 * nodes at each call (`SchemaAST.toType` does, so may a user's) would unfold for ever.
 */
const MAX_UNFOLDS = 50

/**
 * Which sides of transformations a search looks at: both, or the type side (what a handler
 * gets). In Effect 4 a node is its type side; its `encoding` links lead to the encoded sides.
 */
type Side = "both" | "type"

/** The state of one search: the nodes it has seen and the unfolds it has left. */
interface Search {
  readonly side: Side
  readonly seen: Set<SchemaAST.AST>
  unfolds: number
}

const holdsPath = (ast: SchemaAST.AST, search: Search): boolean => {
  if (isPathNode(ast)) return true
  if (search.seen.has(ast)) return false
  search.seen.add(ast)
  const holds = (node: SchemaAST.AST) => holdsPath(node, search)
  if (search.side === "both" && ast.encoding !== undefined && ast.encoding.some((link) => holds(link.to))) return true
  switch (ast._tag) {
    case "Union":
      return ast.types.some(holds)
    case "Arrays":
      return ast.elements.some(holds) || ast.rest.some(holds)
    case "Objects":
      return ast.propertySignatures.some((ps) => holds(ps.type)) || ast.indexSignatures.some((is) => holds(is.type))
    case "Declaration":
      return ast.typeParameters.some(holds)
    case "Suspend":
      // past the budget a path may still be there: say so, the locator then walks the value
      if (search.unfolds <= 0) return true
      search.unfolds--
      return holds(ast.thunk())
    default:
      return false
  }
}

/**
 * Whether a schema AST holds a `WorkspacePath` anywhere (through structs, arrays, unions,
 * either side of a transformation, ...). A suspension that builds new nodes at every call
 * counts as holding one once `MAX_UNFOLDS` of them are unfolded.
 *
 * @internal
 */
export const containsWorkspacePath = (ast: SchemaAST.AST): boolean =>
  holdsPath(ast, { side: "both", seen: new Set(), unfolds: MAX_UNFOLDS })

/** Whether the type side of a schema AST (what a handler receives) holds a `WorkspacePath`. */
const typeSideHoldsPath = (ast: SchemaAST.AST): boolean =>
  holdsPath(ast, { side: "type", seen: new Set(), unfolds: MAX_UNFOLDS })

/**
 * The names of the top-level fields of a struct schema that hold workspace paths (at any depth).
 *
 * @internal
 */
export const pathFieldsOf = (ast: SchemaAST.AST): ReadonlyArray<string> => {
  const fields: Array<string> = []
  // a node is what it decodes to (its checks and encoding aside): a struct is an `Objects` node
  if (ast._tag !== "Objects") return fields
  for (const ps of ast.propertySignatures) {
    if (typeof ps.name === "string" && typeSideHoldsPath(ps.type)) fields.push(ps.name)
  }
  return fields
}

/**
 * Where one path value of decoded arguments sits: its holder and key, and the raw string.
 *
 * @since 0.1.0
 * @category models
 */
export interface PathSlot {
  readonly holder: object
  readonly key: PropertyKey
  readonly raw: string
}

/** Collects the path slots of the value at `holder[key]` (appends to `out`). */
type Locate = (holder: object, key: PropertyKey, out: Array<PathSlot>) => void

/**
 * A `WorkspacePath` in a shape the locator cannot see into; refused when the tool is defined.
 *
 * @internal
 */
export class UnsupportedPathPosition extends Error {}

const none: Locate = () => {}

const slot: Locate = (holder, key, out) => {
  const value: unknown = Reflect.get(holder, key)
  if (typeof value === "string") out.push({ holder, key, raw: value })
}

/**
 * Compiles, once per tool, a function that finds every `WorkspacePath` value of decoded
 * arguments: in struct fields and records, array and tuple items, the matching member of a
 * union, at any depth, also in recursive schemas. `undefined` when the schema holds no path.
 * Throws `UnsupportedPathPosition` for a path inside a shape it cannot see into (a class, an
 * `Option`), so a path can never reach a handler unresolved.
 *
 * @internal
 */
export const compilePathLocator = (schema: Schema.Top): ((args: unknown) => Array<PathSlot>) | undefined => {
  // the schema's own nodes, walked on their type side: `typeAST` would build new nodes at each
  // unfold of a suspension, and the cache below could never close a recursive schema's loop
  if (!typeSideHoldsPath(schema.ast)) return undefined
  const compiled = new Map<SchemaAST.AST, Locate>()
  let unfolds = MAX_UNFOLDS

  const compile = (ast: SchemaAST.AST): Locate => {
    const known = compiled.get(ast)
    // the cache only saves work: without it the unfold budget ends a recursion
    if (known !== undefined) return known
    if (!typeSideHoldsPath(ast)) return none
    if (isPathNode(ast)) return slot
    // recursive schemas: the entry is in place before the body can refer to it
    let self: Locate = none
    compiled.set(ast, (holder, key, out) => self(holder, key, out))
    self = build(ast)
    return self
  }

  /** A suspension past the unfold budget: its body is compiled when a value first reaches it. */
  const lazily = (ast: SchemaAST.Suspend): Locate => {
    let body: Locate | undefined
    return (holder, key, out) => {
      body ??= compile(ast.thunk())
      body(holder, key, out)
    }
  }

  const build = (ast: SchemaAST.AST): Locate => {
    // a node's checks and encoding aside, its tag says what it decodes to
    switch (ast._tag) {
      case "Suspend":
        if (unfolds <= 0) return lazily(ast)
        unfolds--
        return compile(ast.thunk())
      case "Objects": {
        // a field without a path compiles to `none`
        const fields = ast.propertySignatures.map((ps) => ({ key: ps.name, locate: compile(ps.type) }))
        const records = ast.indexSignatures.map((is) => compile(is.type))
        const named = new Set<PropertyKey>(ast.propertySignatures.map((ps) => ps.name))
        return (holder, key, out) => {
          const value: unknown = Reflect.get(holder, key)
          if (typeof value !== "object" || value === null) return
          for (const f of fields) f.locate(value, f.key, out)
          // skips the loop over keys no record takes
          if (records.length === 0) return
          for (const k of Object.keys(value)) {
            if (named.has(k)) continue
            for (const r of records) r(value, k, out)
          }
        }
      }
      case "Arrays": {
        // `[a, b, ...rest, y, z]`: the elements, then the rest, then the elements after it (`ast.rest[1..]`)
        const elements = ast.elements.map(compile)
        const [rest, ...after] = ast.rest.map(compile)
        return (holder, key, out) => {
          const value: unknown = Reflect.get(holder, key)
          if (!Array.isArray(value)) return
          value.forEach((_item, i) => {
            const fromEnd = value.length - i
            const locate = i < elements.length ? elements[i] : fromEnd <= after.length ? after[after.length - fromEnd] : rest
            locate?.(value, i, out)
          })
        }
      }
      case "Union": {
        const members = ast.types.map((member) => ({ is: Schema.is(Schema.make(member)), locate: compile(member) }))
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

  const root = compile(schema.ast)
  return (args) => {
    const out: Array<PathSlot> = []
    root({ args }, "args", out)
    return out
  }
}
