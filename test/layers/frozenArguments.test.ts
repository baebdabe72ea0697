/**
 * A tool whose prepared arguments cannot take the resolved path back (its `prepare` hands out
 * frozen arguments): the executor never runs its handler with the path as the caller wrote it;
 * the call ends as a crash that names the path it could not place.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { Tool, ToolSystem, Workspace, WorkspacePath } from "../../src/index.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const ws = makeTempDirSync("frozen-arguments-")
fs.writeFileSync(path.join(ws, "a.txt"), "a")

describe("arguments that cannot take the resolved path", () => {
  it.effect("end the call as a crash naming the path; the handler never runs", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const base = Tool.make("frozen_read", {
        description: "Reads the name of a file it is given",
        parameters: Schema.Struct({ file: WorkspacePath }),
        readOnly: true,
        handler: ({ file }) => Effect.sync(() => seen.push(file))
      })
      // an adapter that hands its handler immutable arguments
      const frozen: Tool.Tool<never> = {
        ...base,
        prepare: (input) =>
          Result.map(base.prepare(input), (call) => {
            Object.freeze(call.args)
            return call
          })
      }
      const r = yield* Effect.flatMap(ToolSystem, (tools) => tools.execute("frozen_read", { file: "a.txt" })).pipe(
        Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [frozen], workspace: Workspace.layerFixed(ws) }))
      )
      expect(r).toMatchObject({ success: false, errorCode: "TOOL_ERROR" })
      expect(r.error).toContain("cannot place the resolved path of \"a.txt\" into the arguments")
      expect(seen).toEqual([])
    }))
})
