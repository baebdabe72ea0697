/**
 * `WorkspacePath` found in a schema, wherever it sits (refinements, transformations, unions,
 * tuples, records, declarations, recursive schemas), and the locator that finds the path
 * values of a call's arguments; what it refuses; the message of a value that is not a path.
 */
import { describe, expect, it } from "@effect/vitest"
import { Result, Schema, SchemaTransformation } from "effect"
import { argumentParseOptions, issuesOf } from "../../src/domain/argumentLimits.js"
import {
  compilePathLocator,
  containsWorkspacePath,
  defaultPath,
  type ResolvedPath,
  pathFieldsOf,
  unsafeResolvedPath,
  UnsupportedPathPosition,
  WorkspacePath
} from "../../src/domain/WorkspacePath.js"

const raws = (schema: Schema.Top, args: unknown) => compilePathLocator(schema)?.(args).map((s) => s.raw)

describe("WorkspacePath", () => {
  it("a value that is not a string: the message says what it is", () => {
    // the argument problem a call gets (Effect 4's `message` annotation is a fixed string, so
    // the decode error's own message cannot quote the value; `issuesOf` does)
    const decode = Schema.decodeUnknownResult(Schema.Struct({ p: WorkspacePath }), argumentParseOptions)
    const message = (p: unknown) => {
      const decoded = decode({ p })
      return Result.isFailure(decoded) ? issuesOf(decoded.failure).map((i) => i.message).join("; ") : "decoded"
    }
    expect(message(5)).toContain("Expected a path (a string), actual 5")
    expect(message(["a"])).toContain("Expected a path (a string), actual an array")
    expect(message({ a: 1 })).toContain("Expected a path (a string), actual an object")
    expect(message(null)).toContain("Expected a path (a string), actual null")
    expect(message("ok.txt")).toBe("decoded")
  })

  it("defaultPath gives the path as a resolved-path value", () => {
    expect(defaultPath("notes")()).toBe("notes")
  })
})

describe("containsWorkspacePath", () => {
  it("finds a path through every kind of schema that can hold one", () => {
    const cases: ReadonlyArray<Schema.Top> = [
      WorkspacePath,
      WorkspacePath.pipe(Schema.check(Schema.makeFilter(() => true))),
      WorkspacePath.pipe(
        Schema.decodeTo(
          Schema.String,
          SchemaTransformation.transform<string, ResolvedPath>({ decode: (s) => s, encode: (s) => unsafeResolvedPath(s) })
        )
      ),
      Schema.String.pipe(
        Schema.decodeTo(WorkspacePath, SchemaTransformation.transform<string, string>({ decode: (s) => s, encode: (s) => s }))
      ),
      // a path sent as text for a schema that has an encoding of its own: the path is the last of two links
      WorkspacePath.pipe(
        Schema.decodeTo(
          Schema.NumberFromString,
          SchemaTransformation.transform<string, ResolvedPath>({ decode: (s) => s, encode: (s) => unsafeResolvedPath(s) })
        )
      ),
      Schema.Union([Schema.Number, WorkspacePath]),
      Schema.Tuple([Schema.Number, WorkspacePath]),
      Schema.TupleWithRest(Schema.Tuple([Schema.Number]), [WorkspacePath]),
      Schema.Struct({ a: Schema.Number, p: WorkspacePath }),
      Schema.Record(Schema.String, WorkspacePath),
      Schema.Option(WorkspacePath),
      // a declaration with two type parameters, one of them a path
      Schema.ReadonlyMap(Schema.String, WorkspacePath),
      Schema.suspend(() => WorkspacePath)
    ]
    for (const schema of cases) expect(containsWorkspacePath(schema.ast), String(schema.ast)).toBe(true)
  })

  it("finds none where there is none, and stops on a recursive schema", () => {
    for (const schema of [Schema.String, Schema.Struct({ a: Schema.Number }), Schema.Array(Schema.String), Schema.Option(Schema.String)]) {
      expect(containsWorkspacePath(schema.ast)).toBe(false)
    }
    interface Tree {
      readonly children: ReadonlyArray<Tree>
    }
    const Tree: Schema.Codec<Tree> = Schema.Struct({ children: Schema.Array(Schema.suspend(() => Tree)) })
    expect(containsWorkspacePath(Tree.ast)).toBe(false)
  })

  it("pathFieldsOf: the top-level fields that hold a path, and none for a schema that is not a struct", () => {
    expect(pathFieldsOf(Schema.Struct({ a: WorkspacePath, b: Schema.Number, c: Schema.Array(WorkspacePath) }).ast)).toEqual(["a", "c"])
    expect(pathFieldsOf(Schema.Array(WorkspacePath).ast)).toEqual([])
  })
})

describe("compilePathLocator", () => {
  it("no locator for a schema without paths", () => {
    expect(compilePathLocator(Schema.Struct({ a: Schema.String }))).toBeUndefined()
  })

  it("finds paths in tuples (elements and rest), records beside named fields, unions", () => {
    const tuple = Schema.Struct({ t: Schema.TupleWithRest(Schema.Tuple([Schema.Number, WorkspacePath]), [WorkspacePath]) })
    expect(raws(tuple, { t: [1, "a", "b", "c"] })).toEqual(["a", "b", "c"])
    expect(raws(tuple, { t: "not an array" })).toEqual([])
    const fixedTuple = Schema.Struct({ t: Schema.Tuple([WorkspacePath, Schema.Number]) })
    expect(raws(fixedTuple, { t: ["a", 1, "extra"] })).toEqual(["a"])
    const record = Schema.StructWithRest(Schema.Struct({ named: Schema.String }), [Schema.Record(Schema.String, WorkspacePath)])
    expect(raws(record, { named: "not a path", x: "p1", y: "p2" })).toEqual(["p1", "p2"])
    const union = Schema.Struct({ u: Schema.Union([Schema.Number, Schema.Struct({ f: WorkspacePath })]) })
    expect(raws(union, { u: { f: "in" } })).toEqual(["in"])
    expect(raws(union, { u: 3 })).toEqual([])
    // a value that is not an object where a struct is expected holds no path
    expect(raws(Schema.Struct({ s: Schema.Struct({ f: WorkspacePath }) }), { s: null })).toEqual([])
  })

  it("each slot says where the path sits, so the resolved path can be written back", () => {
    const args = { more: [{ file: "a" }] }
    const [found] = compilePathLocator(Schema.Struct({ more: Schema.Array(Schema.Struct({ file: WorkspacePath })) }))?.(args) ?? []
    expect(found).toEqual({ holder: args.more[0], key: "file", raw: "a" })
  })

  it("refuses a path where it could not be written back", () => {
    const inOption = Schema.Struct({ o: Schema.Option(WorkspacePath) })
    expect(() => compilePathLocator(inOption)).toThrow(UnsupportedPathPosition)
    expect(() => compilePathLocator(inOption)).toThrow(
      "a WorkspacePath inside a Declaration is not supported: use structs, records, arrays, tuples and unions"
    )
  })
})
