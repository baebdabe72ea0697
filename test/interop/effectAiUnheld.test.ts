/**
 * The `effect/ai` toolkit answers a call of a tool it does not hold (issue 47, item 15): a
 * tool blocked in the session's mode, or one that does not exist, is answered as
 * `ToolCallHandler` answers it (a failure the model reads), not with `effect/ai`'s
 * `ToolNotFoundError`, and nothing runs.
 *
 * On Effect 4: `handle` returns the results' stream (Effect 3's `@effect/ai` returned the one
 * result), read here with `Stream.runCollect`; the system holds only the builtin file tools.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as AgentMode from "../../src/domain/AgentMode.js"
import { toEffectAiToolkit } from "../../src/interop/effectAi.js"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { handlerIn } from "./effectAiHarness.js"

const ws = makeTempDirSync("effect-ai-unheld-")
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))
fs.writeFileSync(path.join(ws, "hello.txt"), "hello\n")

const live = handlerIn(ws)

describe("toEffectAiToolkit: a call of a tool the toolkit does not hold", () => {
  it.effect("is answered as ToolCallHandler answers it: blocked in the mode, or unknown", () =>
    Effect.gen(function*() {
      const { withHandler } = yield* toEffectAiToolkit({ mode: AgentMode.Explore })
      const results = (name: string, params: { readonly [key: string]: string }) =>
        Effect.flatMap(withHandler.handle(name, params), Stream.runCollect)
      expect(Object.keys(withHandler.tools)).not.toContain("write_file")
      const blocked = yield* results("write_file", { filepath: "out.md", content: "hi" })
      expect(blocked).toHaveLength(1)
      expect(blocked[0]?.isFailure).toBe(true)
      expect(blocked[0]?.result).toMatch(/^Error \[MODE_BLOCKED\]: /)
      expect(fs.existsSync(path.join(ws, "out.md"))).toBe(false)
      const unknown = yield* results("read_fiel", { filepath: "hello.txt" })
      expect(unknown).toEqual([{
        isFailure: true,
        preliminary: false,
        result: expect.stringMatching(/^Error \[TOOL_NOT_FOUND\]: Tool "read_fiel" not found \(did you mean: read_file/),
        encodedResult: expect.stringMatching(/^Error \[TOOL_NOT_FOUND\]/)
      }])
      // a tool it holds is still handled by effect/ai's own path
      const held = yield* results("read_file", { filepath: "hello.txt" })
      expect(held).toMatchObject([{ isFailure: false, result: "hello\n", preliminary: false }])
    }).pipe(Effect.provide(live)))
})
