/**
 * `ModeGate.layer` asked directly, with paths the `Workspace` resolved: in a read-only mode a
 * tool with side effects is refused with the reason that applies (no scoped write, a mode
 * without writable directories, no path argument, a path outside every writable directory,
 * named workspace-relative with the mode's directories, or a writable directory's name that is
 * a symlink to another folder), a path inside any of the mode's directories passes, and a
 * read-only tool or a mode that is not read-only passes.
 *
 * The same refusals through `ToolSystem.layerNode` (`ModeGate.test.ts`) come over with the
 * executor's tests.
 */
import { NodeFileSystem } from "@effect/platform-node"
import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { AgentMode, ModeGate, Tool, Workspace, WorkspacePath } from "../../src/index.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const ws = makeTempDirSync("modegate-direct-")
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))
fs.mkdirSync(path.join(ws, "plans"))
fs.mkdirSync(path.join(ws, "elsewhere"))
// in the workspace, but not under plans/: what a `plans` link leads to is not a writable directory
fs.symlinkSync("elsewhere", path.join(ws, "drafts"))

/** A vetted scoped write with a path argument. */
const touch = Tool.make("touch", {
  description: "Writes a file",
  parameters: Schema.Struct({ filepath: WorkspacePath }),
  scopedWrite: true,
  handler: () => Effect.succeed("written")
})

/** Has side effects and a path argument, but is not a vetted scoped write. */
const remove = Tool.make("remove", {
  description: "Removes a file",
  parameters: Schema.Struct({ filepath: WorkspacePath }),
  handler: () => Effect.void
})

/** A scoped write without a path argument. */
const shell = Tool.make("shell", {
  description: "Side effects, no path",
  parameters: Schema.Struct({}),
  scopedWrite: true,
  handler: () => Effect.succeed("ran")
})

/** Read-only. */
const peek = Tool.make("peek", {
  description: "Reads a file",
  parameters: Schema.Struct({ filepath: WorkspacePath }),
  readOnly: true,
  handler: () => Effect.succeed("read")
})

/** Read-only, writable under plans/ and notes/. */
const Drafting = new AgentMode.AgentMode({
  name: "drafting",
  readOnly: true,
  scopedWriteDirs: ["plans", "notes"],
  systemPromptAddendum: ""
})

/** Read-only, writable under drafts/ (a symlink to elsewhere/). */
const Linked = new AgentMode.AgentMode({
  name: "linked",
  readOnly: true,
  scopedWriteDirs: ["drafts"],
  systemPromptAddendum: ""
})

const gate = ModeGate.layer.pipe(
  Layer.provideMerge(Workspace.layerFixed(ws)),
  Layer.provide(NodeFileSystem.layer)
)

/** The gate's answer about `tool` with `paths` (resolved by the workspace) in `mode`. */
const check = (tool: Tool.Tool<never>, paths: ReadonlyArray<string>, mode: AgentMode.AgentMode) =>
  Effect.gen(function*() {
    const workspace = yield* Workspace
    const resolved = yield* Effect.forEach(paths, workspace.resolve)
    const modeGate = yield* ModeGate
    return yield* Effect.result(modeGate.check(tool, { paths: resolved }, mode))
  })

const blocked = (tool: string, mode: string, reason: string) => ({
  _tag: "Failure",
  failure: {
    _tag: "ModeBlocked",
    code: "MODE_BLOCKED",
    tool,
    mode,
    reason,
    message: `Tool "${tool}" is not allowed in mode "${mode}": ${reason}`
  }
})

const passed = { _tag: "Success", success: undefined }

describe("ModeGate.layer in a read-only mode", () => {
  layer(gate)((it) => {
    it.effect("refuses a tool with side effects that is not a scoped write, even with a path in a writable dir", () =>
      Effect.gen(function*() {
        expect(yield* check(remove, ["plans/keep.md"], AgentMode.Plan)).toMatchObject(
          blocked("remove", "plan", "the tool has side effects and the mode is read-only")
        )
        // in the default mode it passes
        expect(yield* check(remove, ["plans/keep.md"], AgentMode.Default)).toMatchObject(passed)
      }))

    it.effect("refuses a scoped write in a mode without writable directories", () =>
      Effect.gen(function*() {
        expect(yield* check(touch, ["plans/explored.md"], AgentMode.Explore)).toMatchObject(
          blocked("touch", "explore", "the mode allows no writes")
        )
      }))

    it.effect("refuses a scoped write without a path argument", () =>
      Effect.gen(function*() {
        expect(yield* check(shell, [], AgentMode.Plan)).toMatchObject(
          blocked("shell", "plan", "a scoped write needs a path argument")
        )
      }))

    it.effect("lets a scoped write through inside any of the mode's directories, and a read-only tool anywhere", () =>
      Effect.gen(function*() {
        expect(yield* check(touch, ["notes/n.md"], Drafting)).toMatchObject(passed)
        expect(yield* check(touch, ["plans/p.md", "notes/deep/q.md"], Drafting)).toMatchObject(passed)
        expect(yield* check(peek, ["src/main.ts"], AgentMode.Explore)).toMatchObject(passed)
      }))

    it.effect("names a path outside the writable directories workspace-relative, with the mode's directories", () =>
      Effect.gen(function*() {
        expect(yield* check(touch, ["src/main.ts"], Drafting)).toMatchObject(
          blocked("touch", "drafting", "\"src/main.ts\" is outside the writable directories (plans, notes) of the workspace")
        )
        expect(yield* check(touch, ["."], AgentMode.Plan)).toMatchObject(
          blocked("touch", "plan", "\".\" is outside the writable directories (plans) of the workspace")
        )
        expect(yield* check(touch, ["notes"], Drafting)).toMatchObject(
          blocked("touch", "drafting", "\"notes\" is outside the writable directories (plans, notes) of the workspace")
        )
        // one path outside is enough
        expect(yield* check(touch, ["plans/p.md", "src/main.ts"], Drafting)).toMatchObject(
          blocked("touch", "drafting", "\"src/main.ts\" is outside the writable directories (plans, notes) of the workspace")
        )
      }))

    it.effect("a writable directory's name that is a symlink to another folder does not widen the scope", () =>
      Effect.gen(function*() {
        expect(yield* check(touch, ["drafts/d.md"], Linked)).toMatchObject(
          blocked("touch", "linked", "\"elsewhere/d.md\" is outside the writable directories (drafts) of the workspace")
        )
      }))
  })
})
