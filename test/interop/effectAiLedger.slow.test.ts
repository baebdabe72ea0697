/**
 * The size of the approval ledger of `toEffectAiToolkit`: it keeps the latest 4096 calls asked
 * about, and only those (the answered calls of a conversation take no room in it). Thousands of
 * approvals asked for, each through the executor's gates: too heavy for the fast lane.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Prompt } from "effect/ai"
import * as fs from "node:fs"
import { type EffectAiToolkit, toEffectAiToolkit } from "../../src/interop/effectAi.js"
import * as Tool from "../../src/tools/define.js"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { askApproval as ask, declinedText, handlerIn, handOver } from "./effectAiHarness.js"

const ws = makeTempDirSync("effect-ai-ledger-size-")
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))

const deploy = Tool.make("deploy", {
  description: "Deploys the site",
  parameters: Schema.Struct({ target: Schema.String }),
  requiresConfirmation: true,
  handler: ({ target }) => Effect.succeed(`deployed ${target}`)
})

const live = handlerIn(ws, { tools: [deploy] })

describe("effect/ai approval ledger: its size", () => {
  const askMany = (ai: EffectAiToolkit, count: number) =>
    Effect.forEach(Array.from({ length: count }, (_, i) => `c${i}`), (id) => ask(ai, "deploy", { target: "prod" }, id), {
      discard: true
    })

  it.effect("keeps the approvals of the latest 4096 calls asked about", () =>
    Effect.gen(function*() {
      const ai = yield* toEffectAiToolkit()
      yield* askMany(ai, 4096)
      expect(yield* handOver(ai, "deploy", { target: "prod" }, "c0")).toEqual([
        { isFailure: false, result: "deployed prod" }
      ])
    }).pipe(Effect.provide(live)))

  it.effect("holds only the calls asked about: the many answered calls of a long conversation push no approval out", () =>
    Effect.gen(function*() {
      const ai = yield* toEffectAiToolkit()
      expect(yield* ask(ai, "deploy", { target: "prod" }, "d1")).toBe(true)
      // the next call is asked about in a conversation that answered 4096 reads
      const reads = Array.from({ length: 4096 }, (_, i) => `read${i}`)
      const conversation = Prompt.make([
        { role: "user", content: "read everything, then deploy" },
        {
          role: "assistant",
          content: reads.map((id) => ({ type: "tool-call" as const, id, name: "read_file", params: { filepath: "in.md" } }))
        },
        {
          role: "tool",
          content: reads.map((id) => ({
            type: "tool-result" as const,
            id,
            name: "read_file",
            isFailure: false,
            result: "notes\n"
          }))
        }
      ])
      const needsApproval = ai.toolkit.tools.deploy?.needsApproval
      if (typeof needsApproval !== "function") return expect.fail("deploy needs approval")
      const asked = needsApproval({ target: "staging" }, { toolCallId: "d2", messages: conversation.content })
      expect(typeof asked === "boolean" ? asked : yield* asked).toBe(true)
      expect(yield* handOver(ai, "deploy", { target: "prod" }, "d1")).toEqual([
        { isFailure: false, result: "deployed prod" }
      ])
    }).pipe(Effect.provide(live)))

  it.effect("forgets the oldest approval once 4097 calls were asked about", () =>
    Effect.gen(function*() {
      const ai = yield* toEffectAiToolkit()
      yield* askMany(ai, 4097)
      expect(yield* handOver(ai, "deploy", { target: "prod" }, "c0")).toEqual([
        { isFailure: true, result: declinedText("deploy") }
      ])
      expect(yield* handOver(ai, "deploy", { target: "prod" }, "c1")).toEqual([
        { isFailure: false, result: "deployed prod" }
      ])
    }).pipe(Effect.provide(live)))
})
