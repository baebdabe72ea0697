/**
 * The policy hook's own failure: fails open (or closed, on request) and is logged at warning
 * level with the tool's name and the cause, as the README promises; an interrupted hook is
 * neither a veto nor logged.
 *
 * Asked directly (`makePolicy`) here; the tests through `ToolSystem.layerNode` (a failing,
 * dying, fail-closed and answering hook, and `ToolPolicy.layerAllowAll` in a system) come over
 * with the executor's tests.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Option, Schema } from "effect"
import { Tool, ToolPolicy } from "../../src/index.js"
import { makePolicy } from "../../src/layers/ToolPolicy.js"
import { recordingLogs, textOf } from "../helpers/recordingLogs.js"

const echo = Tool.make("echo", {
  description: "Echoes",
  parameters: Schema.Struct({ x: Schema.Number }),
  readOnly: true,
  handler: ({ x }) => Effect.succeed(x)
})

describe("a failing policy hook", () => {
  it.effect("an interrupted hook interrupts the evaluation: no veto, nothing logged", () =>
    Effect.gen(function*() {
      const policy = makePolicy(() => Effect.interrupt)
      const [exit, lines] = yield* recordingLogs(Effect.exit(policy.evaluate(echo, { x: 1 })))
      expect(Exit.hasInterrupts(exit)).toBe(true)
      expect(lines).toEqual([])
    }))

  it.effect("makePolicy without failClosed fails open", () =>
    Effect.gen(function*() {
      const policy = makePolicy(() => Effect.fail("hook broke"))
      const [veto, lines] = yield* recordingLogs(policy.evaluate(echo, { x: 1 }))
      expect(veto).toEqual(Option.none())
      expect(lines.filter((l) => l.level === "Warn").map(textOf)).toEqual([
        expect.stringContaining("failing open")
      ])
    }))

  it.effect("makePolicy logs a failure or a defect with its cause; failClosed vetoes naming the failure", () =>
    Effect.gen(function*() {
      const [open, openLines] = yield* recordingLogs(
        makePolicy(() => Effect.die(new Error("hook died"))).evaluate(echo, { x: 1 })
      )
      expect(open).toEqual(Option.none())
      const warnings = openLines.filter((l) => l.level === "Warn")
      expect(warnings).toHaveLength(1)
      expect(textOf(warnings[0]!)).toContain("Policy hook failed for \"echo\"; failing open")
      expect(Cause.pretty(warnings[0]!.cause)).toContain("hook died")

      const [closed, closedLines] = yield* recordingLogs(
        makePolicy(() => Effect.fail("hook broke"), true).evaluate(echo, { x: 1 })
      )
      expect(closed).toEqual(Option.some("the policy hook failed: hook broke"))
      expect(closedLines.filter((l) => l.level === "Warn").map(textOf)).toEqual([
        expect.stringContaining("Policy hook failed for \"echo\"; failing closed")
      ])
      expect(Cause.pretty(closedLines[0]!.cause)).toContain("hook broke")

      // a hook that answers is not logged
      const [veto, answered] = yield* recordingLogs(
        makePolicy(() => Effect.succeed(Option.some("not today"))).evaluate(echo, { x: 1 })
      )
      expect(veto).toEqual(Option.some("not today"))
      expect(answered).toEqual([])
    }))
})

describe("ToolPolicy.layer's failClosed option", () => {
  it.effect("left out or false, a failing hook fails open; true, it vetoes", () =>
    Effect.gen(function*() {
      const broken = () => Effect.fail("hook broke")
      const verdict = (layer: ReturnType<typeof ToolPolicy.layer>) =>
        Effect.flatMap(Effect.provide(ToolPolicy, layer), (policy) => policy.evaluate(echo, { x: 1 }))
      expect((yield* recordingLogs(verdict(ToolPolicy.layer(broken))))[0]).toEqual(Option.none())
      expect((yield* recordingLogs(verdict(ToolPolicy.layer(broken, {}))))[0]).toEqual(Option.none())
      expect((yield* recordingLogs(verdict(ToolPolicy.layer(broken, { failClosed: false }))))[0]).toEqual(Option.none())
      expect((yield* recordingLogs(verdict(ToolPolicy.layer(broken, { failClosed: true }))))[0])
        .toEqual(Option.some("the policy hook failed: hook broke"))
    }))
})

describe("without a hook", () => {
  it.effect("makePolicy(undefined) vetoes nothing, logs nothing, and says it allows all", () =>
    Effect.gen(function*() {
      const policy = makePolicy(undefined)
      expect(policy.allowsAll).toBe(true)
      expect(makePolicy(() => Effect.succeedNone).allowsAll).toBeUndefined()
      const [veto, direct] = yield* recordingLogs(policy.evaluate(echo, { x: 1 }))
      expect(veto).toEqual(Option.none())
      expect(direct).toEqual([])
      // the layers: layerAllowAll says so (its gate then skips), a hook's layer does not
      expect((yield* Effect.provide(ToolPolicy, ToolPolicy.layerAllowAll)).allowsAll).toBe(true)
      const hooked = yield* Effect.provide(ToolPolicy, ToolPolicy.layer(() => Effect.succeedNone))
      expect(hooked.allowsAll).toBeUndefined()
      expect(yield* hooked.evaluate(echo, { x: 1 })).toEqual(Option.none())
    }))
})
