/**
 * The `@effect/ai` toolkit answers a call of a tool it does not hold (issue 47, item 15): a
 * tool blocked in the session's mode, or one that does not exist, is answered as
 * `ToolCallHandler` answers it (a failure the model reads), not with `AiError.MalformedOutput`,
 * and nothing runs.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as AgentMode from "../../src/domain/AgentMode.js"
import { toEffectAiToolkit } from "../../src/interop/effectAi.js"
import { ToolCallHandler } from "../../src/services/ToolCallHandler.js"
import { ToolSystem } from "../../src/services/ToolSystem.js"
import { Workspace } from "../../src/services/Workspace.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const ws = makeTempDirSync("effect-ai-unheld-")
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))
fs.writeFileSync(path.join(ws, "hello.txt"), "hello\n")

const live = ToolCallHandler.layer.pipe(Layer.provideMerge(ToolSystem.layerNode({ workspace: Workspace.layerFixed(ws) })))

describe("toEffectAiToolkit: a call of a tool the toolkit does not hold", () => {
  it.effect("is answered as ToolCallHandler answers it: blocked in the mode, or unknown", () =>
    Effect.gen(function*() {
      const { withHandler } = yield* toEffectAiToolkit({ mode: AgentMode.Explore })
      expect(Object.keys(withHandler.tools)).not.toContain("write_file")
      const blocked = yield* Effect.exit(withHandler.handle("write_file", { filepath: "out.md", content: "hi" }))
      expect(Exit.isSuccess(blocked) && blocked.value.isFailure).toBe(true)
      expect(Exit.isSuccess(blocked) && blocked.value.result).toMatch(/^Error \[MODE_BLOCKED\]: /)
      expect(fs.existsSync(path.join(ws, "out.md"))).toBe(false)
      const unknown = yield* Effect.exit(withHandler.handle("read_fiel", { filepath: "hello.txt" }))
      expect(Exit.isSuccess(unknown) && unknown.value).toEqual({
        isFailure: true,
        result: expect.stringMatching(/^Error \[TOOL_NOT_FOUND\]: Tool "read_fiel" not found \(did you mean: read_file/),
        encodedResult: expect.stringMatching(/^Error \[TOOL_NOT_FOUND\]/)
      })
      // a tool it holds is still handled by @effect/ai's own path
      const held = yield* withHandler.handle("read_file", { filepath: "hello.txt" })
      expect(held).toMatchObject({ isFailure: false, result: "hello\n" })
    }).pipe(Effect.provide(live)))
})
