/**
 * Paths safe by construction: a tool a user writes gets every `WorkspacePath` argument (at any
 * depth) resolved by the executor before the mode gate and before its handler runs; an escape
 * is a defect raised before any handler code, so a handler cannot swallow it.
 */
import * as FileSystem from "effect/FileSystem"
import { afterAll, describe, expect, expectTypeOf, it } from "@effect/vitest"
import { Cause, Effect, Exit, Option, Result, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import {
  AgentMode,
  isPathTraversal,
  pathTraversalOf,
  type ResolvedPath,
  Tool,
  ToolSystem,
  Workspace,
  WorkspacePath
} from "../../src/index.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const base = makeTempDirSync("paths-")
const ws = path.join(base, "ws")
const outside = path.join(base, "outside")
fs.mkdirSync(path.join(ws, "src"), { recursive: true })
fs.mkdirSync(path.join(ws, "plans"), { recursive: true })
fs.mkdirSync(path.join(ws, "notes"), { recursive: true })
fs.mkdirSync(outside)
fs.writeFileSync(path.join(ws, "src", "main.ts"), "original")
fs.writeFileSync(path.join(outside, "secret"), "TOP SECRET")
fs.symlinkSync(path.join(outside, "secret"), path.join(ws, "leak"))
afterAll(() => fs.rmSync(base, { recursive: true, force: true }))

/** What handlers saw, to prove they did (or did not) run. */
const seen: Array<unknown> = []

/** A user's tool that reads a path with the platform's FileSystem (no Workspace call of its own). */
const cat = Tool.make("cat", {
  description: "Reads a file",
  parameters: Schema.Struct({ file: WorkspacePath }),
  readOnly: true,
  handler: ({ file }) =>
    Effect.gen(function*() {
      expectTypeOf(file).toEqualTypeOf<ResolvedPath>()
      seen.push(file)
      const fs_ = yield* FileSystem.FileSystem
      return yield* fs_.readFileString(file)
    })
})

/** A handler that tries to swallow every failure: it must never see an escaping path. */
const swallow = Tool.make("swallow", {
  description: "Catches everything",
  parameters: Schema.Struct({ file: WorkspacePath }),
  readOnly: true,
  handler: ({ file }) =>
    Effect.gen(function*() {
      seen.push(file)
      const fs_ = yield* FileSystem.FileSystem
      return yield* fs_.readFileString(file)
    }).pipe(Effect.catch(() => Effect.succeed("swallowed")), Effect.catchDefect(() => Effect.succeed("swallowed")))
})

/** A scoped-write tool whose paths sit in nested structs and arrays of structs. */
const batch = Tool.make("batch_write", {
  description: "Writes several files",
  parameters: Schema.Struct({
    target: Schema.Struct({ file: WorkspacePath, content: Schema.String }),
    more: Schema.optional(Schema.Array(Schema.Struct({ file: WorkspacePath, content: Schema.String }))),
    byName: Schema.optional(Schema.Record(Schema.String, WorkspacePath)),
    either: Schema.optional(Schema.Union([WorkspacePath, Schema.Number]))
  }),
  scopedWrite: true,
  handler: (args) =>
    Effect.sync(() => {
      seen.push(args)
      const files = [args.target, ...(args.more ?? [])]
      for (const f of files) fs.writeFileSync(f.file, f.content)
      return files.map((f) => f.file)
    })
})

const system = ToolSystem.layerNode({ builtins: false, tools: [cat, swallow, batch], workspace: Workspace.layerFixed(ws) })

const run = (name: string, args: unknown, options?: { readonly mode?: AgentMode.AgentMode }) =>
  Effect.flatMap(ToolSystem, (tools) => Effect.exit(tools.execute(name, args, options))).pipe(Effect.provide(system))

const expectEscape = (exit: Exit.Exit<unknown>) => {
  expect(Exit.isFailure(exit)).toBe(true)
  if (Exit.isSuccess(exit)) return
  expect(isPathTraversal(exit.cause)).toBe(true)
  expect(Result.isSuccess(Cause.findDefect(exit.cause))).toBe(true)
  expect(Cause.pretty(exit.cause)).not.toContain("TOP SECRET")
}

describe("WorkspacePath arguments", () => {
  it.effect("a user's tool never reads /etc/passwd: the escape dies before the handler runs, in every mode", () =>
    Effect.gen(function*() {
      seen.length = 0
      for (const mode of [AgentMode.Default, AgentMode.Explore]) {
        expectEscape(yield* run("cat", { file: "/etc/passwd" }, { mode }))
        expectEscape(yield* run("cat", { file: "../outside/secret" }, { mode }))
        expectEscape(yield* run("cat", { file: "leak" }, { mode }))
      }
      expect(seen).toEqual([])
    }))

  it.effect("a handler that catches everything cannot swallow an escape", () =>
    Effect.gen(function*() {
      seen.length = 0
      expectEscape(yield* run("swallow", { file: "../outside/secret" }))
      expect(seen).toEqual([])
    }))

  it.effect("relative paths resolve against the workspace root, not the process's working directory", () =>
    Effect.gen(function*() {
      seen.length = 0
      const exit = yield* run("cat", { file: "src/main.ts" })
      expect(Exit.isSuccess(exit) && exit.value).toMatchObject({ success: true, output: "original" })
      expect(seen).toEqual([path.join(ws, "src", "main.ts")])
      expect(process.cwd()).not.toBe(ws)
    }))

  it.effect("paths in nested structs, arrays of structs, records and unions are resolved before the handler", () =>
    Effect.gen(function*() {
      seen.length = 0
      const exit = yield* run("batch_write", {
        target: { file: "notes/a.md", content: "a" },
        more: [{ file: "notes/b.md", content: "b" }],
        byName: { x: "src/main.ts" },
        either: "notes"
      })
      expect(Exit.isSuccess(exit) && exit.value.success).toBe(true)
      expect(seen).toEqual([{
        target: { file: path.join(ws, "notes", "a.md"), content: "a" },
        more: [{ file: path.join(ws, "notes", "b.md"), content: "b" }],
        byName: { x: path.join(ws, "src", "main.ts") },
        either: path.join(ws, "notes")
      }])
    }))

  it.effect("an escape at any depth is the defect, and the handler does not run", () =>
    Effect.gen(function*() {
      seen.length = 0
      expectEscape(yield* run("batch_write", { target: { file: "notes/ok.md", content: "" }, more: [{ file: "../outside/x", content: "pwned" }] }))
      expectEscape(yield* run("batch_write", { target: { file: "notes/ok.md", content: "" }, byName: { y: "/etc/passwd" } }))
      expectEscape(yield* run("batch_write", { target: { file: "notes/ok.md", content: "" }, either: "../outside" }))
      expect(seen).toEqual([])
      expect(fs.existsSync(path.join(outside, "x"))).toBe(false)
      // a number in the union is not a path
      const exit = yield* run("batch_write", { target: { file: "notes/n.md", content: "" }, either: 7 })
      expect(Exit.isSuccess(exit) && exit.value.success).toBe(true)
    }))

  it.effect("plan mode sees nested paths: a path inside an array of structs outside plans/ is blocked", () =>
    Effect.gen(function*() {
      seen.length = 0
      const exit = yield* run("batch_write", {
        target: { file: "plans/p.md", content: "plan" },
        more: [{ file: "src/main.ts", content: "overwritten" }]
      }, { mode: AgentMode.Plan })
      expect(Exit.isSuccess(exit) && exit.value).toMatchObject({ success: false, errorCode: "MODE_BLOCKED" })
      expect(Exit.isSuccess(exit) && !exit.value.success && exit.value.error).toContain("src/main.ts")
      expect(seen).toEqual([])
      expect(fs.readFileSync(path.join(ws, "src", "main.ts"), "utf8")).toBe("original")
      const ok = yield* run("batch_write", {
        target: { file: "plans/p.md", content: "plan" },
        more: [{ file: "plans/q.md", content: "q" }]
      }, { mode: AgentMode.Plan })
      expect(Exit.isSuccess(ok) && ok.value.success).toBe(true)
    }))

  it.effect("a plans/ that is a symlink to another folder of the workspace does not widen plan mode", () =>
    Effect.gen(function*() {
      const other = makeTempDirSync("paths-plan-")
      fs.mkdirSync(path.join(other, "src"))
      fs.symlinkSync("src", path.join(other, "plans"))
      const layer = ToolSystem.layerNode({ builtins: false, tools: [batch], workspace: Workspace.layerFixed(other) })
      const exit = yield* Effect.flatMap(ToolSystem, (tools) =>
        tools.execute("batch_write", { target: { file: "plans/x.md", content: "x" } }, { mode: AgentMode.Plan })).pipe(
          Effect.provide(layer)
        )
      expect(exit).toMatchObject({ success: false, errorCode: "MODE_BLOCKED" })
      expect(fs.existsSync(path.join(other, "src", "x.md"))).toBe(false)
      fs.rmSync(other, { recursive: true, force: true })
    }))

  it.effect("Workspace.resolve dies (a handler's catchAll does not see it) and pathTraversalOf finds it", () =>
    Effect.gen(function*() {
      const workspace = yield* Workspace
      const caught = yield* Effect.exit(Effect.catch(workspace.resolve("../outside"), () => Effect.succeed("swallowed")))
      expect(Exit.isFailure(caught)).toBe(true)
      if (Exit.isFailure(caught)) {
        const error = pathTraversalOf(caught.cause)
        expect(Option.isSome(error) && error.value.path).toBe("../outside")
      }
    }).pipe(Effect.provide(system)))

  it("a WorkspacePath where the executor cannot see it is refused when the tool is defined", () => {
    expect(() =>
      Tool.make("hidden_path", {
        description: "x",
        parameters: Schema.Struct({ file: Schema.OptionFromNullOr(WorkspacePath) }),
        handler: () => Effect.void
      })
    ).toThrow(/hidden_path.*WorkspacePath/)
  })

  it("ToolInfo.pathFields names the top-level fields that hold paths at any depth", () => {
    expect(batch.pathFields).toEqual(["target", "more", "byName", "either"])
    expect(cat.pathFields).toEqual(["file"])
  })
})
