/**
 * `ToolSystem.explain` is a dry run of `execute`: for every gate, on the same inputs, it
 * reaches the same decision with the same code, and it neither runs the handler nor takes a
 * rate-limit token.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Option, Result, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { AgentMode, RateLimiter, Tool, ToolPolicy, ToolSystem, Workspace, WorkspacePath } from "../../src/index.js"
import type { ExecuteOptions } from "../../src/index.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const ws = makeTempDirSync("explain-")
fs.writeFileSync(path.join(ws, "a.txt"), "a")

let runs = 0
const reader = Tool.make("peek", {
  description: "Reads nothing; counts its runs",
  parameters: Schema.Struct({ file: WorkspacePath }),
  readOnly: true,
  handler: () => Effect.sync(() => ++runs)
})
const writer = Tool.make("poke", {
  description: "Has side effects",
  parameters: Schema.Struct({ file: WorkspacePath }),
  handler: () => Effect.sync(() => ++runs)
})
const guarded = Tool.make("guarded", {
  description: "Needs confirmation",
  parameters: Schema.Struct({}),
  requiresConfirmation: true,
  handler: () => Effect.sync(() => ++runs)
})
const limited = Tool.make("limited", {
  description: "Two calls a minute",
  parameters: Schema.Struct({}),
  readOnly: true,
  rateLimitRpm: 2,
  handler: () => Effect.sync(() => ++runs)
})
const vetoed = Tool.make("vetoed", {
  description: "The policy refuses it",
  parameters: Schema.Struct({}),
  readOnly: true,
  handler: () => Effect.sync(() => ++runs)
})

const policy = ToolPolicy.layer(({ tool }) =>
  Effect.succeed(tool.name === "vetoed" ? Option.some("not today") : Option.none())
)
const system = () =>
  ToolSystem.layerNode({
    builtins: false,
    tools: [reader, writer, guarded, limited, vetoed],
    workspace: Workspace.layerFixed(ws),
    policy,
    rateLimiter: RateLimiter.layerMemory
  })

/** `execute`'s code, or the defect's code (a workspace escape is a defect of `execute`). */
const executeCode = (name: string, args: unknown, options?: ExecuteOptions) =>
  Effect.flatMap(ToolSystem, (tools) => Effect.exit(tools.execute(name, args, options))).pipe(
    Effect.map((exit) => {
      if (Exit.isSuccess(exit)) return exit.value.errorCode
      const defect = Cause.findDefect(exit.cause)
      return Result.isSuccess(defect) && defect.success instanceof Error && "code" in defect.success
        ? String(defect.success.code)
        : "DEFECT"
    })
  )
const explain = (name: string, args: unknown, options?: ExecuteOptions) =>
  Effect.flatMap(ToolSystem, (tools) => tools.explain(name, args, options))

const cases: ReadonlyArray<{
  readonly gate: string
  readonly name: string
  readonly args: unknown
  readonly options?: ExecuteOptions
  readonly code: string | null
}> = [
  { gate: "lookup", name: "peeek", args: {}, code: "TOOL_NOT_FOUND" },
  { gate: "arguments", name: "peek", args: { file: 3 }, code: "INVALID_ARGUMENTS" },
  { gate: "paths", name: "peek", args: { file: "../../etc/passwd" }, code: "PATH_TRAVERSAL" },
  { gate: "mode", name: "poke", args: { file: "a.txt" }, options: { mode: AgentMode.Explore }, code: "MODE_BLOCKED" },
  { gate: "policy", name: "vetoed", args: {}, code: "POLICY_VETO" },
  { gate: "confirmation", name: "guarded", args: {}, code: "CONFIRMATION_REQUIRED" },
  { gate: "none", name: "peek", args: { file: "a.txt" }, code: null },
  { gate: "none", name: "guarded", args: {}, options: { confirm: true }, code: null }
]

describe("ToolSystem.explain", () => {
  for (const c of cases) {
    it.effect(`agrees with execute at the ${c.gate} gate (${c.name}, ${c.code ?? "runs"})`, () =>
      Effect.gen(function*() {
        runs = 0
        const why = yield* explain(c.name, c.args, c.options)
        expect(runs).toBe(0)
        expect(why.errorCode).toBe(c.code)
        expect(why.wouldRun).toBe(c.code === null)
        expect(why.gates.map((g) => g.gate)).toEqual([
          "lookup",
          "arguments",
          "paths",
          "mode",
          "policy",
          "confirmation",
          "rateLimit"
        ])
        const failed = why.gates.filter((g) => g.outcome === "fail")
        if (c.code === null) {
          expect(failed).toEqual([])
          expect(why.gates.every((g) => g.outcome === "pass" || g.outcome === "skip")).toBe(true)
        } else {
          expect(failed).toEqual([expect.objectContaining({ gate: c.gate, code: c.code })])
          const after = why.gates.slice(why.gates.findIndex((g) => g.outcome === "fail") + 1)
          expect(after.every((g) => g.outcome === "not_reached")).toBe(true)
          expect(why.message).toBeTypeOf("string")
        }
        expect(yield* executeCode(c.name, c.args, c.options)).toBe(c.code)
        expect(runs).toBe(c.code === null ? 1 : 0)
      }).pipe(Effect.provide(system())))
  }

  it.effect("agrees with execute at the rate-limit gate and takes no token", () =>
    Effect.gen(function*() {
      runs = 0
      for (let i = 0; i < 10; i++) expect((yield* explain("limited", {})).wouldRun).toBe(true)
      expect(yield* executeCode("limited", {})).toBe(null)
      expect(yield* executeCode("limited", {})).toBe(null)
      const why = yield* explain("limited", {})
      expect(why.errorCode).toBe("RATE_LIMITED")
      expect(why.gates.at(-1)).toMatchObject({ gate: "rateLimit", outcome: "fail", code: "RATE_LIMITED" })
      expect(yield* executeCode("limited", {})).toBe("RATE_LIMITED")
      expect(runs).toBe(2)
    }).pipe(Effect.provide(system())))

  it.effect("rate-limit keys are separate buckets for explain as for execute", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 2; i++) expect(yield* executeCode("limited", {}, { rateLimitKey: "alice" })).toBe(null)
      expect((yield* explain("limited", {}, { rateLimitKey: "alice" })).errorCode).toBe("RATE_LIMITED")
      expect((yield* explain("limited", {}, { rateLimitKey: "bob" })).wouldRun).toBe(true)
      expect(yield* executeCode("limited", {}, { rateLimitKey: "bob" })).toBe(null)
    }).pipe(Effect.provide(system())))

  it.effect("names the version it would run, the mode, and why each gate passed or did not apply", () =>
    Effect.gen(function*() {
      const why = yield* explain("peek", { file: "a.txt" }, { mode: AgentMode.Plan })
      expect(why).toMatchObject({ tool: "peek", version: "1.0.0", mode: "plan", wouldRun: true })
      const byGate = Object.fromEntries(why.gates.map((g) => [g.gate, g]))
      expect(byGate.paths).toMatchObject({ outcome: "pass", reason: "1 path(s) inside the workspace" })
      expect(byGate.confirmation).toMatchObject({ outcome: "skip" })
      expect(byGate.rateLimit).toMatchObject({ outcome: "skip" })
      expect(byGate.policy).toMatchObject({ outcome: "pass" })
    }).pipe(Effect.provide(system())))

  it.effect("without a policy, the policy gate does not apply; an escape is the paths gate's refusal", () =>
    Effect.gen(function*() {
      const tools = yield* ToolSystem
      const why = yield* tools.explain("peek", { file: "a.txt" })
      expect(why.gates.find((g) => g.gate === "policy")).toMatchObject({ outcome: "skip" })
      const escape = yield* tools.explain("peek", { file: "/etc/passwd" })
      expect(escape.errorCode).toBe("PATH_TRAVERSAL")
    }).pipe(
      Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [reader], workspace: Workspace.layerFixed(ws) }))
    ))
})

const noted = Tool.make("noted", {
  description: "An optional note",
  parameters: Schema.Struct({ note: Schema.optional(Schema.String) }),
  readOnly: true,
  handler: () => Effect.sync(() => ++runs)
})
const planner = Tool.make("planner", {
  description: "Writes under plans/ in plan mode",
  parameters: Schema.Struct({ file: WorkspacePath }),
  scopedWrite: true,
  handler: () => Effect.sync(() => ++runs)
})
const rootVeto = ToolPolicy.layer(({ tool }) =>
  Effect.succeed(tool.name === "vetoed" ? Option.some(`${ws}/secret is off limits`) : Option.none())
)
const reasons = (policyLayer = rootVeto) =>
  ToolSystem.layerNode({
    builtins: false,
    tools: [reader, guarded, limited, vetoed, noted, planner],
    workspace: Workspace.layerFixed(ws),
    policy: policyLayer,
    rateLimiter: RateLimiter.layerMemory
  })

describe("ToolSystem.explain: the reason of each gate", () => {
  it.effect("a call that would run: why each gate passed or did not apply", () =>
    Effect.gen(function*() {
      const why = yield* explain("peek", { file: "a.txt" })
      expect(why.gates).toEqual([
        { gate: "lookup", outcome: "pass", reason: "peek 1.0.0" },
        { gate: "arguments", outcome: "pass", reason: "the arguments match the parameter schema" },
        { gate: "paths", outcome: "pass", reason: "1 path(s) inside the workspace" },
        { gate: "mode", outcome: "pass", reason: "allowed in default mode" },
        { gate: "policy", outcome: "pass", reason: "the policy allowed it" },
        { gate: "confirmation", outcome: "skip", reason: "the tool needs no confirmation" },
        { gate: "rateLimit", outcome: "skip", reason: "the tool has no rate limit" }
      ])
      expect(why.message).toBeNull()
      const confirmed = yield* explain("guarded", {}, { confirm: true })
      expect(confirmed.gates.slice(2)).toEqual([
        { gate: "paths", outcome: "skip", reason: "no path arguments" },
        { gate: "mode", outcome: "pass", reason: "allowed in default mode" },
        { gate: "policy", outcome: "pass", reason: "the policy allowed it" },
        { gate: "confirmation", outcome: "pass", reason: "confirmed" },
        { gate: "rateLimit", outcome: "skip", reason: "the tool has no rate limit" }
      ])
      expect((yield* explain("limited", {})).gates.at(-1)).toEqual({
        gate: "rateLimit",
        outcome: "pass",
        reason: "within 2 calls a minute"
      })
    }).pipe(Effect.provide(reasons())))

  it.effect("without a policy installed, the policy gate is skipped and says so", () =>
    Effect.gen(function*() {
      const why = yield* Effect.flatMap(ToolSystem, (tools) => tools.explain("peek", { file: "a.txt" }))
      expect(why.gates.find((g) => g.gate === "policy")).toEqual({
        gate: "policy",
        outcome: "skip",
        reason: "no policy installed"
      })
    }).pipe(
      Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [reader], workspace: Workspace.layerFixed(ws) }))
    ))

  it.effect("a refusal: the gate fails with execute's message and code, the later gates are not reached", () =>
    Effect.gen(function*() {
      const tools = yield* ToolSystem
      const why = yield* tools.explain("vetoed", {})
      const result = yield* tools.execute("vetoed", {})
      // the veto reason names the workspace's absolute path: passed on as written, as execute does
      expect(result.error).toBe(`Policy vetoed "vetoed": ${ws}/secret is off limits`)
      expect(why.message).toBe(result.error)
      expect(why.gates.slice(4)).toEqual([
        { gate: "policy", outcome: "fail", reason: result.error, code: "POLICY_VETO" },
        { gate: "confirmation", outcome: "not_reached", reason: "an earlier gate refused the call" },
        { gate: "rateLimit", outcome: "not_reached", reason: "an earlier gate refused the call" }
      ])
      // an escape names the workspace as it is (execute dies with the same error)
      const escape = yield* tools.explain("peek", { file: "../outside.txt" })
      expect(escape.message).toBe(`PATH_TRAVERSAL: "../outside.txt" is outside the workspace ${ws} (resolves outside the root)`)
      expect(escape.gates[2]).toEqual({ gate: "paths", outcome: "fail", reason: escape.message, code: "PATH_TRAVERSAL" })
    }).pipe(Effect.provide(reasons())))

  it.effect("strict arguments: a null for a left-out optional field is dropped, as execute drops it", () =>
    Effect.gen(function*() {
      runs = 0
      const strict = yield* explain("noted", { note: null }, { strictArguments: true })
      expect(strict.wouldRun).toBe(true)
      expect(yield* executeCode("noted", { note: null }, { strictArguments: true })).toBe(null)
      const plain = yield* explain("noted", { note: null })
      expect(plain.errorCode).toBe("INVALID_ARGUMENTS")
      expect(yield* executeCode("noted", { note: null })).toBe("INVALID_ARGUMENTS")
      expect(runs).toBe(1)
    }).pipe(Effect.provide(reasons())))

  it.effect("the mode gate sees the resolved paths: a scoped write under plans/ passes in plan mode", () =>
    Effect.gen(function*() {
      const inside = yield* explain("planner", { file: "plans/next.md" }, { mode: AgentMode.Plan })
      expect(inside.wouldRun).toBe(true)
      expect(inside.gates.find((g) => g.gate === "mode")).toEqual({ gate: "mode", outcome: "pass", reason: "allowed in plan mode" })
      const outside = yield* explain("planner", { file: "a.txt" }, { mode: AgentMode.Plan })
      expect(outside.errorCode).toBe("MODE_BLOCKED")
      expect(outside.message).toContain("\"a.txt\" is outside the writable directories")
    }).pipe(Effect.provide(reasons())))

  it.effect("a path the workspace fails to resolve for another reason than an escape: explain dies with that defect", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Effect.flatMap(ToolSystem, (tools) => tools.explain("peek", { file: "a.txt" })))
      expect(Exit.isFailure(exit) && Cause.pretty(exit.cause)).toContain("the disk is gone")
      // a call without path arguments does not ask the workspace
      const pathless = yield* Effect.flatMap(ToolSystem, (tools) => tools.explain("guarded", {}, { confirm: true }))
      expect(pathless.wouldRun).toBe(true)
    }).pipe(
      Effect.provide(ToolSystem.layerNode({
        builtins: false,
        tools: [reader, guarded],
        workspace: Layer.succeed(Workspace, {
          root: Effect.succeed(ws),
          resolve: () => Effect.die(new Error("the disk is gone")),
          tryResolve: () => Effect.die(new Error("the disk is gone")),
          display: (absolute) => Effect.succeed(absolute)
        })
      }))
    ))
})
