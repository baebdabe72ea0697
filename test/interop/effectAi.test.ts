/**
 * The registry as an `effect/ai` toolkit (Effect 4's `effect/ai`): `LanguageModel.generateText({
 * toolkit })` with a scripted model (no network) runs every call through our gates. And the main
 * entry point never loads `effect/ai`.
 *
 * On Effect 4: the tools are `Tool.dynamic` ones carrying the spec's JSON Schema, so the model
 * is given it through `Tool.getJsonSchema` (the Effect 3 line, tag effect3, read it back from
 * the parameters schema's annotation). The system holds only the builtin file tools
 * (`builtins: false`).
 * `generateText` resolves a response's calls concurrently and lists their results as they end,
 * so the results are compared by call id (`@effect/ai` 0.37 listed them in the calls' order).
 * The approval of tools that require confirmation is tested in `effectAiApproval.test.ts`.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { LanguageModel as Model, Tool as AiTool } from "effect/ai"
import * as fs from "node:fs"
import * as path from "node:path"
import * as AgentMode from "../../src/domain/AgentMode.js"
import { isPathTraversal } from "../../src/domain/errors.js"
import { toEffectAiToolkit } from "../../src/interop/effectAi.js"
import { ToolRegistry } from "../../src/services/ToolRegistry.js"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { handlerIn, scriptedModel, toolCall } from "./effectAiHarness.js"

const ws = makeTempDirSync("effect-ai-")
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))
fs.writeFileSync(path.join(ws, "hello.txt"), "hello\n")

const live = handlerIn(ws)

describe("toEffectAiToolkit", () => {
  it.effect("gives the model the mode's tools with their own JSON Schemas", () =>
    Effect.gen(function*() {
      const seen: Array<Model.ProviderOptions> = []
      const { withHandler } = yield* toEffectAiToolkit({ mode: AgentMode.Explore })
      yield* Model.generateText({ prompt: "hi", toolkit: withHandler }).pipe(
        Effect.provide(scriptedModel([[{ type: "text", text: "nothing to do" }]], seen))
      )
      const given = seen[0]?.tools ?? []
      const registry = yield* ToolRegistry
      const specs = yield* registry.specs({ mode: AgentMode.Explore })
      expect(given.map((t) => t.name)).toEqual(specs.map((s) => s.name))
      expect(given.map((t) => t.name)).not.toContain("write_file")
      for (const tool of given) {
        const spec = specs.find((s) => s.name === tool.name)
        expect(AiTool.getJsonSchema(tool)).toEqual(spec?.parameters)
        expect(tool.description).toBe(spec?.description)
      }
    }).pipe(Effect.provide(live)))

  it.effect("runs the model's calls through our gates: results, refusals and bad arguments come back to the model", () =>
    Effect.gen(function*() {
      const { withHandler } = yield* toEffectAiToolkit({ mode: AgentMode.Explore })
      const response = yield* Model.generateText({ prompt: "read it", toolkit: withHandler }).pipe(
        Effect.provide(scriptedModel([[
          toolCall("c1", "read_file", { filepath: "hello.txt" }),
          toolCall("c2", "read_file", { filepath: 7 }),
          toolCall("c3", "list_files", { recursive: "yes" })
        ]]))
      )
      // effect/ai 4 resolves a response's calls concurrently and lists their results as they end
      const results = response.toolResults.map((r) => ({ id: r.id, isFailure: r.isFailure, result: r.result }))
        .sort((a, b) => a.id.localeCompare(b.id))
      expect(results).toEqual([
        { id: "c1", isFailure: false, result: "hello\n" },
        { id: "c2", isFailure: true, result: expect.stringMatching(/^Error \[INVALID_ARGUMENTS\]: .*filepath/) },
        { id: "c3", isFailure: true, result: expect.stringMatching(/^Error \[INVALID_ARGUMENTS\]: .*recursive/) }
      ])
    }).pipe(Effect.provide(live)))

  it.effect("a workspace escape is the PATH_TRAVERSAL defect, not a tool result", () =>
    Effect.gen(function*() {
      const { withHandler } = yield* toEffectAiToolkit()
      const exit = yield* Effect.exit(
        Model.generateText({ prompt: "x", toolkit: withHandler }).pipe(
          Effect.provide(scriptedModel([[toolCall("e1", "read_file", { filepath: "../../etc/passwd" })]]))
        )
      )
      expect(Exit.isFailure(exit) && isPathTraversal(exit.cause)).toBe(true)
    }).pipe(Effect.provide(live)))
})

describe("the main entry point", () => {
  it("never imports effect/ai, directly or through any module it loads", () => {
    const root = path.resolve(import.meta.dirname, "../../src")
    const seen = new Set<string>()
    const external = new Set<string>()
    const visit = (file: string) => {
      if (seen.has(file)) return
      seen.add(file)
      const text = fs.readFileSync(file, "utf8")
      for (const match of text.matchAll(/(?:import|export)\s[^"']*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|import\s+["']([^"']+)["']/g)) {
        const specifier = match[1] ?? match[2] ?? match[3] ?? ""
        if (specifier.startsWith(".")) visit(path.resolve(path.dirname(file), specifier.replace(/\.js$/, ".ts")))
        else external.add(specifier)
      }
    }
    const isEffectAi = (specifier: string) => specifier === "effect/ai" || specifier.startsWith("effect/ai/")
    visit(path.join(root, "index.ts"))
    expect(seen.size).toBeGreaterThan(20)
    // the walk saw the package imports (effect's modules are imported one by one)
    expect(external).toContain("effect/Effect")
    expect([...external].filter(isEffectAi)).toEqual([])
    // the interop module itself does import it
    seen.clear()
    external.clear()
    visit(path.join(root, "interop/effectAi.ts"))
    expect([...external].some(isEffectAi)).toBe(true)
  })
})
