/**
 * What a model reads of a handler's failure and of an output with no JSON form: a
 * `Schema.TaggedError` without a `message` keeps its tag and fields, its `details` and message
 * name workspace paths relative and no other host path, and a bigint, a `Map`, a `Set` or a
 * cycle in an output reads as text (never `[object Object]`, never a throw).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { Tool, ToolSystem, Workspace } from "../../src/index.js"
import { resultText } from "../../src/domain/toolMessages.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

class ImageQuota extends Schema.TaggedError<ImageQuota>()("ImageQuota", {
  id: Schema.Number,
  file: Schema.String,
  config: Schema.String
}) {}

let ws: string
beforeAll(() => {
  ws = Fs.realpathSync(makeTempDirSync("definition-errors-"))
})
afterAll(() => Fs.rmSync(ws, { recursive: true, force: true }))

const HOST_FILE = "/home/alice/clients/acme/settings.json"

const failing = Tool.make("quota", {
  description: "fails",
  parameters: Schema.Struct({}),
  handler: () => Effect.fail(new ImageQuota({ id: 2, file: Path.join(ws, "out", "cat.png"), config: HOST_FILE }))
})

const outputs: Record<string, unknown> = { big: { n: 10n }, map: new Map([["a", 1]]), set: new Set(["x"]) }
const cyclic: Record<string, unknown> = { name: "loop" }
cyclic.self = cyclic
outputs.cyclic = cyclic

const returning = Tool.make("odd_output", {
  description: "returns a value with no JSON form",
  parameters: Schema.Struct({ kind: Schema.String }),
  readOnly: true,
  handler: ({ kind }) => Effect.succeed(outputs[kind])
})

const execute = (name: string, args: unknown) =>
  Effect.flatMap(ToolSystem, (system) => system.execute(name, args)).pipe(
    Effect.provide(
      ToolSystem.layerNode({ builtins: false, tools: [failing, returning], workspace: Workspace.layerFixed(ws) })
    )
  )

describe("a handler's failure as the model reads it", () => {
  it.effect("a message-less Schema.TaggedError keeps its tag and fields; no absolute host path", () =>
    Effect.gen(function*() {
      const result = yield* execute("quota", {})
      const text = resultText(result)
      expect(text).toContain("ImageQuota")
      expect(text).toContain("id: 2")
      expect(text).toContain("out/cat.png")
      expect(text).not.toContain(ws)
      expect(text).not.toContain("/home/alice")
      expect(text).toContain("settings.json")
      expect(result.success === false && result.details).toEqual({
        id: 2,
        file: "out/cat.png",
        config: "…/settings.json"
      })
    }))
})

describe("an output with no JSON form as the model reads it", () => {
  it.effect("a bigint, a Map, a Set, a cycle: readable text", () =>
    Effect.gen(function*() {
      const texts: Record<string, string> = {}
      for (const kind of Object.keys(outputs)) {
        const result = yield* execute("odd_output", { kind })
        expect(result.success, kind).toBe(true)
        texts[kind] = resultText(result)
        expect(texts[kind], kind).not.toContain("[object Object]")
      }
      expect(texts.big).toContain("10n")
      expect(texts.map).toContain("\"a\"")
      expect(texts.set).toContain("\"x\"")
      expect(texts.cyclic).toContain("loop")
    }))
})
