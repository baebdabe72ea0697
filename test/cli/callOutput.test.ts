/**
 * What `effect-tool-system call` prints for a result whose output has no JSON form (a tool an
 * application registers may return a bigint, a `Map`, a cycle): one readable JSON line, never a
 * crash, never a `Map` as `{}`. The command line loads only our tools, none of which returns
 * such a value, so the result comes from a test tool and goes through the printing function.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { resultLine } from "../../src/cli/call.js"
import { Tool, ToolSystem, Workspace } from "../../src/index.js"
import { tempDir } from "../helpers/tempDir.js"

const cyclic: Record<string, unknown> = { name: "loop" }
cyclic.self = cyclic
const outputs: Record<string, unknown> = { big: { n: 10n }, map: new Map([["a", 1n]]), cyclic }

const odd = Tool.make("odd_output", {
  description: "Returns a value with no JSON form",
  parameters: Schema.Struct({ kind: Schema.String }),
  readOnly: true,
  handler: ({ kind }) => Effect.succeed(outputs[kind])
})

describe("call: the printed result", () => {
  it.effect("a bigint, a Map, a cycle in the output: one line of JSON with the readable output", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("cli-readable-")
      const lines = yield* Effect.flatMap(ToolSystem, (system) =>
        Effect.forEach(Object.keys(outputs), (kind) => Effect.map(system.execute("odd_output", { kind }), resultLine))).pipe(
          Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [odd], workspace: Workspace.layerFixed(ws) }))
        )
      const printed = lines.map((line): Record<string, unknown> => {
        expect(line).not.toContain("\n")
        return JSON.parse(line)
      })
      expect(printed.map((p) => p.output)).toEqual([
        { n: "10n" },
        { Map: [["a", "1n"]] },
        { name: "loop", self: "[Circular]" }
      ])
      expect(printed[0]).toMatchObject({ success: true, tool: "odd_output", errorCode: null })
    }))
})
