/**
 * Paths in recursive schemas (`Schema.suspend`): the locator finds them at every depth of the
 * value, the schema walks end (also on suspensions that build new nodes at each call, as
 * `SchemaAST.toType` does), and the executor resolves a deep path before the handler runs.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Schema, SchemaAST, SchemaTransformation } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import {
  compilePathLocator,
  containsWorkspacePath,
  pathFieldsOf,
  type ResolvedPath,
  unsafeResolvedPath,
  WorkspacePath
} from "../../src/domain/WorkspacePath.js"
import { isPathTraversal, Tool, ToolSystem, Workspace } from "../../src/index.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const raws = (schema: Schema.Top, args: unknown) => compilePathLocator(schema)?.(args).map((s) => s.raw)

interface Node {
  readonly path: ResolvedPath
  readonly children: ReadonlyArray<Node>
}
interface NodeEncoded {
  readonly path: string
  readonly children: ReadonlyArray<NodeEncoded>
}
/** A tree node: its path first, then its children. */
const Node: Schema.Codec<Node, NodeEncoded> = Schema.Struct({
  path: WorkspacePath,
  children: Schema.Array(Schema.suspend((): Schema.Codec<Node, NodeEncoded> => Node))
})
/** The same tree, children first: a walk must go through the recursion before it meets the path. */
const ChildrenFirst: Schema.Codec<Node, NodeEncoded> = Schema.Struct({
  children: Schema.Array(Schema.suspend((): Schema.Codec<Node, NodeEncoded> => ChildrenFirst)),
  path: WorkspacePath
})

const tree: NodeEncoded = {
  path: "a",
  children: [
    { path: "a/b", children: [{ path: "a/b/c", children: [{ path: "a/b/c/d", children: [] }] }] },
    { path: "a/e", children: [] }
  ]
}

interface Chain {
  readonly file: ResolvedPath
  readonly next?: Chain | undefined
}
interface ChainEncoded {
  readonly file: string
  readonly next?: ChainEncoded | undefined
}
/** A recursive schema whose suspension builds new nodes at each call. */
const chain = (): Schema.Codec<Chain, ChainEncoded> => Schema.Struct({ file: WorkspacePath, next: Schema.optional(Schema.suspend(chain)) })

/** `depth` nested structs, new ones at each level, with a path only at the bottom. */
const deepOnly = (depth: number): Schema.Top =>
  depth === 0 ? WorkspacePath : Schema.Struct({ next: Schema.suspend(() => deepOnly(depth - 1)) })

const nested = (depth: number, leaf: unknown): unknown => depth === 0 ? leaf : { next: nested(depth - 1, leaf) }
const chainValue = (length: number): unknown => {
  let value: unknown = undefined
  for (let i = length - 1; i >= 0; i--) value = value === undefined ? { file: `f${i}` } : { file: `f${i}`, next: value }
  return value
}

describe("paths in recursive schemas", () => {
  it("finds the path of every node of a tree, whichever field comes first", () => {
    const all = ["a", "a/b", "a/b/c", "a/b/c/d", "a/e"]
    expect(raws(Schema.Struct({ root: Node }), { root: tree })).toEqual(all)
    expect([...(raws(Schema.Struct({ root: ChildrenFirst }), { root: tree }) ?? [])].sort()).toEqual(all)
    expect(raws(Schema.Struct({ roots: Schema.Array(Node) }), { roots: [tree, { path: "z", children: [] }] })).toEqual([...all, "z"])
  })

  it("each slot of a deep node says where to write the resolved path back", () => {
    const args = { root: tree }
    const slots = compilePathLocator(Schema.Struct({ root: Node }))?.(args) ?? []
    const deepest = slots.find((s) => s.raw === "a/b/c/d")
    expect(deepest?.holder).toBe(tree.children[0]?.children[0]?.children[0])
    expect(deepest?.key).toBe("path")
  })

  it("the schema walks end: containsWorkspacePath and pathFieldsOf on recursive schemas", () => {
    expect(containsWorkspacePath(ChildrenFirst.ast)).toBe(true)
    // toType builds new nodes at every unfold of a suspension
    expect(containsWorkspacePath(SchemaAST.toType(ChildrenFirst.ast))).toBe(true)
    expect(pathFieldsOf(Schema.Struct({ n: Schema.Number, root: ChildrenFirst }).ast)).toEqual(["root"])
    interface Plain {
      readonly children: ReadonlyArray<Plain>
    }
    const Plain: Schema.Codec<Plain> = Schema.Struct({ children: Schema.Array(Schema.suspend((): Schema.Codec<Plain> => Plain)) })
    expect(pathFieldsOf(Schema.Struct({ plain: Plain, p: WorkspacePath }).ast)).toEqual(["p"])
    expect(compilePathLocator(Schema.Struct({ plain: Plain }))).toBeUndefined()
  })

  it("a suspension that builds new nodes at each call: paths found as deep as the value goes", () => {
    const length = 60
    const found = raws(Schema.Struct({ head: chain() }), { head: chainValue(length) })
    expect(found).toEqual(Array.from({ length }, (_, i) => `f${i}`))
  })

  it("a path under more new suspensions than the walk unfolds at once is still found", () => {
    const schema = Schema.Struct({ deep: deepOnly(60) })
    expect(containsWorkspacePath(schema.ast)).toBe(true)
    expect(pathFieldsOf(schema.ast)).toEqual(["deep"])
    const locate = compilePathLocator(schema)
    expect(locate).toBeDefined()
    expect(locate?.({ deep: nested(60, "bottom") }).map((s) => s.raw)).toEqual(["bottom"])
    // a value that stops early holds no path, and reaching it twice compiles nothing new
    expect(locate?.({ deep: nested(55, 7) })).toEqual([])
    expect(locate?.({ deep: nested(60, "again") }).map((s) => s.raw)).toEqual(["again"])
  })

  it("a suspension that builds new schemas without end: the walk unfolds 50 of them, then takes a path to be there", () => {
    let unfolded = 0
    const endless = (): Schema.Top =>
      Schema.Struct({
        next: Schema.suspend(() => {
          unfolded++
          return endless()
        })
      })
    expect(containsWorkspacePath(endless().ast)).toBe(true)
    expect(unfolded).toBe(50)
  })

  it("compiling a locator builds 50 levels of new suspensions and looks 50 further; the rest waits for a value", () => {
    let deepest = 0
    const level = (depth: number): Schema.Top =>
      depth === 200 ? WorkspacePath : Schema.Struct({
        next: Schema.suspend(() => {
          deepest = Math.max(deepest, depth + 1)
          return level(depth + 1)
        })
      })
    const locate = compilePathLocator(Schema.Struct({ d: level(0) }))
    expect(deepest).toBe(100)
    expect(locate?.({ d: nested(200, "bottom") }).map((s) => s.raw)).toEqual(["bottom"])
    expect(deepest).toBe(200)
  })

  it("only the type side counts: a path decoded to something else is not located", () => {
    const toString = WorkspacePath.pipe(
      Schema.decodeTo(
          Schema.String,
          SchemaTransformation.transform<string, ResolvedPath>({ decode: (s) => s, encode: (s) => unsafeResolvedPath(s) })
        )
    )
    expect(compilePathLocator(Schema.Struct({ s: toString }))).toBeUndefined()
    expect(pathFieldsOf(Schema.Struct({ s: toString, p: WorkspacePath }).ast)).toEqual(["p"])
    const toPath = Schema.String.pipe(
      Schema.decodeTo(WorkspacePath, SchemaTransformation.transform<string, string>({ decode: (s) => s, encode: (s) => s }))
    )
    expect(raws(Schema.Struct({ s: toPath }), { s: "x" })).toEqual(["x"])
  })

  it("pathFieldsOf sees through a refined struct and a struct with defaults", () => {
    const refined = Schema.Struct({ p: WorkspacePath, n: Schema.Number }).pipe(Schema.check(Schema.makeFilter(() => true)))
    expect(pathFieldsOf(refined.ast)).toEqual(["p"])
    const defaulted = Schema.Struct({ n: Schema.Number.pipe(Schema.withDecodingDefaultType(Effect.succeed(1))), q: Schema.Array(WorkspacePath) })
    expect(pathFieldsOf(defaulted.ast)).toEqual(["q"])
    expect(raws(refined, { p: "r", n: 1 })).toEqual(["r"])
  })
})

describe("paths in other positions", () => {
  it("a tuple's elements after its rest: each item located by its own schema", () => {
    const trailing = Schema.Struct({ t: Schema.TupleWithRest(Schema.Tuple([Schema.Number]), [Schema.Number, WorkspacePath]) })
    expect(containsWorkspacePath(trailing.ast)).toBe(true)
    expect(raws(trailing, { t: [1, 2, 3, "last"] })).toEqual(["last"])
    expect(raws(trailing, { t: [1, "only"] })).toEqual(["only"])
    const around = Schema.Struct({ t: Schema.TupleWithRest(Schema.Tuple([WorkspacePath]), [Schema.Number, WorkspacePath, Schema.Number]) })
    expect(raws(around, { t: ["first", 7, 8, "second", 9] })).toEqual(["first", "second"])
    const restPaths = Schema.Struct({ t: Schema.TupleWithRest(Schema.Tuple([Schema.Number]), [WorkspacePath, Schema.Number]) })
    expect(raws(restPaths, { t: [1, "a", "b", 2] })).toEqual(["a", "b"])
  })

  it("an absent exact-optional field holds no path, whatever its shape", () => {
    const schema = Schema.Struct({
      p: Schema.optionalKey(WorkspacePath),
      s: Schema.optionalKey(Schema.Struct({ f: WorkspacePath })),
      u: Schema.optionalKey(Schema.Union([Schema.Number, WorkspacePath])),
      l: Schema.optionalKey(Schema.Array(WorkspacePath))
    })
    expect(raws(schema, {})).toEqual([])
    expect(raws(schema, { p: "p", s: { f: "f" }, u: "u", l: ["l"] })).toEqual(["p", "f", "u", "l"])
  })

  it("containsWorkspacePath: a declaration with a path in any of its type parameters", () => {
    expect(containsWorkspacePath(Schema.ReadonlyMap(Schema.String, WorkspacePath).ast)).toBe(true)
    expect(containsWorkspacePath(Schema.ReadonlyMap(WorkspacePath, Schema.Number).ast)).toBe(true)
    expect(containsWorkspacePath(Schema.ReadonlyMap(Schema.String, Schema.Number).ast)).toBe(false)
  })
})

describe("a tool with a recursive parameter", () => {
  const base = makeTempDirSync("tree-paths-")
  const ws = path.join(base, "ws")
  fs.mkdirSync(path.join(ws, "a", "b"), { recursive: true })
  fs.mkdirSync(path.join(base, "outside"))
  afterAll(() => fs.rmSync(base, { recursive: true, force: true }))

  /** A tool whose parameter is a tree of paths; made in the test, so that each run checks `Tool.make`. */
  const makeWalk = (seen: Array<Node>) => {
    // the recursion is described to the model as a plain object: parameter schemas are inlined
    const Described: Schema.Codec<Node, NodeEncoded> = Schema.Struct({
      path: WorkspacePath,
      children: Schema.Array(
        Schema.suspend((): Schema.Codec<Node, NodeEncoded> => Described).annotate({ jsonSchema: { type: "object" } })
      )
    })
    return Tool.make("walk_tree", {
      description: "Walks a tree of paths",
      parameters: Schema.Struct({ root: Described }),
      readOnly: true,
      handler: ({ root }) => Effect.sync(() => seen.push(root)).pipe(Effect.as("ok"))
    })
  }

  it.effect("every node's path reaches the handler resolved; an escape three levels down dies before it runs", () =>
    Effect.gen(function*() {
      const seen: Array<Node> = []
      const walk = makeWalk(seen)
      const run = (args: unknown) =>
        Effect.flatMap(ToolSystem, (tools) => Effect.exit(tools.execute("walk_tree", args))).pipe(
          Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [walk], workspace: Workspace.layerFixed(ws) }))
        )
      const node = (p: string, children: ReadonlyArray<NodeEncoded> = []): NodeEncoded => ({ path: p, children })
      const ok = yield* run({ root: node("a", [node("a/b", [node("a/b/new.txt")])]) })
      expect(Exit.isSuccess(ok) && ok.value.success).toBe(true)
      const real = fs.realpathSync(ws)
      expect(seen).toEqual([{
        path: path.join(real, "a"),
        children: [{ path: path.join(real, "a", "b"), children: [{ path: path.join(real, "a", "b", "new.txt"), children: [] }] }]
      }])

      seen.length = 0
      const escape = yield* run({ root: node("a", [node("a/b", [node("../outside/x")])]) })
      expect(Exit.isFailure(escape)).toBe(true)
      if (Exit.isFailure(escape)) {
        expect(isPathTraversal(escape.cause)).toBe(true)
        expect(Cause.hasDies(escape.cause)).toBe(true)
      }
      expect(seen).toEqual([])
      expect(walk.pathFields).toEqual(["root"])
    }))
})
