/**
 * Proxy names that would meet: a server listing one name twice, and two servers whose
 * `{server}__{tool}` names are the same. The first keeps the name, the other is skipped with a
 * warning; neither replaces the other.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { recordingLogs, textOf } from "../../helpers/recordingLogs.js"
import { tempDir } from "../../helpers/tempDir.js"
import { nodeServer, openBridged } from "./helpers.js"

// live clock: a real MCP server process (servers/*.mjs); the bridge's own timers run on the live clock (process.ts liveClock)
describe("proxy names that meet", () => {
  it.live("a name listed twice by one server, or made by two servers, is kept by the first and skipped for the other", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-collide-")
      const [seen, lines] = yield* recordingLogs(Effect.gen(function*() {
        const { bridge, system } = yield* openBridged(ws, {
          dup: nodeServer("paged.mjs", ["--names", "t,u,t"], { requiresConfirmation: false }),
          // "a_" + "__" + "_b" and "a" + "__" + "__b" are both "a____b"
          a_: nodeServer("paged.mjs", ["--names", "_b"], { requiresConfirmation: false }),
          a: nodeServer("paged.mjs", ["--names", "__b"], { requiresConfirmation: false })
        })
        const output = yield* system.execute("a____b", {})
        return { names: [...bridge.proxies.keys()].sort(), target: bridge.target("a____b"), output }
      }))
      expect(seen.names).toEqual(["a____b", "dup__t", "dup__u"])
      const target = Option.getOrThrow(seen.target)
      // the proxy calls the server that took the name, with its own tool name
      expect(seen.output).toMatchObject({ success: true, output: target.tool })
      const other = target.server === "a" ? { server: "a_", tool: "_b" } : { server: "a", tool: "__b" }
      const warnings = lines.map(textOf).filter((t) => t.includes("skipped: the name"))
      expect(warnings).toContain(`MCP server "dup": tool "t" skipped: the name "dup__t" is taken`)
      expect(warnings).toContain(`MCP server "${other.server}": tool "${other.tool}" skipped: the name "a____b" is taken`)
      expect(warnings).toHaveLength(2)
    }), 20_000)
})
