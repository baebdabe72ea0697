/**
 * The executor asks the policy hook once per call, whether the call takes a path or not and
 * whether it then runs or is refused, and a call with no gate left (the direct path) still
 * honours its deadline when its handler waits.
 *
 * Effect 4: the deadline's sleep is seen through `countingSleeps` (Effect 4's TestClock lists none).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import { TestClock } from "effect/testing"
import { AgentMode, Gate, PolicyVeto, Tool, ToolPolicy, ToolSystem, Workspace, WorkspacePath } from "../../src/index.js"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { countingSleeps, joinUnmoved, sleepersUntil } from "../helpers/testClock.js"

const ws = makeTempDirSync("gates-")

const echo = Tool.make("echo", {
  description: "Echoes",
  parameters: Schema.Struct({ x: Schema.Number }),
  readOnly: true,
  handler: ({ x }) => Effect.succeed(x)
})
const look = Tool.make("look", {
  description: "Takes a path",
  parameters: Schema.Struct({ path: WorkspacePath }),
  readOnly: true,
  handler: ({ path }) => Effect.succeed(path.length > 0)
})
const slow = Tool.make("slow", {
  description: "Answers after a second of real time (a timer the TestClock does not move)",
  parameters: Schema.Struct({}),
  readOnly: true,
  timeout: "50 millis",
  handler: () => Effect.as(Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 1000))), "late")
})

describe("the gates of a call", () => {
  it.effect("the policy hook is asked once per call, with or without a path, allowed or vetoed", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      const policy = ToolPolicy.layer(({ tool }) => {
        asked.push(tool.name)
        return Effect.succeed(tool.name === "look" ? Option.some("no looking") : Option.none())
      })
      const layer = ToolSystem.layerNode({ builtins: false, tools: [echo, look], policy, workspace: Workspace.layerFixed(ws) })
      const [echoed, looked] = yield* Effect.flatMap(ToolSystem, (tools) =>
        Effect.all([tools.execute("echo", { x: 1 }), tools.execute("look", { path: "." })])).pipe(Effect.provide(layer))
      expect(echoed).toMatchObject({ success: true, output: 1 })
      expect(looked).toMatchObject({ success: false, errorCode: "POLICY_VETO" })
      expect(asked).toEqual(["echo", "look"])
    }))

  it.effect("a call with no gate left still meets its deadline when its handler waits", () =>
    Effect.gen(function*() {
      const layer = ToolSystem.layerNode({ builtins: false, tools: [slow], workspace: Workspace.layerFixed(ws) })
      const result = yield* Effect.gen(function*() {
        const tools = yield* ToolSystem
        const call = yield* Effect.forkChild(tools.execute("slow", {}, { mode: AgentMode.Explore }))
        // the deadline waits on the TestClock: 50 ms of it, and the handler's second is far off
        yield* sleepersUntil(50)
        yield* TestClock.adjust("49 millis")
        expect(call.pollUnsafe()).toBeUndefined()
        yield* TestClock.adjust("1 millis")
        return yield* joinUnmoved(call)
      }).pipe(Effect.provide(layer))
      expect(result).toMatchObject({ success: false, errorCode: "TIMEOUT" })
    }).pipe(countingSleeps), 5000)

  it.effect("a call's own gates (ExecuteOptions.gates) are asked first; execute and explain show them, other calls do not", () =>
    Effect.gen(function*() {
      const noEcho = Gate.make("noEcho", ({ tool }) =>
        tool.name === "echo" ? Gate.refuse(new PolicyVeto({ tool: tool.name, reason: "not for this caller" })) : Gate.pass("fine"))
      const layer = ToolSystem.layerNode({ builtins: false, tools: [echo], workspace: Workspace.layerFixed(ws) })
      const [refused, explained, plain] = yield* Effect.flatMap(ToolSystem, (tools) =>
        Effect.all([
          tools.execute("echo", { x: 1 }, { gates: [noEcho] }),
          tools.explain("echo", { x: 1 }, { gates: [noEcho] }),
          tools.explain("echo", { x: 1 })
        ])).pipe(Effect.provide(layer))
      expect(refused).toMatchObject({ success: false, errorCode: "POLICY_VETO" })
      expect(explained.gates.map((g) => [g.gate, g.outcome])).toEqual([
        ["lookup", "pass"],
        ["arguments", "pass"],
        ["paths", "skip"],
        ["noEcho", "fail"],
        ["mode", "not_reached"],
        ["policy", "not_reached"],
        ["confirmation", "not_reached"],
        ["rateLimit", "not_reached"]
      ])
      expect(plain.gates.map((g) => g.gate)).not.toContain("noEcho")
      expect(plain.wouldRun).toBe(true)
    }))
})
