/**
 * A handler whose effect is settled as it is built (`Effect.succeed`, or a function that
 * throws): its handler function runs once per call, and only once no gate is left (never
 * before a gate decides, never for `explain`), and its result is the one any other handler's
 * run gives (as a built `Effect.fail`'s).
 *
 * The Effect 3 line's executor (tag effect3) takes such an effect without a fiber to guard it
 * (`isSettled`, `src/domain/settled.ts`); this executor has one pipeline for every handler, so
 * `isSettled` and its test are gone; what a caller sees, tested here, is the same.
 * The system with a policy is provided `local` (Effect 4's `Effect.provide` reuses layers an
 * enclosing `provide` built, the registry and executor of the outer system among them).
 */
import { describe, expect, it } from "@effect/vitest"
import { Data, Effect, Option, Schema } from "effect"
import { ConfirmationGate, Tool, ToolPolicy, ToolSystem, Workspace } from "../../src/index.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const ws = makeTempDirSync("settled-")

class Refused extends Data.TaggedError("Refused")<{ readonly message: string; readonly limit: number }> {}

/** Tools with a deadline (so a guard would fork), whose handler functions count their calls. */
const counted = (() => {
  const calls: Array<string> = []
  const tool = (name: string, options: { readonly requiresConfirmation?: boolean }, answer: (x: number) => Effect.Effect<number, Refused>) =>
    Tool.make(name, {
      description: name,
      parameters: Schema.Struct({ x: Schema.Number }),
      readOnly: true,
      timeout: "5 seconds",
      ...options,
      handler: ({ x }) => {
        calls.push(name)
        return answer(x)
      }
    })
  return {
    calls,
    tools: [
      tool("plus", {}, (x) => Effect.succeed(x + 1)),
      tool("refuse", {}, (x) => Effect.fail(new Refused({ message: `no ${x}`, limit: x }))),
      tool("throws", {}, () => {
        throw new Error("thrown while building")
      }),
      tool("later", {}, (x) => Effect.sync(() => x * 10)),
      tool("asks", { requiresConfirmation: true }, (x) => Effect.succeed(x)),
      tool("vetoed", {}, (x) => Effect.succeed(x))
    ]
  }
})()

describe("a handler settled as built", () => {
  it.effect("gives the results the guarded run gives; its function runs once per call, and not before a gate", () =>
    Effect.gen(function*() {
      const { calls, tools } = counted
      // no policy hook: a call with no confirmation to ask for has no gate left (the direct path)
      const system = yield* ToolSystem
      const run = (name: string, confirm = false) => system.execute(name, { x: 2 }, { confirm })
      const policy = ToolPolicy.layer(({ tool }) => Effect.succeed(tool.name === "vetoed" ? Option.some("not this one") : Option.none()))
      const policed = ToolSystem.layerNode({ builtins: false, tools, policy, workspace: Workspace.layerFixed(ws) })

      expect(yield* run("plus")).toMatchObject({ success: true, output: 3, errorCode: null })
      expect(yield* run("refuse")).toMatchObject({
        success: false,
        errorCode: "TOOL_ERROR",
        error: "no 2",
        details: { limit: 2 }
      })
      const thrown = yield* run("throws")
      expect(thrown).toMatchObject({ success: false, errorCode: "TOOL_ERROR" })
      expect(thrown.error).toContain("the tool crashed")
      expect(thrown.error).toContain("thrown while building")
      // not settled: run by the guard, the effect its function built (the function runs once)
      expect(yield* run("later")).toMatchObject({ success: true, output: 20 })
      expect(calls).toEqual(["plus", "refuse", "throws", "later"])

      // refused by a gate: the handler function never ran
      expect(yield* run("asks")).toMatchObject({ success: false, errorCode: "CONFIRMATION_REQUIRED" })
      // local: a system of its own (Effect 4's provide would reuse the enclosing system's registry and executor)
      const vetoed = yield* Effect.flatMap(ToolSystem, (t) => t.execute("vetoed", { x: 2 })).pipe(
        Effect.provide(policed, { local: true })
      )
      expect(vetoed).toMatchObject({ success: false, errorCode: "POLICY_VETO" })
      expect(calls).toEqual(["plus", "refuse", "throws", "later"])
      // explained, not run
      const explained = yield* system.explain("plus", { x: 2 })
      expect(explained).toMatchObject({ wouldRun: true })
      expect(calls).toEqual(["plus", "refuse", "throws", "later"])

      expect(yield* run("asks", true)).toMatchObject({ success: true, output: 2 })
      expect(yield* run("plus")).toMatchObject({ success: true, output: 3 })
      expect(calls).toEqual(["plus", "refuse", "throws", "later", "asks", "plus"])
    }).pipe(Effect.provide(ToolSystem.layerNode({
      builtins: false,
      tools: counted.tools,
      workspace: Workspace.layerFixed(ws),
      confirmation: ConfirmationGate.layer
    }))))
})
