/**
 * Running ported tools through the real executor, in a temp workspace (`runner`, which
 * `test/tools/ported/data/harness.ts` re-exports, and the text tools' tests use), and whether
 * this is the mutation run.
 */
import { Effect } from "effect"
import { ToolSystem, Workspace } from "../../src/index.js"
import type { Tool } from "../../src/tools/define.js"

/** A runner for `tools` in the workspace `root`. */
export const runner = <const Tools extends ReadonlyArray<Tool<unknown>>>(tools: Tools, root: () => string) =>
(name: string, args: Record<string, unknown>) =>
  Effect.gen(function*() {
    const system = yield* ToolSystem
    return yield* system.execute(name, args)
  }).pipe(Effect.provide(ToolSystem.layerNode({ builtins: false, tools, workspace: Workspace.layerFixed(root()) })))

/**
 * Whether this is StrykerJS's run (`vitest.stryker.config.ts` sets the variable). Tests that
 * feed a tool tens of megabytes to show its work is linear are skipped there: Stryker's
 * coverage instrumentation makes every line of the tool many times slower.
 */
export const underMutationTesting = process.env.EFFECT_TOOL_SYSTEM_MUTATION_RUN === "1"
