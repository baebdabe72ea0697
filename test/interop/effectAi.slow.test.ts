/**
 * The tests of `effectAi.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet machine:
 * real processes, worker starts, large inputs), kept in the slow lane so that the fast lane's
 * tests stay well under its 1 s CPU bound even on a loaded machine.
 *
 * The registry as an `@effect/ai` 0.37 toolkit: `LanguageModel.generateText({ toolkit })` with a
 * scripted model (no network) runs every call through our gates. And the main entry point
 * never loads `@effect/ai`.
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as AgentMode from "../../src/domain/AgentMode.js"
import { toEffectAiToolkit } from "../../src/interop/effectAi.js"
import { ConfirmationHandler } from "../../src/services/ConfirmationHandler.js"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { handlerIn, scriptedModel, toolCall } from "./effectAiHarness.js"

const ws = makeTempDirSync("effect-ai-")
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))
fs.writeFileSync(path.join(ws, "hello.txt"), "hello\n")

const live = handlerIn(ws)

describe("toEffectAiToolkit", () => {

  it.effect("the mode gate and the confirmation handler apply as in ToolCallHandler", () =>
    Effect.gen(function*() {
      const write = toolCall("w1", "write_file", { filepath: "out.md", content: "hi" })
      // explore: write_file is not even offered; a model calling it anyway is refused by name
      const explore = yield* toEffectAiToolkit({ mode: AgentMode.Explore })
      const unknown = yield* Effect.exit(
        LanguageModel.generateText({ prompt: "write", toolkit: explore.withHandler }).pipe(
          Effect.provide(scriptedModel([write]))
        )
      )
      // @effect/ai itself refuses a call of a tool it was not given: the request fails
      expect(Exit.isFailure(unknown) && Option.map(Cause.failureOption(unknown.cause), (e) => e._tag)).toEqual(
        Option.some("MalformedOutput")
      )
      expect(fs.existsSync(path.join(ws, "out.md"))).toBe(false)
      // plan: write_file is offered; outside plans/ it is blocked by the mode gate
      const plan = yield* toEffectAiToolkit({ mode: AgentMode.Plan })
      const blocked = yield* LanguageModel.generateText({ prompt: "write", toolkit: plan.withHandler }).pipe(
        Effect.provide(scriptedModel([write]))
      )
      expect(blocked.toolResults[0]?.isFailure).toBe(true)
      expect(blocked.toolResults[0]?.result).toMatch(/^Error \[MODE_BLOCKED\]/)
      // default mode: needs confirmation; the approving handler is asked and the file is written
      const { layer, toolkit } = yield* toEffectAiToolkit()
      const written = yield* LanguageModel.generateText({ prompt: "write", toolkit }).pipe(
        Effect.provide(Layer.merge(layer, scriptedModel([write]))),
        Effect.provide(ConfirmationHandler.layerAutoApprove)
      )
      expect(written.toolResults[0]).toMatchObject({ isFailure: false, result: "Wrote 2 bytes to out.md" })
      expect(fs.readFileSync(path.join(ws, "out.md"), "utf8")).toBe("hi")
    }).pipe(Effect.provide(live)))
})
