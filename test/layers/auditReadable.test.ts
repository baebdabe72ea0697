/**
 * The audit record of a call whose arguments (and output) have no JSON form — an application's
 * own call may pass a bigint or a `Map` to a tool that takes any value — is written and
 * readable: its arguments kept as readable JSON (never dropped, never a `Map` as `{}`), their
 * hash telling different arguments apart, on the JSON-lines log and on the logger alike.
 *
 * Effect 4: `NodeServices` for `NodeContext`; the JSON logger is `Logger.formatJson`, installed
 * with `Logger.layer`.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Logger, Schema } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { Tool } from "../../src/index.js"
import { AuditLog, type AuditRecord } from "../../src/services/AuditLog.js"
import { ToolSystem } from "../../src/services/ToolSystem.js"
import { Workspace } from "../../src/services/Workspace.js"
import { tempDir } from "../helpers/tempDir.js"

const keep = Tool.make("keep", {
  description: "Returns the value it is given",
  parameters: Schema.Struct({ value: Schema.Unknown }),
  readOnly: true,
  handler: ({ value }) => Effect.succeed(value)
})

const calls: ReadonlyArray<{ readonly value: unknown }> = [
  { value: 5n },
  { value: 6n },
  { value: new Map([["k", 1n]]) }
]
const readable: ReadonlyArray<unknown> = [{ value: "5n" }, { value: "6n" }, { value: { Map: [["k", "1n"]] } }]

const runAll = (audit: Layer.Layer<AuditLog>, ws: string) =>
  Effect.flatMap(ToolSystem, (tools) => Effect.forEach(calls, (args) => tools.execute("keep", args))).pipe(
    Effect.provide(
      ToolSystem.layer({ builtins: false, tools: [keep], workspace: Workspace.layerFixed(ws), audit })
        .pipe(Layer.provide(NodeServices.layer), Layer.provide(FetchHttpClient.layer))
    )
  )

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

describe("the audit record of arguments with no JSON form", () => {
  it.effect("JSON lines: every record written, its arguments readable, their hashes apart", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("audit-readable-")
      const file = path.join(ws, "audit.jsonl")
      const results = yield* runAll(
        AuditLog.layerJsonl({ file, includeArguments: true }).pipe(Layer.provide(NodeServices.layer)),
        ws
      )
      expect(results.map((r) => r.success)).toEqual([true, true, true])
      const records = fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "")
        .map((l): AuditRecord & { readonly argumentsError?: string } => JSON.parse(l))
      expect(records.map((r) => r.arguments)).toEqual(readable)
      expect(records.every((r) => r.argumentsError === undefined)).toBe(true)
      expect(records.map((r) => r.argumentsHash)).toEqual(readable.map((args) => sha256(JSON.stringify(args))))
      expect(new Set(records.map((r) => r.argumentsHash)).size).toBe(3)
    }))

  it.effect("the logger: the record a JSON logger prints carries the readable arguments", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("audit-readable-")
      const lines: Array<string> = []
      const capture = Logger.layer([Logger.map(Logger.formatJson, (line) => void lines.push(line))])
      yield* runAll(AuditLog.layerLogger({ includeArguments: true }), ws).pipe(Effect.provide(capture))
      const printed = lines.map((line): { readonly annotations: { readonly audit: AuditRecord } } => JSON.parse(line))
      expect(printed.map((p) => p.annotations.audit.arguments)).toEqual(readable)
    }))
})
