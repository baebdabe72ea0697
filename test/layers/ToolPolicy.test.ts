/**
 * The policy hook's own failure: fails open (or closed, on request) and is logged at warning
 * level with the tool's name and the cause, as the README promises; an interrupted hook is
 * neither a veto nor logged.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, LogLevel, Option, Schema } from "effect"
import { Tool, ToolPolicy, ToolSystem, Workspace } from "../../src/index.js"
import { makePolicy, type PolicyHook } from "../../src/layers/ToolPolicy.js"
import { recordingLogs, textOf } from "../helpers/recordingLogs.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const ws = makeTempDirSync("policy-")

const echo = Tool.make("echo", {
  description: "Echoes",
  parameters: Schema.Struct({ x: Schema.Number }),
  readOnly: true,
  handler: ({ x }) => Effect.succeed(x)
})


const system = (hook: PolicyHook, failClosed = false) =>
  ToolSystem.layerNode({
    builtins: false,
    tools: [echo],
    workspace: Workspace.layerFixed(ws),
    policy: ToolPolicy.layer(hook, { failClosed })
  })

const exec = Effect.flatMap(ToolSystem, (ts) => ts.execute("echo", { x: 1 }))

describe("a failing policy hook", () => {
  it.effect("fails open and is logged at warning level, naming the tool and the failure", () =>
    Effect.gen(function*() {
      const [result, lines] = yield* recordingLogs(exec.pipe(Effect.provide(system(() => Effect.fail("hook broke")))))
      expect(result).toMatchObject({ success: true, output: 1 })
      const warnings = lines.filter((l) => l.level === LogLevel.Warning)
      expect(warnings).toHaveLength(1)
      expect(textOf(warnings[0]!)).toContain("Policy hook failed for \"echo\"; failing open")
      // the cause is in the log line, so the hook's author can see what broke
      expect(Cause.pretty(warnings[0]!.cause)).toContain("hook broke")
    }))

  it.effect("a dying hook is logged too, with its defect", () =>
    Effect.gen(function*() {
      const [result, lines] = yield* recordingLogs(
        exec.pipe(Effect.provide(system(() => Effect.die(new Error("hook died")))))
      )
      expect(result.success).toBe(true)
      const warnings = lines.filter((l) => l.level === LogLevel.Warning)
      expect(warnings).toHaveLength(1)
      expect(textOf(warnings[0]!)).toContain("failing open")
      expect(Cause.pretty(warnings[0]!.cause)).toContain("hook died")
    }))

  it.effect("with failClosed, the veto names the failure and the log says it failed closed", () =>
    Effect.gen(function*() {
      const [result, lines] = yield* recordingLogs(exec.pipe(Effect.provide(system(() => Effect.fail("hook broke"), true))))
      expect(result).toMatchObject({ success: false, errorCode: "POLICY_VETO" })
      expect(result.error).toContain("the policy hook failed: hook broke")
      const warnings = lines.filter((l) => l.level === LogLevel.Warning).map(textOf)
      expect(warnings).toEqual([expect.stringContaining("Policy hook failed for \"echo\"; failing closed")])
    }))

  it.effect("a hook that answers is not logged; Some(reason) vetoes with that reason", () =>
    Effect.gen(function*() {
      const [result, lines] = yield* recordingLogs(
        exec.pipe(Effect.provide(system(() => Effect.succeed(Option.some("not today")))))
      )
      expect(result).toMatchObject({ success: false, errorCode: "POLICY_VETO" })
      expect(result.error).toContain("not today")
      expect(lines.filter((l) => l.level === LogLevel.Warning)).toEqual([])
    }))

  it.effect("an interrupted hook interrupts the evaluation: no veto, nothing logged", () =>
    Effect.gen(function*() {
      const policy = makePolicy(() => Effect.interrupt)
      const [exit, lines] = yield* recordingLogs(Effect.exit(policy.evaluate(echo, { x: 1 })))
      expect(Exit.isInterrupted(exit)).toBe(true)
      expect(lines).toEqual([])
    }))

  it.effect("makePolicy without failClosed fails open", () =>
    Effect.gen(function*() {
      const policy = makePolicy(() => Effect.fail("hook broke"))
      const [veto, lines] = yield* recordingLogs(policy.evaluate(echo, { x: 1 }))
      expect(veto).toEqual(Option.none())
      expect(lines.filter((l) => l.level === LogLevel.Warning).map(textOf)).toEqual([
        expect.stringContaining("failing open")
      ])
    }))
})

describe("without a hook", () => {
  it.effect("ToolPolicy.layerAllowAll lets every call through and logs nothing", () =>
    Effect.gen(function*() {
      const [result, lines] = yield* recordingLogs(
        exec.pipe(
          Effect.provide(
            ToolSystem.layerNode({ builtins: false, tools: [echo], workspace: Workspace.layerFixed(ws), policy: ToolPolicy.layerAllowAll })
          )
        )
      )
      expect(result).toMatchObject({ success: true, output: 1 })
      expect(lines).toEqual([])
      const [veto, direct] = yield* recordingLogs(makePolicy(undefined).evaluate(echo, { x: 1 }))
      expect(veto).toEqual(Option.none())
      expect(direct).toEqual([])
    }))
})
