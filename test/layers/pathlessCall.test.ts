/**
 * A call with no path argument skips the path step: the executor neither resolves anything nor
 * asks the workspace for its root (which a tool with side effects needs only to refuse a path
 * under `.git`), so such a call works whatever the workspace's state.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { Tool, ToolSystem, Workspace, WorkspacePath } from "../../src/index.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const ws = makeTempDirSync("pathless-")

const bump = Tool.make("bump", {
  description: "Has side effects, takes no path",
  parameters: Schema.Struct({ n: Schema.Number }),
  readOnly: false,
  handler: ({ n }) => Effect.succeed(n + 1)
})

const touch = Tool.make("touch", {
  description: "Has side effects, takes a path",
  parameters: Schema.Struct({ file: WorkspacePath }),
  readOnly: false,
  handler: () => Effect.succeed("touched")
})

describe("a call with no path argument", () => {
  it.effect("never reads the workspace root, where a write with a path does", () => {
    let rootReads = 0
    const workspace = Layer.succeed(Workspace, {
      root: Effect.sync(() => {
        rootReads++
        return ws
      }),
      resolve: (path) => Effect.succeed(`${ws}/${path}` as never),
      tryResolve: () => Effect.die(new Error("not asked")),
      display: (absolute) => Effect.succeed(absolute)
    })
    return Effect.gen(function*() {
      const tools = yield* ToolSystem
      const before = rootReads
      const result = yield* tools.execute("bump", { n: 1 })
      expect(result.success).toBe(true)
      expect(result.success && result.output).toBe(2)
      expect(rootReads - before).toBe(0)
      // the same executor reads it for a write that names a path (the `.git` check)
      const withPath = yield* tools.execute("touch", { file: "a.txt" })
      expect(withPath.success).toBe(true)
      expect(rootReads - before).toBeGreaterThan(0)
    }).pipe(Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [bump, touch], workspace })))
  })
})
