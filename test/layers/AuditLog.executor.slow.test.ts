/**
 * The audit trail through the whole system: `ToolSystem.layer({ audit: AuditLog.layerJsonl })`
 * under 10,000 concurrent calls, successes and refusals mixed.
 *
 * On Effect 4: the `ToolSystem` `audit` option is a `Layer<AuditLog>` (the Effect 3 line's, tag
 * effect3, takes one needing `FileSystem | Path`), so `layerJsonl` gets `NodeServices.layer` here.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as fs from "node:fs"
import * as path from "node:path"
import { gateOrder } from "../../src/domain/GateDecision.js"
import { Tool } from "../../src/index.js"
import { AuditLog, type AuditLogJsonlOptions, type AuditRecord } from "../../src/services/AuditLog.js"
import { ToolSystem } from "../../src/services/ToolSystem.js"
import { Workspace } from "../../src/services/Workspace.js"
import { tempDir } from "../helpers/tempDir.js"

const echo = Tool.make("echo", {
  description: "Echoes its text",
  parameters: Schema.Struct({ text: Schema.String }),
  readOnly: true,
  handler: ({ text }) => Effect.succeed(text)
})

// the `audit` option takes a layer without requirements: the jsonl log gets Node's file system here
const systemWith = (ws: string, audit: AuditLogJsonlOptions) =>
  ToolSystem.layer({
    builtins: false,
    tools: [echo],
    workspace: Workspace.layerFixed(ws),
    audit: AuditLog.layerJsonl(audit).pipe(Layer.provide(NodeServices.layer))
  })
    .pipe(Layer.provide(NodeServices.layer), Layer.provide(FetchHttpClient.layer))

const recordsOf = (file: string): Array<AuditRecord> =>
  fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((l): AuditRecord => JSON.parse(l))

describe("the audit trail of ToolSystem", () => {
  it.live("10,000 concurrent calls: exactly 10,000 parseable records, one per call", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("audit-system-")
      const file = path.join(ws, "audit.jsonl")
      const results = yield* Effect.gen(function*() {
        const tools = yield* ToolSystem
        // every 10th call has arguments the schema refuses
        return yield* Effect.forEach(
          Array.from({ length: 10_000 }, (_, i) => i),
          (i) => tools.execute("echo", i % 10 === 0 ? { text: i } : { text: `t${i}` }, { callId: `call-${i}` }),
          { concurrency: "unbounded" }
        )
      }).pipe(Effect.provide(systemWith(ws, { file })))
      expect(results.filter((r) => r.success)).toHaveLength(9_000)

      const lines = fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "")
      expect(lines).toHaveLength(10_000)
      const records = lines.map((l): AuditRecord => JSON.parse(l))
      expect(new Set(records.map((r) => r.callId)).size).toBe(10_000)
      const refused = records.filter((r) => !r.success)
      expect(refused).toHaveLength(1_000)
      expect(refused.every((r) => r.errorCode === "INVALID_ARGUMENTS" && Number(r.callId?.slice(5)) % 10 === 0)).toBe(true)
      const sample = records.find((r) => r.callId === "call-7")
      expect(sample).toMatchObject({ tool: "echo", version: "1.0.0", mode: "default", success: true, errorCode: null })
      expect(sample?.gates.map((g) => g.gate)).toEqual([...gateOrder])
      expect(sample?.arguments).toBeUndefined()
    }), 60_000)

  it.live("includeArguments: the records carry the arguments", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("audit-system-")
      const file = path.join(ws, "audit.jsonl")
      yield* Effect.flatMap(ToolSystem, (tools) => tools.execute("echo", { text: "kept" })).pipe(
        Effect.provide(systemWith(ws, { file, includeArguments: true }))
      )
      expect(recordsOf(file)).toMatchObject([{ tool: "echo", success: true, arguments: { text: "kept" } }])
    }))
})
