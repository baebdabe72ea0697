/**
 * The audit record of a call, through `ToolSystem` with a recording `AuditLog`: each gate's
 * outcome read off the result (the refusing gate fails with the call's message and code, the
 * gates before it passed or did not apply, none after it ran), the arguments' hash (of their
 * JSON, or of their string form when they have none), the arguments only when the log keeps
 * them, and the call's id and rate-limit key.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Schema } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import {
  AgentMode,
  AuditLog,
  type AuditRecord,
  type ExecuteOptions,
  RateLimiter,
  Tool,
  ToolError,
  ToolPolicy,
  ToolSystem,
  Workspace,
  WorkspacePath
} from "../../src/index.js"
import type { GateDecision } from "../../src/domain/GateDecision.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const ws = makeTempDirSync("audit-record-")
fs.writeFileSync(path.join(ws, "a.txt"), "a")

const peek = Tool.make("peek", {
  description: "Reads nothing",
  parameters: Schema.Struct({ file: WorkspacePath }),
  readOnly: true,
  handler: () => Effect.succeed("seen")
})
const poke = Tool.make("poke", {
  description: "Has side effects",
  parameters: Schema.Struct({ file: WorkspacePath }),
  version: "2.1.0",
  handler: () => Effect.succeed("poked")
})
const vetoed = Tool.make("vetoed", {
  description: "The policy refuses it",
  parameters: Schema.Struct({}),
  readOnly: true,
  handler: () => Effect.succeed("never")
})
const guarded = Tool.make("guarded", {
  description: "Needs confirmation",
  parameters: Schema.Struct({}),
  readOnly: true,
  requiresConfirmation: true,
  handler: () => Effect.succeed("confirmed")
})
const limited = Tool.make("limited", {
  description: "One call a minute",
  parameters: Schema.Struct({}),
  readOnly: true,
  rateLimitRpm: 1,
  handler: () => Effect.succeed("once")
})
const fails = Tool.make("fails", {
  description: "Its handler fails",
  parameters: Schema.Struct({}),
  readOnly: true,
  handler: () => Effect.fail(new ToolError({ tool: "fails", message: "it broke" }))
})

const system = (records: Array<AuditRecord>, includeArguments = false) =>
  ToolSystem.layerNode({
    builtins: false,
    tools: [peek, poke, vetoed, guarded, limited, fails],
    workspace: Workspace.layerFixed(ws),
    policy: ToolPolicy.layer(({ tool }) => Effect.succeed(tool.name === "vetoed" ? Option.some("not today") : Option.none())),
    rateLimiter: RateLimiter.layerMemory,
    audit: Layer.succeed(AuditLog, {
      enabled: true,
      includeArguments,
      write: (record) => Effect.sync(() => void records.push(record))
    })
  })

/** Runs one call and returns its result and the one record it wrote. */
const call = (records: Array<AuditRecord>, name: string, args: unknown, options?: ExecuteOptions) =>
  Effect.gen(function*() {
    const before = records.length
    const result = yield* Effect.flatMap(ToolSystem, (tools) => tools.execute(name, args, options))
    expect(records.length).toBe(before + 1)
    return { result, record: records[before]! }
  })

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

const notReached = (gate: GateDecision["gate"]): GateDecision => ({
  gate,
  outcome: "not_reached",
  reason: "an earlier gate refused the call"
})
const found = (name: string, version = "1.0.0"): GateDecision => ({ gate: "lookup", outcome: "pass", reason: `${name} ${version}` })
const decoded: GateDecision = { gate: "arguments", outcome: "pass", reason: "the arguments match the parameter schema" }
const onePath: GateDecision = { gate: "paths", outcome: "pass", reason: "1 path(s) inside the workspace" }
const noPaths: GateDecision = { gate: "paths", outcome: "skip", reason: "no path arguments" }
const inDefault: GateDecision = { gate: "mode", outcome: "pass", reason: "allowed in default mode" }
const noVeto: GateDecision = { gate: "policy", outcome: "pass", reason: "the policy allowed it" }
const noConfirmation: GateDecision = { gate: "confirmation", outcome: "skip", reason: "the tool needs no confirmation" }
const noLimit: GateDecision = { gate: "rateLimit", outcome: "skip", reason: "the tool has no rate limit" }

describe("the audit record's gates", () => {
  it.effect("a call that ran: every gate passed or did not apply, and says which", () =>
    Effect.gen(function*() {
      const records: Array<AuditRecord> = []
      yield* Effect.gen(function*() {
        const { record } = yield* call(records, "peek", { file: "a.txt" })
        expect(record.gates).toEqual([
          found("peek"),
          decoded,
          onePath,
          inDefault,
          noVeto,
          noConfirmation,
          noLimit
        ])
        const confirmed = yield* call(records, "guarded", {}, { confirm: true })
        expect(confirmed.record.gates.slice(5)).toEqual([{ gate: "confirmation", outcome: "pass", reason: "confirmed" }, noLimit])
        const limitedOnce = yield* call(records, "limited", {})
        expect(limitedOnce.record.gates.slice(5)).toEqual([
          noConfirmation,
          { gate: "rateLimit", outcome: "pass", reason: "within 1 calls a minute" }
        ])
        // a handler's own failure is no gate's refusal
        const failed = yield* call(records, "fails", {})
        expect(failed.record).toMatchObject({ success: false, errorCode: "TOOL_ERROR" })
        expect(failed.record.gates.every((g) => g.outcome === "pass" || g.outcome === "skip")).toBe(true)
      }).pipe(Effect.provide(system(records)))
    }))

  it.effect("a refusal: the refusing gate fails with the call's message and code; none after it ran", () =>
    Effect.gen(function*() {
      const records: Array<AuditRecord> = []
      const refusals: ReadonlyArray<{
        readonly name: string
        readonly args: unknown
        readonly options?: ExecuteOptions
        readonly code: string
        readonly before: ReadonlyArray<GateDecision>
      }> = [
        { name: "peeek", args: {}, code: "TOOL_NOT_FOUND", before: [] },
        { name: "peek", args: { file: 3 }, code: "INVALID_ARGUMENTS", before: [found("peek")] },
        {
          name: "poke",
          args: { file: "a.txt" },
          options: { mode: AgentMode.Explore },
          code: "MODE_BLOCKED",
          before: [found("poke", "2.1.0"), decoded, onePath]
        },
        {
          name: "vetoed",
          args: {},
          code: "POLICY_VETO",
          before: [found("vetoed"), decoded, noPaths, inDefault]
        },
        {
          name: "guarded",
          args: {},
          code: "CONFIRMATION_REQUIRED",
          before: [found("guarded"), decoded, noPaths, inDefault, noVeto]
        },
        {
          name: "limited",
          args: {},
          code: "RATE_LIMITED",
          before: [found("limited"), decoded, noPaths, inDefault, noVeto, noConfirmation]
        }
      ]
      yield* Effect.gen(function*() {
        // the one token of `limited` goes first
        expect((yield* call(records, "limited", {})).result.success).toBe(true)
        for (const r of refusals) {
          const { record, result } = yield* call(records, r.name, r.args, r.options)
          expect(result.errorCode).toBe(r.code)
          expect(record).toMatchObject({ tool: r.name, success: false, errorCode: r.code })
          const gate = r.before.length
          expect(record.gates.slice(0, gate)).toEqual(r.before)
          expect(record.gates[gate]).toEqual({
            gate: ["lookup", "arguments", "paths", "mode", "policy", "confirmation", "rateLimit"][gate],
            outcome: "fail",
            reason: result.error,
            code: r.code
          })
          expect(record.gates.slice(gate + 1)).toEqual(record.gates.slice(gate + 1).map((g) => notReached(g.gate)))
          expect(record.gates).toHaveLength(7)
        }
      }).pipe(Effect.provide(system(records)))
    }))
})

describe("the audit record's fields", () => {
  it.effect("the arguments' SHA-256 of their JSON; of their readable JSON when they have no JSON", () =>
    Effect.gen(function*() {
      const records: Array<AuditRecord> = []
      yield* Effect.gen(function*() {
        const args = { file: "a.txt" }
        const { record } = yield* call(records, "peek", args)
        expect(record.argumentsHash).toBe(sha256(JSON.stringify(args)))
        expect("arguments" in record).toBe(false)
        // a BigInt has no JSON form: the hash is of its readable JSON; the call is refused
        const big = yield* call(records, "peek", { file: 1n })
        expect(big.record.argumentsHash).toBe(sha256(JSON.stringify({ file: "1n" })))
        expect(big.record.errorCode).toBe("INVALID_ARGUMENTS")
        // nothing at all: JSON.stringify gives no text
        const none = yield* call(records, "vetoed", undefined)
        expect(none.record.argumentsHash).toBe(sha256("undefined"))
      }).pipe(Effect.provide(system(records)))
    }))

  it.effect("the arguments themselves only when the log keeps them; the call's id and rate-limit key", () =>
    Effect.gen(function*() {
      const records: Array<AuditRecord> = []
      yield* Effect.gen(function*() {
        const kept = yield* call(records, "peek", { file: "a.txt" }, { callId: "c-7", rateLimitKey: "alice" })
        expect(kept.record).toMatchObject({
          tool: "peek",
          version: "1.0.0",
          callId: "c-7",
          rateLimitKey: "alice",
          arguments: { file: "a.txt" },
          // the test clock starts at 0
          time: new Date(0).toISOString()
        })
        const bare = yield* call(records, "poke", { file: "a.txt" })
        expect(bare.record).toMatchObject({ version: "2.1.0", callId: null, rateLimitKey: null, success: true })
      }).pipe(Effect.provide(system(records, true)))
    }))
})
