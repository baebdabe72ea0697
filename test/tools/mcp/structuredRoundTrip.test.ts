/**
 * Issue 50, structured output, round trip: our server's tools (served over HTTP) bridged back
 * in through our own bridge. The bridge screens and compiles the `outputSchema` we list as it
 * does any server's (`listingLimits.ts`) and checks each answer's `structuredContent` against it
 * (`outputCheck.ts`): the two sides agree, in both eras.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ToolSystem, Workspace } from "../../../src/index.js"
import { serveMcpHttp } from "../../../src/tools/mcp/http.js"
import { recordingLogsWith, textOf } from "../../helpers/recordingLogs.js"
import { tempDir } from "../../helpers/tempDir.js"
import { openBridged } from "./helpers.js"
import { allTools, measure } from "./resultHarness.js"

describe("structured output bridged back in", () => {
  it.live("our outputSchema passes the bridge's screen, and our structuredContent its check", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* tempDir("mcp-roundtrip-served-")
      const { url } = yield* serveMcpHttp({ confirmation: "auto" }).pipe(
        Effect.provide(ToolSystem.layerNode({ builtins: false, tools: allTools, workspace: Workspace.layerFixed(served) }))
      )
      const ws = yield* tempDir("mcp-roundtrip-")
      const [{ bridge, system }, lines] = yield* recordingLogsWith(() =>
        openBridged(ws, {
          old: { url, protocol: "legacy", trusted: true },
          now: { url, protocol: "2026-07-28", trusted: true }
        })
      )
      expect(bridge.skipped).toEqual([])
      // no tool was left out, and no output schema is checked only in part
      expect(lines.map(textOf).filter((line) => line.includes("output schema"))).toEqual([])
      expect([...bridge.proxies.keys()].filter((name) => name.endsWith("__measure")).sort()).toEqual(["now__measure", "old__measure"])
      for (const server of ["old", "now"]) {
        const result = yield* system.execute(`${server}__measure`, { n: 4 })
        expect(result).toMatchObject({ success: true })
        // the proxy's output is the text (the structured content, checked on the way, as JSON)
        expect(typeof result.output === "string" ? JSON.parse(result.output) : undefined).toEqual({ n: 4, label: "n=4", tags: ["a", "b"], pair: ["p", 4], at: "2026-01-02T00:00:00.000Z" })
      }
      expect(measure.outputSchema).toBeDefined()
    })))
})
