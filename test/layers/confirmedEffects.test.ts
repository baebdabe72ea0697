/**
 * Confirmation at the moment of the effect (`confirmEffect`), through `ToolSystem` with the
 * default `ConfirmationGate`: a call of a tool that asks for it as it acts, made with
 * `confirm: true`, has its effect confirmed; made without, it ends `CONFIRMATION_REQUIRED` and
 * its audit record fails the confirmation gate alone, every other decision as the call made it;
 * a tool that does not declare `asksConfirmation` never has its effect confirmed, even in a call
 * made with `confirm: true`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { AuditLog, type AuditRecord, Tool, ToolSystem, Workspace } from "../../src/index.js"
import { confirmEffect } from "../../src/services/CallConfirmation.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const ws = makeTempDirSync("confirmed-effects-")

const stamper = (name: string, stamped: Array<string>, asksConfirmation?: string) =>
  Tool.make(name, {
    description: "Stamps, once its effect is confirmed",
    parameters: Schema.Struct({}),
    readOnly: false,
    ...(asksConfirmation === undefined ? {} : { asksConfirmation }),
    handler: () =>
      Effect.andThen(
        confirmEffect(name, "would stamp"),
        Effect.sync(() => {
          stamped.push(name)
          return "stamped"
        })
      )
  })

const system = (tools: ReadonlyArray<Tool.Tool<never>>, records: Array<AuditRecord>) =>
  ToolSystem.layerNode({
    builtins: false,
    tools,
    workspace: Workspace.layerFixed(ws),
    audit: Layer.succeed(AuditLog, {
      enabled: true,
      includeArguments: false,
      write: (record) => Effect.sync(() => void records.push(record))
    })
  })

describe("a tool that asks for confirmation as it acts", () => {
  it.effect("acts in a call made with confirm: true", () =>
    Effect.gen(function*() {
      const stamped: Array<string> = []
      const r = yield* Effect.flatMap(ToolSystem, (tools) => tools.execute("stamp", {}, { confirm: true })).pipe(
        Effect.provide(system([stamper("stamp", stamped, "when it stamps")], []))
      )
      expect(r).toMatchObject({ success: true, output: "stamped" })
      expect(stamped).toEqual(["stamp"])
    }))

  it.effect("unconfirmed: CONFIRMATION_REQUIRED, and the record fails the confirmation gate alone", () =>
    Effect.gen(function*() {
      const stamped: Array<string> = []
      const records: Array<AuditRecord> = []
      const [explained, r] = yield* Effect.flatMap(ToolSystem, (tools) =>
        Effect.zip(tools.explain("stamp", {}), tools.execute("stamp", {}))).pipe(
          Effect.provide(system([stamper("stamp", stamped, "when it stamps")], records))
        )
      expect(r).toMatchObject({ success: false, errorCode: "CONFIRMATION_REQUIRED", error: "Confirmation required: would stamp" })
      expect(stamped).toEqual([])
      // the dry run passed every gate; the call was refused as its handler acted
      expect(explained.wouldRun).toBe(true)
      expect(records[0]!.gates).toEqual(explained.gates.map((g) =>
        g.gate === "confirmation"
          ? { gate: "confirmation", outcome: "fail", reason: "Confirmation required: would stamp", code: "CONFIRMATION_REQUIRED" }
          : g
      ))
    }))
})

describe("a tool that does not declare asksConfirmation", () => {
  it.effect("never has its effect confirmed, even in a call made with confirm: true", () =>
    Effect.gen(function*() {
      const stamped: Array<string> = []
      const r = yield* Effect.flatMap(ToolSystem, (tools) => tools.execute("undeclared", {}, { confirm: true })).pipe(
        Effect.provide(system([stamper("undeclared", stamped)], []))
      )
      expect(r).toMatchObject({ success: false, errorCode: "CONFIRMATION_REQUIRED", error: "Confirmation required: would stamp" })
      expect(stamped).toEqual([])
    }))
})
