/**
 * The built-in gates' own decisions, through `ToolSystem`: the mode gate puts to the
 * application's `ModeGate` only a tool with side effects in a read-only mode (every other call
 * passes it without asking), and names the call's mode, an application's own included; the
 * confirmation gate says whether a call of a tool that asks for confirmation as it acts is
 * confirmed.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { AgentMode, ModeBlocked, ModeGate, Tool, ToolSystem, Workspace } from "../../src/index.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const ws = makeTempDirSync("builtin-gates-")

const look = Tool.make("look", {
  description: "Reads nothing, changes nothing",
  parameters: Schema.Struct({}),
  readOnly: true,
  handler: () => Effect.succeed("looked")
})

const touch = Tool.make("touch", {
  description: "Has side effects",
  parameters: Schema.Struct({}),
  readOnly: false,
  handler: () => Effect.succeed("touched")
})

const stamp = Tool.make("stamp", {
  description: "Asks for confirmation as it acts",
  parameters: Schema.Struct({}),
  readOnly: false,
  asksConfirmation: "when the stamp is new",
  handler: () => Effect.succeed("stamped")
})

describe("the mode gate", () => {
  it.effect("asks the ModeGate only about a tool with side effects in a read-only mode", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      // an application's ModeGate that refuses whatever it is asked about
      const strict = Layer.succeed(ModeGate, {
        check: (tool, _call, mode) =>
          Effect.suspend(() => {
            asked.push(`${tool.name} in ${mode.name}`)
            return Effect.fail(new ModeBlocked({ tool: tool.name, mode: mode.name, reason: "nothing passes here" }))
          })
      })
      const outcomes = yield* Effect.flatMap(ToolSystem, (tools) =>
        Effect.forEach(
          [["look", AgentMode.Explore], ["look", AgentMode.Default], ["touch", AgentMode.Default], ["touch", AgentMode.Explore]] as const,
          ([name, mode]) => Effect.map(tools.execute(name, {}, { mode }), (r) => `${name} in ${mode.name}: ${r.success ? r.output : r.errorCode}`)
        )).pipe(
          Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [look, touch], workspace: Workspace.layerFixed(ws), modeGate: strict }))
        )
      expect(outcomes).toEqual([
        "look in explore: looked",
        "look in default: looked",
        "touch in default: touched",
        "touch in explore: MODE_BLOCKED"
      ])
      expect(asked).toEqual(["touch in explore"])
    }))

  it.effect("names the call's mode in its pass, an application's own mode too", () =>
    Effect.gen(function*() {
      const review = new AgentMode.AgentMode({ name: "review", readOnly: true, scopedWriteDirs: [], systemPromptAddendum: "" })
      const explained = yield* Effect.flatMap(ToolSystem, (tools) => tools.explain("look", {}, { mode: review })).pipe(
        Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [look], workspace: Workspace.layerFixed(ws) }))
      )
      expect(explained.gates.find((g) => g.gate === "mode")).toEqual({ gate: "mode", outcome: "pass", reason: "allowed in review mode" })
    }))
})

describe("the confirmation gate", () => {
  it.effect("says a confirmed call of a tool that asks as it acts is confirmed, an unconfirmed one how it will end", () =>
    Effect.gen(function*() {
      const [confirmed, unconfirmed] = yield* Effect.flatMap(ToolSystem, (tools) =>
        Effect.zip(tools.explain("stamp", {}, { confirm: true }), tools.explain("stamp", {}))).pipe(
          Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [stamp], workspace: Workspace.layerFixed(ws) }))
        )
      expect(confirmed.gates.find((g) => g.gate === "confirmation")).toEqual({
        gate: "confirmation",
        outcome: "pass",
        reason: "the tool asks for confirmation as it acts, when the stamp is new; this call is confirmed"
      })
      expect(unconfirmed.gates.find((g) => g.gate === "confirmation")).toEqual({
        gate: "confirmation",
        outcome: "pass",
        reason: "the tool asks for confirmation as it acts, when the stamp is new; then this unconfirmed call ends CONFIRMATION_REQUIRED"
      })
    }))
})
