/**
 * `TestModeGate.layerOpen` (`effect-tool-system/testing`) swapped in for `ModeGate.layer`, as an
 * application's test of the gates after the mode gate would: a call with side effects that the
 * real gate refuses in a read-only mode runs, and the later gates (here the policy) still decide.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import * as fs from "node:fs"
import { AgentMode, type GraphOptions, ToolPolicy, ToolSystem, Workspace } from "../../src/index.js"
import * as Tool from "../../src/tools/define.js"
import { TestModeGate } from "../../src/testing.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const ws = makeTempDirSync("test-mode-gate-")
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))

/** A tool with side effects and no path: refused in every read-only mode by the real gate. */
const sideEffect = Tool.make("side_effect", {
  description: "Has side effects",
  parameters: Schema.Struct({ note: Schema.String }),
  handler: ({ note }) => Effect.succeed(`done: ${note}`)
})

const system = (options: Pick<GraphOptions, "modeGate" | "policy">) =>
  ToolSystem.layerNode({ builtins: false, tools: [sideEffect], workspace: Workspace.layerFixed(ws), ...options })

const inExplore = (note: string) =>
  Effect.flatMap(ToolSystem, (tools) => tools.execute("side_effect", { note }, { mode: AgentMode.Explore }))

const explainInExplore = Effect.flatMap(
  ToolSystem,
  (tools) => tools.explain("side_effect", { note: "x" }, { mode: AgentMode.Explore })
)

/** Vetoes a call whose note says "secret". */
const noSecrets = ToolPolicy.layer(({ args }) =>
  Effect.succeed(JSON.stringify(args).includes("secret") ? Option.some("no secrets") : Option.none())
)

describe("TestModeGate.layerOpen", () => {
  it.effect("the real mode gate refuses a call with side effects in Explore mode", () =>
    Effect.gen(function*() {
      expect(yield* inExplore("a")).toMatchObject({ success: false, errorCode: "MODE_BLOCKED" })
      const explained = yield* explainInExplore
      expect(explained.wouldRun).toBe(false)
      expect(explained.errorCode).toBe("MODE_BLOCKED")
    }).pipe(Effect.provide(system({}))))

  it.effect("swapped in for ModeGate.layer, the same call runs in Explore mode", () =>
    Effect.gen(function*() {
      expect(yield* inExplore("a")).toMatchObject({ success: true, output: "done: a" })
      const explained = yield* explainInExplore
      expect(explained).toMatchObject({ wouldRun: true, errorCode: null })
      expect(explained.gates.find((g) => g.gate === "mode")?.outcome).toBe("pass")
    }).pipe(Effect.provide(system({ modeGate: TestModeGate.layerOpen }))))

  it.effect("the gates after it still decide: the policy vetoes what it refuses", () =>
    Effect.gen(function*() {
      expect(yield* inExplore("plain")).toMatchObject({ success: true, output: "done: plain" })
      expect(yield* inExplore("a secret")).toMatchObject({ success: false, errorCode: "POLICY_VETO" })
    }).pipe(Effect.provide(system({ modeGate: TestModeGate.layerOpen, policy: noSecrets }))))
})
