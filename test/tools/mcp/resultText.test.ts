/**
 * Text from a server reaches the model clean (issue 47, item 9): a real server
 * (`servers/dirty.mjs`) puts ESC sequences (CSI and OSC), BEL, NUL, bidi overrides and
 * isolates, and CR into a tool's result, a resource's text, an `isError` answer and a tool's
 * description; what the proxy passes on has none of them, and keeps `\n`
 * and `\t` (a CR becomes `\n`).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { tempDir } from "../../helpers/tempDir.js"
import { nodeServer, openBridged } from "./helpers.js"

/** The clean form of the server's text. */
const CLEAN = "aredbcd\ne\nf\n\tgh"

/** Any character a model should not get from outside: C0 controls but \n and \t, DEL, C1, bidi controls. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/

// live clock: a real MCP server process (servers/*.mjs); the bridge's own timers run on the live clock (process.ts liveClock)
describe("text a server sends", () => {
  it.live("reaches the model without escapes, controls, bidi controls or CR, in results, errors and descriptions", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-dirty-")
      const { scope, system } = yield* openBridged(ws, {
        dirty: nodeServer("dirty.mjs", [], { requiresConfirmation: false })
      })
      const result = yield* system.execute("dirty__result", {})
      expect(result.success).toBe(true)
      expect(result.output).toBe(`${CLEAN}\n${CLEAN}`)

      const failure = yield* system.execute("dirty__failure", {})
      expect(failure).toMatchObject({ success: false, errorCode: "TOOL_ERROR" })
      expect(failure.error).toContain(CLEAN)
      expect(failure.error).not.toMatch(HIDDEN)

      const described = yield* system.registry.get("dirty__result")
      expect(described.spec.description).toBe(`Gives ${CLEAN}`)
      yield* Scope.close(scope, Exit.void)
    }))
})
