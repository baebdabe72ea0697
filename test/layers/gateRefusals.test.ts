/**
 * How the executor's gates end a call, through `ToolSystem` and its audit record: a refusal a
 * gate gives at once ends the call there (its handler never runs, no later gate is asked); a
 * gate that dies ends the call before the gates it did not reach, which the record says were
 * never reached because the call ended, not because one refused; an application's gate that
 * refuses with `CONFIRMATION_REQUIRED` fails in the record itself, the built-in confirmation
 * gate keeping its own decision; `ToolGates.layerWithEffect` runs the gates it makes after the
 * built-in ones.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import {
AuditLog,
type AuditRecord,
type BuiltinGateServices,
ConfirmationRequired,
Gate,
PolicyVeto,
Tool,
ToolGates,
ToolSystem,
Workspace
} from "../../src/index.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const ws = makeTempDirSync("gate-refusals-")

const system = (
  gates: Layer.Layer<ToolGates, never, BuiltinGateServices>,
  records: Array<AuditRecord>,
  runs: Array<string>
) =>
  ToolSystem.layerNode({
    builtins: false,
    tools: [
      Tool.make("report", {
        description: "Records that it ran",
        parameters: Schema.Struct({}),
        readOnly: true,
        handler: () => Effect.sync(() => runs.push("report"))
      })
    ],
    workspace: Workspace.layerFixed(ws),
    gates,
    audit: Layer.succeed(AuditLog, {
      enabled: true,
      includeArguments: false,
      write: (record) => Effect.sync(() => void records.push(record))
    })
  })

const steps = [
  { gate: "lookup", outcome: "pass", reason: "report 1.0.0" },
  { gate: "arguments", outcome: "pass", reason: "the arguments match the parameter schema" },
  { gate: "paths", outcome: "skip", reason: "no path arguments" }
]

describe("a gate's refusal given at once", () => {
  it.effect("ends the call: the handler never runs and no later gate is asked", () =>
    Effect.gen(function*() {
      const records: Array<AuditRecord> = []
      const runs: Array<string> = []
      const asked: Array<string> = []
      const deny = Gate.make("deny", ({ tool }) => Gate.refuse(new PolicyVeto({ tool: tool.name, reason: "not this one" })))
      const after = Gate.make("after", ({ tool }) => {
        asked.push(tool.name)
        return Gate.pass("seen")
      })
      const r = yield* Effect.flatMap(ToolSystem, (tools) => tools.execute("report", {})).pipe(
        Effect.provide(system(ToolGates.layerOnly(deny, after), records, runs))
      )
      expect(r).toMatchObject({ success: false, errorCode: "POLICY_VETO" })
      expect(r.error).toContain("not this one")
      expect(runs).toEqual([])
      expect(asked).toEqual([])
      expect(records.map((record) => record.gates)).toEqual([[
        ...steps,
        { gate: "deny", outcome: "fail", reason: r.error, code: "POLICY_VETO" },
        { gate: "after", outcome: "not_reached", reason: "an earlier gate refused the call" }
      ]])
    }))
})

describe("a gate that dies", () => {
  it.effect("ends the call; the record says the call ended before the gates it did not reach, none refused", () =>
    Effect.gen(function*() {
      const records: Array<AuditRecord> = []
      const runs: Array<string> = []
      const broken = Gate.make("approval", () => Effect.die(new Error("the approval service is down")))
      const after = Gate.make("after", () => Gate.pass("seen"))
      const r = yield* Effect.flatMap(ToolSystem, (tools) => tools.execute("report", {})).pipe(
        Effect.provide(system(ToolGates.layerOnly(broken, after), records, runs))
      )
      expect(r.success).toBe(false)
      expect(runs).toEqual([])
      expect(records.map((record) => record.gates)).toEqual([[
        ...steps,
        { gate: "approval", outcome: "not_reached", reason: "the call ended before this gate" },
        { gate: "after", outcome: "not_reached", reason: "the call ended before this gate" }
      ]])
    }))
})

describe("an application's gate that refuses with CONFIRMATION_REQUIRED", () => {
  it.effect("fails in the record itself: the built-in confirmation gate keeps its own decision", () =>
    Effect.gen(function*() {
      const records: Array<AuditRecord> = []
      const runs: Array<string> = []
      const approval = Gate.make("approval", ({ tool }) =>
        Gate.refuse(new ConfirmationRequired({ tool: tool.name, reason: "a person approves each report" })))
      const [explained, r] = yield* Effect.flatMap(ToolSystem, (tools) =>
        Effect.zip(tools.explain("report", {}), tools.execute("report", {}))).pipe(
          Effect.provide(system(ToolGates.layerWith(approval), records, runs))
        )
      expect(r).toMatchObject({ success: false, errorCode: "CONFIRMATION_REQUIRED", error: "Confirmation required: a person approves each report" })
      expect(runs).toEqual([])
      const gates = records[0]!.gates
      expect(gates.find((g) => g.gate === "confirmation")).toEqual({
        gate: "confirmation",
        outcome: "skip",
        reason: "the tool needs no confirmation"
      })
      expect(gates.filter((g) => g.outcome === "fail")).toEqual([{
        gate: "approval",
        outcome: "fail",
        reason: "Confirmation required: a person approves each report",
        code: "CONFIRMATION_REQUIRED"
      }])
      // the dry run and the record agree, gate by gate
      expect(gates).toEqual(explained.gates)
    }))
})

describe("ToolGates.layerWithEffect", () => {
  it.effect("runs the gates it makes after the built-in ones; their refusal is the call's", () =>
    Effect.gen(function*() {
      const records: Array<AuditRecord> = []
      const runs: Array<string> = []
      // made with what the application's gate needs (here, the list of what it lets through)
      const make = Effect.sync(() => {
        const allowed = new Set<string>()
        return [Gate.make("allowList", ({ tool }) =>
          allowed.has(tool.name)
            ? Gate.pass("on the list")
            : Gate.refuse(new PolicyVeto({ tool: tool.name, reason: "not on the allow list" })))]
      })
      const r = yield* Effect.flatMap(ToolSystem, (tools) => tools.execute("report", {})).pipe(
        Effect.provide(system(ToolGates.layerWithEffect(make), records, runs))
      )
      expect(r).toMatchObject({ success: false, errorCode: "POLICY_VETO" })
      expect(r.error).toContain("not on the allow list")
      expect(runs).toEqual([])
      expect(records[0]!.gates.map((g) => `${g.gate}:${g.outcome}`)).toEqual([
        "lookup:pass",
        "arguments:pass",
        "paths:skip",
        "mode:pass",
        "policy:skip",
        "confirmation:skip",
        "rateLimit:skip",
        "allowList:fail"
      ])
    }))
})
