/**
 * A hostile server's huge question does not hold the bridge's event loop: a 2025 stdio server
 * (servers/asking.mjs `ask_big`) asks a form of 20,000 fields (1.7 MB). The bridge declines it
 * unseen, and no stretch of the loop is held for 100 ms or more while it takes the message and
 * reads the form. Measured here (one run each, a loaded machine): through the SDK's own check of
 * the question, which the bridge no longer runs, 390 ms (20,000 fields), 750 ms (50,000) and
 * 1,550 ms (100,000, 8.8 MB); through the desk 30, 70 and 190 ms, which is what taking such a
 * message costs with no elicitation at all (30, 60, 210 ms: answered Method not found): past
 * some 50,000 fields the transport's own work on one message passes 100 ms, whatever it holds.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Scope } from "effect"
import { McpBridge } from "../../../src/services/McpBridge.js"
import { McpElicitation } from "../../../src/services/McpElicitation.js"
import { ToolSystem } from "../../../src/services/ToolSystem.js"
import { Workspace } from "../../../src/services/Workspace.js"
import { MAX_BLOCK_MS, measureRepeatedBlocking } from "../../helpers/loopDelay.js"
import { tempDir } from "../../helpers/tempDir.js"
import { fast, nodeServer } from "./helpers.js"

describe("a huge question (elicitation)", () => {
  it.live("is declined unseen, and holds the event loop less than 100 ms", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-elicit-big-")
      let asked = 0
      const layer = McpBridge.layer({ asker: nodeServer("asking.mjs", [], { requiresConfirmation: false }) }, fast).pipe(
        Layer.provideMerge(ToolSystem.layerNode({ builtins: false, workspace: Workspace.layerFixed(ws) })),
        Layer.provide(McpElicitation.layer(() => Effect.sync(() => (asked++, { action: "accept" as const, content: {} }))))
      )
      const scope = yield* Effect.acquireRelease(Scope.make(), (scope, exit) => Scope.close(scope, exit))
      const system = Context.get(yield* Layer.buildWithScope(layer, scope), ToolSystem)
      const run = () => Effect.runPromise(system.execute("asker__ask_big", { n: 20_000 }))
      const { maxBlockMs, value } = yield* Effect.promise(() => measureRepeatedBlocking(run))
      expect(JSON.parse(String(value.output))).toEqual({ result: { action: "decline" } })
      expect(asked).toBe(0)
      expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
    }), 60_000)
})
