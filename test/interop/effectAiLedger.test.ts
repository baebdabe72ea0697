/**
 * The approvals `toEffectAiToolkit` asked `effect/ai` for, as the handlers redeem them: an
 * approval opens the one call it was asked for (its tool-call id, tool and arguments), once, and
 * nothing the call runs in turn; a call handed over with no id is no approved call (the size of
 * the ledger: effectAiLedger.slow.test.ts).
 *
 * The approval is asked for as `generateText` asks it (each tool's `needsApproval` with the call's
 * id and the conversation so far), and the approved call handed over as `generateText` hands it
 * over (`withHandler.handle` with the same id).
 */
import { afterAll, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { ToolCall } from "../../src/domain/toolCalls.js"
import { toEffectAiToolkit } from "../../src/interop/effectAi.js"
import { ConfirmationHandler } from "../../src/services/ConfirmationHandler.js"
import { ToolCallHandler, type ToolCallSession } from "../../src/services/ToolCallHandler.js"
import { QuestionHandler } from "../../src/services/QuestionHandler.js"
import * as Tool from "../../src/tools/define.js"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { askApproval as ask, declinedText, handlerIn, handOver } from "./effectAiHarness.js"

const ws = makeTempDirSync("effect-ai-ledger-")
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))
const out = path.join(ws, "out.md")

/** What the tools below ran, in order. */
let ran: Array<string> = []
beforeEach(() => {
  ran = []
  fs.rmSync(out, { force: true })
})

/** The session a `release` runs its follow-up call in (set by each test that needs one). */
let followUp: { session: ToolCallSession; call: ToolCall } | undefined

const target = Schema.Struct({ target: Schema.String })
const deploy = Tool.make("deploy", {
  description: "Deploys the site",
  parameters: target,
  requiresConfirmation: true,
  handler: ({ target }) => Effect.sync(() => (ran.push(`deploy ${target}`), `deployed ${target}`))
})
const rollback = Tool.make("rollback", {
  description: "Rolls the site back",
  parameters: target,
  requiresConfirmation: true,
  handler: ({ target }) => Effect.sync(() => (ran.push(`rollback ${target}`), `rolled back ${target}`))
})
/** Releases, then makes the follow-up call (when there is one) and reports its answer. */
const release = Tool.make("release", {
  description: "Releases the site",
  parameters: target,
  requiresConfirmation: true,
  handler: ({ target }) =>
    Effect.gen(function*() {
      ran.push(`release ${target}`)
      const next = followUp
      followUp = undefined
      if (next === undefined) return `released ${target}`
      const [outcome] = yield* next.session.handle([next.call])
      return `released ${target}; then: ${outcome?.content ?? "nothing"}`
    })
})

const live = handlerIn(ws, { tools: [deploy, rollback, release] })

const call = (id: string, name: string, params: unknown): ToolCall => ({
  id,
  name,
  input: Result.succeed(params),
  strictArguments: false
})

describe("effect/ai approval ledger", () => {
  it.effect("a call handed over with no tool-call id is declined with the reason the model reads", () =>
    Effect.gen(function*() {
      const ai = yield* toEffectAiToolkit()
      expect(yield* handOver(ai, "write_file", { filepath: "out.md", content: "hi" })).toEqual([
        { isFailure: true, result: declinedText("write_file") }
      ])
      expect(fs.existsSync(out)).toBe(false)
    }).pipe(Effect.provide(live)))

  it.effect("an approval asked for one tool does not open another tool's call with the same id and arguments", () =>
    Effect.gen(function*() {
      const ai = yield* toEffectAiToolkit()
      expect(yield* ask(ai, "deploy", { target: "prod" }, "d1")).toBe(true)
      expect(yield* handOver(ai, "rollback", { target: "prod" }, "d1")).toEqual([
        { isFailure: true, result: declinedText("rollback") }
      ])
      expect(ran).toEqual([])
    }).pipe(Effect.provide(live)))

  it.effect("an approved call opens nothing it runs in turn: a second call of the same tool is declined", () =>
    Effect.gen(function*() {
      const ai = yield* toEffectAiToolkit()
      const handler = yield* ToolCallHandler
      followUp = { session: yield* handler.session(), call: call("n1", "release", { target: "again" }) }
      expect(yield* ask(ai, "release", { target: "prod" }, "r1")).toBe(true)
      expect(yield* handOver(ai, "release", { target: "prod" }, "r1")).toEqual([
        { isFailure: false, result: `released prod; then: ${declinedText("release")}` }
      ])
      expect(ran).toEqual(["release prod"])
    }).pipe(Effect.provide(live)))

  it.effect("an approved call of a tool the session remembers opens no call of another tool it runs in turn", () =>
    Effect.gen(function*() {
      const ai = yield* toEffectAiToolkit()
      const handler = yield* ToolCallHandler
      expect(yield* ask(ai, "release", { target: "prod" }, "r1")).toBe(true)
      // meanwhile the application's own handler approves a release for the rest of the session
      const remembered = yield* ai.session.handle([call("r0", "release", { target: "staging" })]).pipe(
        Effect.provide(ConfirmationHandler.layer(() => Effect.succeed({ approved: true, remember: true })))
      )
      expect(remembered.map((o) => o.content)).toEqual(["released staging"])
      expect(yield* ai.session.approvedTools).toEqual(["release"])
      followUp = { session: yield* handler.session(), call: call("n1", "deploy", { target: "prod" }) }
      expect(yield* handOver(ai, "release", { target: "prod" }, "r1")).toEqual([
        { isFailure: false, result: `released prod; then: ${declinedText("deploy", "release")}` }
      ])
      expect(ran).toEqual(["release staging", "release prod"])
    }).pipe(Effect.provide(live)))

  it.effect("ask_user needs no approval", () =>
    Effect.gen(function*() {
      const { toolkit } = yield* toEffectAiToolkit().pipe(
        Effect.provide(QuestionHandler.layer(() => Effect.succeed("yes")))
      )
      expect(Object.keys(toolkit.tools)).toContain("ask_user")
      expect(toolkit.tools.ask_user?.needsApproval).toBeUndefined()
    }).pipe(Effect.provide(live)))
})
