/**
 * The mode gate through the executor: in a read-only mode a tool with side effects is refused
 * with the reason that applies (no scoped write, a mode without writable directories, no path
 * argument, a path outside every writable directory, named workspace-relative with the
 * mode's directories), and a path inside any of the mode's directories passes.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { AgentMode, Tool, ToolSystem, Workspace, WorkspacePath } from "../../src/index.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const ws = makeTempDirSync("modegate-")

/** Writes "x" at its path: a vetted scoped write. */
const touch = Tool.make("touch", {
  description: "Writes a file",
  parameters: Schema.Struct({ filepath: WorkspacePath }),
  scopedWrite: true,
  handler: ({ filepath }) =>
    Effect.sync(() => {
      fs.mkdirSync(path.dirname(filepath), { recursive: true })
      fs.writeFileSync(filepath, "x")
      return "written"
    })
})

/** Has side effects and a path argument, but is not a vetted scoped write. */
const remove = Tool.make("remove", {
  description: "Removes a file",
  parameters: Schema.Struct({ filepath: WorkspacePath }),
  handler: ({ filepath }) => Effect.sync(() => fs.rmSync(filepath, { force: true }))
})

/** A scoped write without a path argument. */
const shell = Tool.make("shell", {
  description: "Side effects, no path",
  parameters: Schema.Struct({}),
  scopedWrite: true,
  handler: () => Effect.succeed("ran")
})

/** Read-only, writable under plans/ and notes/. */
const Drafting = new AgentMode.AgentMode({
  name: "drafting",
  readOnly: true,
  scopedWriteDirs: ["plans", "notes"],
  systemPromptAddendum: ""
})

const system = ToolSystem.layerNode({ builtins: false, tools: [touch, remove, shell], workspace: Workspace.layerFixed(ws) })
const exec = (name: string, args: unknown, mode: AgentMode.AgentMode) =>
  Effect.flatMap(ToolSystem, (t) => t.execute(name, args, { mode }))

const blocked = (tool: string, mode: string, reason: string) => ({
  success: false,
  errorCode: "MODE_BLOCKED",
  error: `Tool "${tool}" is not allowed in mode "${mode}": ${reason}`
})

describe("the mode gate in a read-only mode", () => {
  it.effect("refuses a tool with side effects that is not a scoped write, even with a path in a writable dir", () =>
    Effect.gen(function*() {
      fs.mkdirSync(path.join(ws, "plans"), { recursive: true })
      fs.writeFileSync(path.join(ws, "plans", "keep.md"), "keep")
      const r = yield* exec("remove", { filepath: "plans/keep.md" }, AgentMode.Plan)
      expect(r).toMatchObject(blocked("remove", "plan", "the tool has side effects and the mode is read-only"))
      expect(fs.existsSync(path.join(ws, "plans", "keep.md"))).toBe(true)
      // in the default mode it runs
      expect((yield* exec("remove", { filepath: "plans/keep.md" }, AgentMode.Default)).success).toBe(true)
      expect(fs.existsSync(path.join(ws, "plans", "keep.md"))).toBe(false)
    }).pipe(Effect.provide(system)))

  it.effect("refuses a scoped write in a mode without writable directories", () =>
    Effect.gen(function*() {
      const r = yield* exec("touch", { filepath: "plans/explored.md" }, AgentMode.Explore)
      expect(r).toMatchObject(blocked("touch", "explore", "the mode allows no writes"))
      expect(fs.existsSync(path.join(ws, "plans", "explored.md"))).toBe(false)
    }).pipe(Effect.provide(system)))

  it.effect("refuses a scoped write without a path argument", () =>
    Effect.gen(function*() {
      expect(yield* exec("shell", {}, AgentMode.Plan)).toMatchObject(
        blocked("shell", "plan", "a scoped write needs a path argument")
      )
    }).pipe(Effect.provide(system)))

  it.effect("lets a scoped write through inside any of the mode's directories", () =>
    Effect.gen(function*() {
      expect(yield* exec("touch", { filepath: "notes/n.md" }, Drafting)).toMatchObject({ success: true, output: "written" })
      expect(yield* exec("touch", { filepath: "plans/p.md" }, Drafting)).toMatchObject({ success: true, output: "written" })
      expect(fs.readFileSync(path.join(ws, "notes", "n.md"), "utf8")).toBe("x")
      expect(fs.readFileSync(path.join(ws, "plans", "p.md"), "utf8")).toBe("x")
    }).pipe(Effect.provide(system)))

  it.effect("names a path outside the writable directories workspace-relative, with the mode's directories", () =>
    Effect.gen(function*() {
      expect(yield* exec("touch", { filepath: "src/main.ts" }, Drafting)).toMatchObject(
        blocked("touch", "drafting", "\"src/main.ts\" is outside the writable directories (plans, notes) of the workspace")
      )
      expect(yield* exec("touch", { filepath: "." }, AgentMode.Plan)).toMatchObject(
        blocked("touch", "plan", "\".\" is outside the writable directories (plans) of the workspace")
      )
      expect(yield* exec("touch", { filepath: "notes" }, Drafting)).toMatchObject(
        blocked("touch", "drafting", "\"notes\" is outside the writable directories (plans, notes) of the workspace")
      )
      expect(fs.existsSync(path.join(ws, "src"))).toBe(false)
    }).pipe(Effect.provide(system)))
})
