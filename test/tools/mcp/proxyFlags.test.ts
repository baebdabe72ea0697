/**
 * The flags a proxy gets from its server's annotations and its configuration, read from the
 * registry of a bridge built inside the test (not in a layer shared by a suite, whose proxies
 * are made before any test runs): read-only only for `readOnlyHint` from a trusted server,
 * confirmation unless the server is trusted and says `readOnlyHint`, or the configuration
 * lists the tool or turns confirmation off; the two mcp tags,
 * the call timeout as the tool's timeout, kept by the proxy's own request (the executor sets
 * no timer of its own).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { tempDir } from "../../helpers/tempDir.js"
import { nodeServer, openBridged } from "./helpers.js"

// live clock: a real MCP server process (servers/*.mjs); the bridge's own timers run on the live clock (process.ts liveClock)
describe("a proxy's flags", () => {
  it.live("come from readOnlyHint, the server's trust and confirmation settings, and its call timeout", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-flags-")
      const { system } = yield* openBridged(ws, {
        plain: nodeServer("echo.mjs"),
        trusted: nodeServer("echo.mjs", [], { trusted: true, callTimeoutMs: 1234 }),
        unasked: nodeServer("echo.mjs", [], { requiresConfirmation: false }),
        listed: nodeServer("echo.mjs", [], { toolsWithoutConfirmation: ["write"] }),
        asked: nodeServer("echo.mjs", [], { trusted: true, toolsWithoutConfirmation: ["write"], requiresConfirmation: true })
      })
      const flags = (name: string) =>
        Effect.map(system.registry.get(name), (tool) => ({
          readOnly: tool.spec.readOnly,
          requiresConfirmation: tool.requiresConfirmation,
          tags: tool.tags,
          timeoutMs: tool.timeoutMs,
          ownDeadline: tool.ownDeadline
        }))
      // readOnlyHint from an untrusted server: a hint only, neither read-only nor unconfirmed
      expect(yield* flags("plain__echo")).toEqual({
        readOnly: false,
        requiresConfirmation: true,
        tags: ["mcp", "mcp:plain"],
        timeoutMs: 60_000,
        ownDeadline: true
      })
      // no readOnlyHint: confirmation
      expect(yield* flags("plain__write")).toMatchObject({ readOnly: false, requiresConfirmation: true })
      // trusted: readOnlyHint makes it read-only; without the hint it is not
      expect(yield* flags("trusted__echo")).toEqual({
        readOnly: true,
        requiresConfirmation: false,
        tags: ["mcp", "mcp:trusted"],
        timeoutMs: 1234,
        ownDeadline: true
      })
      expect(yield* flags("trusted__write")).toMatchObject({ readOnly: false, requiresConfirmation: true })
      // the configuration turns confirmation off
      expect(yield* flags("unasked__write")).toMatchObject({ readOnly: false, requiresConfirmation: false })
      // the configuration lists a tool: that one needs none, the others still do
      expect(yield* flags("listed__write")).toMatchObject({ readOnly: false, requiresConfirmation: false })
      expect(yield* flags("listed__echo")).toMatchObject({ readOnly: false, requiresConfirmation: true })
      // requiresConfirmation: true wins over trust and the list
      expect(yield* flags("asked__echo")).toMatchObject({ readOnly: true, requiresConfirmation: true })
      expect(yield* flags("asked__write")).toMatchObject({ readOnly: false, requiresConfirmation: true })
    }))
})
