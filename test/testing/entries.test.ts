/**
 * The two entries: `effect-tool-system` holds what an application runs, and
 * `effect-tool-system/testing` what only tests use (the fake layers and the sandbox's attack
 * catalog), none of which the main entry offers. `TestModeGate.layerOpen` lets a write through
 * a read-only mode, which `ModeGate.layer` refuses.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as Main from "../../src/index.js"
import * as Testing from "../../src/testing.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const { AgentMode, ModeGate, QuestionHandler, Tool, ToolSystem, UrlPolicy, Workspace } = Main
const ws = makeTempDirSync("entries-")

/** A tool with side effects and no path: refused in every read-only mode by the real gate. */
const sideEffect = Tool.make("side_effect", {
  description: "Has side effects",
  parameters: Schema.Struct({}),
  handler: () => Effect.succeed("done")
})

const runInExplore = (modeGate?: Main.GraphOptions["modeGate"]) =>
  Effect.flatMap(ToolSystem, (tools) => tools.execute("side_effect", {}, { mode: AgentMode.Explore })).pipe(
    Effect.provide(ToolSystem.layerNode({
      builtins: false,
      tools: [sideEffect],
      workspace: Workspace.layerFixed(ws),
      ...(modeGate === undefined ? {} : { modeGate })
    }))
  )

describe("the public entries", () => {
  it("the main entry offers no fake layer and no attack catalog", () => {
    expect(Object.keys(Main)).not.toContain("SANDBOX_ESCAPE_VECTORS")
    expect(Object.keys(ModeGate)).not.toContain("layerOpen")
    expect(Object.keys(QuestionHandler)).not.toContain("layerScripted")
    expect(Object.keys(UrlPolicy)).not.toContain("layerAllowLoopback")
    for (const name of Object.keys(Testing)) expect(Object.keys(Main)).not.toContain(name)
  })

  it("the testing entry offers the fakes and the catalog", () => {
    expect(Object.keys(Testing).sort()).toEqual(["SANDBOX_ESCAPE_VECTORS", "TestModeGate", "TestQuestionHandler", "TestUrlPolicy"])
    expect(Testing.SANDBOX_ESCAPE_VECTORS.length).toBeGreaterThan(0)
  })

  it.effect("TestModeGate.layerOpen lets through a call that ModeGate.layer refuses in a read-only mode", () =>
    Effect.gen(function*() {
      expect(yield* runInExplore()).toMatchObject({ success: false, errorCode: "MODE_BLOCKED" })
      expect(yield* runInExplore(Testing.TestModeGate.layerOpen)).toMatchObject({ success: true, output: "done" })
    }))
})
