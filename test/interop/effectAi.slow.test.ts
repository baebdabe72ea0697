/**
 * The tests of `effectAi.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet
 * machine: three toolkits, four requests), kept in the slow lane so that the fast lane's tests
 * stay well under its CPU bound even on a loaded machine.
 *
 * The registry as an `effect/ai` toolkit: `LanguageModel.generateText({ toolkit })` with a
 * scripted model (no network) runs every call through our gates.
 *
 * On Effect 4's `effect/ai`: a call of a tool the toolkit was not given fails the request with
 * an `AiError` whose reason is `InvalidOutputError` (`@effect/ai` 0.37: `MalformedOutput`).
 * `write_file`, which requires confirmation, needs approval in `effect/ai`: the first request
 * answers with a `tool-approval-request`, and the call runs once the next request carries the
 * approval (the Effect 3 line, tag effect3, ran it at once, asking the installed
 * `ConfirmationHandler`, which is not asked for such a tool here). The system holds only the
 * builtin file tools (`builtins: false`).
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import { AiError, LanguageModel } from "effect/ai"
import * as fs from "node:fs"
import * as path from "node:path"
import * as AgentMode from "../../src/domain/AgentMode.js"
import { toEffectAiToolkit } from "../../src/interop/effectAi.js"
import { ConfirmationHandler, type ConfirmationRequest } from "../../src/services/ConfirmationHandler.js"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { answered, approvalRequests, handlerIn, scriptedModel, toolCall } from "./effectAiHarness.js"

const ws = makeTempDirSync("effect-ai-")
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))
fs.writeFileSync(path.join(ws, "hello.txt"), "hello\n")

const live = handlerIn(ws)

describe("toEffectAiToolkit", () => {
  it.effect("the mode gate applies as in ToolCallHandler, and the confirmation through effect/ai's approval", () =>
    Effect.gen(function*() {
      const write = toolCall("w1", "write_file", { filepath: "out.md", content: "hi" })
      // explore: write_file is not even offered; a model calling it anyway is refused by name
      const explore = yield* toEffectAiToolkit({ mode: AgentMode.Explore })
      const unknown = yield* Effect.exit(
        LanguageModel.generateText({ prompt: "write", toolkit: explore.withHandler }).pipe(
          Effect.provide(scriptedModel([[write]]))
        )
      )
      // effect/ai itself refuses a call of a tool it was not given: the request fails
      expect(
        Exit.isFailure(unknown) &&
          Option.map(Cause.findErrorOption(unknown.cause), (e) => AiError.isAiError(e) ? e.reason._tag : "not an AiError")
      ).toEqual(Option.some("InvalidOutputError"))
      expect(fs.existsSync(path.join(ws, "out.md"))).toBe(false)
      // plan: write_file is offered; outside plans/ it is blocked by the mode gate
      const plan = yield* toEffectAiToolkit({ mode: AgentMode.Plan })
      const blocked = yield* LanguageModel.generateText({ prompt: "write", toolkit: plan.withHandler }).pipe(
        Effect.provide(scriptedModel([[write]]))
      )
      expect(blocked.toolResults[0]?.isFailure).toBe(true)
      expect(blocked.toolResults[0]?.result).toMatch(/^Error \[MODE_BLOCKED\]/)
      // default mode: needs confirmation; effect/ai asks for approval, and once approved the file is written
      const asked: Array<ConfirmationRequest> = []
      const installed = ConfirmationHandler.layer((request) => Effect.sync(() => (asked.push(request), { approved: true })))
      const { layer, toolkit } = yield* toEffectAiToolkit()
      const model = scriptedModel([[write], [{ type: "text", text: "written" }]])
      const first = yield* LanguageModel.generateText({ prompt: "write", toolkit }).pipe(
        Effect.provide(Layer.merge(layer, model)),
        Effect.provide(installed)
      )
      expect(first.toolResults).toEqual([])
      expect(fs.existsSync(path.join(ws, "out.md"))).toBe(false)
      const [request] = approvalRequests(first.content)
      const written = yield* LanguageModel.generateText({
        prompt: answered("write", first.content, [{ approvalId: request!.approvalId, approved: true }]),
        toolkit
      }).pipe(
        Effect.provide(Layer.merge(layer, model)),
        Effect.provide(installed)
      )
      expect(written.toolResults[0]).toMatchObject({ isFailure: false, result: "Wrote 2 bytes to out.md" })
      expect(fs.readFileSync(path.join(ws, "out.md"), "utf8")).toBe("hi")
      expect(asked).toEqual([])
    }).pipe(Effect.provide(live)))
})
