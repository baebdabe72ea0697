/**
 * The small gate and handler services asked directly: `ConfirmationGate.layer` stops a tool
 * that requires confirmation unless the call is confirmed (and passes every other tool),
 * `layerAutoConfirm` confirms everything; `ConfirmationHandler`'s layers approve or refuse
 * (with a reason) every request; `QuestionHandler.layer` answers with the function given.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { AgentMode, ConfirmationGate, Tool } from "../../src/index.js"
import { ConfirmationHandler, type ConfirmationRequest } from "../../src/services/ConfirmationHandler.js"
import { QuestionHandler } from "../../src/services/QuestionHandler.js"

const guarded = Tool.make("guarded", {
  description: "Needs a yes",
  parameters: Schema.Struct({}),
  requiresConfirmation: true,
  handler: () => Effect.void
})

const plain = Tool.make("plain", {
  description: "Needs nothing",
  parameters: Schema.Struct({}),
  handler: () => Effect.void
})

const request: ConfirmationRequest = {
  tool: "guarded",
  version: "1.0.0",
  arguments: {},
  reason: "the tool requires confirmation",
  mode: AgentMode.Default
}

describe("ConfirmationGate", () => {
  it.effect("layer stops an unconfirmed call of a tool that requires confirmation, and only that", () =>
    Effect.gen(function*() {
      const gate = yield* ConfirmationGate
      const refused = yield* Effect.flip(gate.check(guarded, false))
      expect(refused).toMatchObject({ _tag: "ConfirmationRequired", tool: "guarded", message: "Confirmation required" })
      expect(refused.reason).toBeUndefined()
      yield* gate.check(guarded, true)
      yield* gate.check(plain, false)
    }).pipe(Effect.provide(ConfirmationGate.layer)))

  it.effect("layerAutoConfirm confirms every call", () =>
    Effect.gen(function*() {
      const gate = yield* ConfirmationGate
      yield* gate.check(guarded, false)
      yield* gate.check(plain, false)
    }).pipe(Effect.provide(ConfirmationGate.layerAutoConfirm)))
})

describe("ConfirmationHandler", () => {
  it.effect("layerAutoApprove approves, layerDenyAll refuses with a reason, layer decides with its function", () =>
    Effect.gen(function*() {
      const ask = (layer: typeof ConfirmationHandler.layerAutoApprove) =>
        Effect.flatMap(ConfirmationHandler, (handler) => handler.confirm(request)).pipe(Effect.provide(layer))
      expect(yield* ask(ConfirmationHandler.layerAutoApprove)).toEqual({ approved: true })
      expect(yield* ask(ConfirmationHandler.layerDenyAll)).toEqual({
        approved: false,
        reason: "this session approves nothing"
      })
      const seen: Array<ConfirmationRequest> = []
      const decided = yield* ask(
        ConfirmationHandler.layer((r) => Effect.sync(() => (seen.push(r), { approved: true, remember: true })))
      )
      expect(decided).toEqual({ approved: true, remember: true })
      expect(seen).toEqual([request])
    }))
})

describe("QuestionHandler", () => {
  it.effect("layer answers with its function", () =>
    Effect.gen(function*() {
      const handler = yield* QuestionHandler
      expect(yield* handler.ask({ question: "Which branch?", choices: ["main", "dev"], multi: false })).toBe("main")
      expect(yield* handler.ask({ question: "Name?", multi: false })).toBe("Name?!")
    }).pipe(Effect.provide(QuestionHandler.layer(({ choices, question }) =>
      Effect.succeed(choices === undefined ? `${question}!` : choices[0] ?? "")
    ))))
})
