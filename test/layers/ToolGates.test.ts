/**
 * `ToolGates`: the executor's one ordered list of gates. An application's own gate runs after
 * the built-in ones, in `execute`, `explain` and the audit record alike; answers given at once
 * keep their turn behind an earlier gate's effect; a dry run takes nothing.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Option, Ref, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import {
  AuditLog,
  type BuiltinGateServices,
  type AuditRecord,
  Gate,
  PolicyVeto,
  RateLimited,
  RateLimiter,
  Tool,
  ToolGates,
  ToolPolicy,
  ToolSystem,
  Workspace,
  WorkspacePath
} from "../../src/index.js"
import type { ExecuteOptions } from "../../src/index.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const ws = makeTempDirSync("gates-")
fs.writeFileSync(path.join(ws, "a.txt"), "a")

const tool = (name: string, tags: ReadonlyArray<string>, rateLimitRpm?: number) =>
  Tool.make(name, {
    description: name,
    parameters: Schema.Struct({ file: Schema.optional(WorkspacePath) }),
    readOnly: true,
    tags,
    ...(rateLimitRpm === undefined ? {} : { rateLimitRpm }),
    handler: () => Effect.succeed(name)
  })

const tools = [tool("web", ["web"]), tool("local", []), tool("limited", ["web"], 1), tool("vetoed", ["web"])]

/** At most `max` calls of web tools; a dry run spends nothing. */
const budget = (spent: Ref.Ref<number>, max: number) =>
  Gate.make("budget", ({ dryRun, tool }) =>
    !tool.tags.includes("web")
      ? Gate.skip("not a web tool")
      : Ref.modify(spent, (n): [Gate.Verdict, number] =>
        n >= max
          ? [Gate.refuse(new RateLimited({ tool: tool.name, limitRpm: max, retryAfterMs: 1_000, reason: "the budget is spent" })), n]
          : [Gate.pass(`${max - n - 1} left`), dryRun ? n : n + 1]))

const system = (gates: Layer.Layer<ToolGates, never, BuiltinGateServices>, records: Array<AuditRecord>) =>
  ToolSystem.layerNode({
    builtins: false,
    tools,
    workspace: Workspace.layerFixed(ws),
    policy: ToolPolicy.layer(({ tool }) => Effect.succeed(tool.name === "vetoed" ? Option.some("not today") : Option.none())),
    rateLimiter: RateLimiter.layerMemory,
    gates,
    audit: Layer.succeed(AuditLog, {
      enabled: true,
      includeArguments: false,
      write: (record) => Effect.sync(() => void records.push(record))
    })
  })

const names = ["lookup", "arguments", "paths", "mode", "policy", "confirmation", "rateLimit", "budget"]

describe("an application's own gate", () => {
  it.effect("runs after the built-in ones; execute, explain and the audit record agree on every decision", () =>
    Effect.gen(function*() {
      const spent = yield* Ref.make(0)
      const records: Array<AuditRecord> = []
      yield* Effect.gen(function*() {
        const system = yield* ToolSystem
        const calls: ReadonlyArray<readonly [string, unknown, ExecuteOptions?]> = [
          ["local", {}],
          ["web", { file: "a.txt" }],
          ["vetoed", {}],
          ["limited", {}],
          ["limited", {}],
          ["web", {}],
          ["web", {}],
          ["web", { file: "../out" }]
        ]
        for (const [name, args, options] of calls) {
          const explained = yield* system.explain(name, args, options)
          const exit = yield* Effect.exit(system.execute(name, args, options))
          const record = records.at(-1)!
          expect(record.gates.map((g) => g.gate)).toEqual(names)
          // the dry run saw what the call then met, gate by gate (a dry run takes no token or budget)
          expect(explained.gates).toEqual(record.gates)
          if (Exit.isSuccess(exit)) {
            expect(explained.wouldRun).toBe(exit.value.success)
            expect(explained.errorCode).toBe(exit.value.errorCode)
            expect(explained.message).toBe(exit.value.error)
          } else {
            expect(Cause.hasDies(exit.cause)).toBe(true)
            expect(explained.errorCode).toBe("PATH_TRAVERSAL")
          }
        }
        const outcomes = records.map((r) => `${r.tool}:${r.errorCode ?? "ok"}:${r.gates.at(-1)!.outcome}`)
        expect(outcomes).toEqual([
          "local:ok:skip",
          "web:ok:pass",
          // the policy refused first: the budget was never asked
          "vetoed:POLICY_VETO:not_reached",
          "limited:ok:pass",
          // the rate limit refused first: no budget spent
          "limited:RATE_LIMITED:not_reached",
          "web:ok:pass",
          // the budget's third and last call went: the fourth is refused
          "web:RATE_LIMITED:fail",
          "web:PATH_TRAVERSAL:not_reached"
        ])
        expect(records[6]!.gates.at(-1)!.reason).toContain("the budget is spent")
        // web, limited, web: the budget's three spent by calls, none by the dry runs
        expect(yield* Ref.get(spent)).toBe(3)
      }).pipe(Effect.provide(system(ToolGates.layerWith(budget(spent, 3)), records)))
    }))

  it.effect("an answer given at once waits its turn behind an earlier gate's effect", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      const records: Array<AuditRecord> = []
      const first = Gate.make("first", ({ tool }) =>
        Effect.sync(() => {
          asked.push(`first:${tool.name}`)
          return tool.name === "web" ? Gate.refuse(new PolicyVeto({ tool: tool.name, reason: "first says no" })) : Gate.pass("ok")
        }))
      const second = Gate.make("second", ({ tool }) =>
        Gate.refuse(new PolicyVeto({ tool: tool.name, reason: "second says no" })))
      yield* Effect.gen(function*() {
        const system = yield* ToolSystem
        const web = yield* system.execute("web", {})
        expect(web.error).toContain("first says no")
        const local = yield* system.execute("local", {})
        expect(local.error).toContain("second says no")
        expect(asked).toEqual(["first:web", "first:local"])
        expect(records.map((r) => r.gates.slice(-2).map((g) => `${g.gate}:${g.outcome}`))).toEqual([
          ["first:fail", "second:not_reached"],
          ["first:pass", "second:fail"]
        ])
      }).pipe(Effect.provide(system(ToolGates.layerWith(first, second), records)))
    }))

  it.effect("a name taken twice, or a step's, is refused when the layer is built", () =>
    Effect.gen(function*() {
      const open = Gate.make("open", () => Gate.pass("open"))
      for (const gates of [ToolGates.layerOnly(open, open), ToolGates.layerOnly(Gate.make("paths", () => Gate.pass("no")))]) {
        const exit = yield* Effect.exit(Layer.build(gates).pipe(Effect.scoped))
        expect(Exit.isFailure(exit) && Cause.hasDies(exit.cause)).toBe(true)
        expect(Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "").toMatch(/the gate name "(open|paths)" is taken twice/)
      }
    }))

  it.effect("layerOnly: exactly the given gates, no built-in one", () =>
    Effect.gen(function*() {
      const records: Array<AuditRecord> = []
      yield* Effect.gen(function*() {
        const system = yield* ToolSystem
        // the policy would veto it, but no policy gate is in the list
        expect((yield* system.execute("vetoed", {})).success).toBe(true)
        expect(records[0]!.gates.map((g) => g.gate)).toEqual(["lookup", "arguments", "paths", "only"])
      }).pipe(Effect.provide(system(ToolGates.layerOnly(Gate.make("only", () => Gate.pass("fine"))), records)))
    }))
})
