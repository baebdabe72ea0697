/**
 * A JSON-RPC error answer from a server reaches the model clean and bounded (issue 47, items 1
 * and 9): a real server (`servers/errorAnswers.mjs`) answers `tools/call` with an error whose
 * message carries ESC sequences, BEL, NUL, bidi controls and CR, once short and once padded to
 * 10 MB, for a tool without and a tool with an output schema. The failed call's error has none
 * of those characters (`\n` and `\t` stay, a CR becomes `\n`), is cut to a few thousand
 * characters saying so, and the call does not hold the event loop.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { MAX_BLOCK_MS, measureRepeatedBlocking } from "../../helpers/loopDelay.js"
import { tempDir } from "../../helpers/tempDir.js"
import { nodeServer, openBridged } from "./helpers.js"

/** The clean form of the server's text. */
const CLEAN = "aredbcd\ne\nf\n\tgh"

/** Any character a model should not get from outside: C0 controls but \n and \t, DEL, C1, bidi controls. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/

/** A 10 MB message (within the bridge's 10 MiB message cap, envelope included). */
const TEN_MB = 10_000_000

// live clock: a real MCP server process (servers/*.mjs); the bridge's own timers run on the live clock (process.ts liveClock); the event loop's blocks are measured in real time
describe("a JSON-RPC error answer", () => {
  it.live.each(["plain", "structured"])("%s: reaches the model clean, whole when short, cut when 10 MB, without blocking", (tool) =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-error-answers-")
      const { scope, system } = yield* openBridged(ws, {
        errs: nodeServer("errorAnswers.mjs", [], { requiresConfirmation: false, callTimeoutMs: 20_000 })
      })
      const short = yield* system.execute(`errs__${tool}`, {})
      expect(short).toMatchObject({ success: false, errorCode: "TOOL_ERROR" })
      expect(short.error).toContain(`MCP error -32603: ${CLEAN}`)
      expect(short.error).not.toMatch(HIDDEN)

      const { maxBlockMs, value: big } = yield* Effect.promise(() =>
        measureRepeatedBlocking(() => Effect.runPromise(system.execute(`errs__${tool}`, { size: TEN_MB })))
      )
      expect(big).toMatchObject({ success: false, errorCode: "TOOL_ERROR" })
      expect(big.error).toContain(`MCP error -32603: ${CLEAN}xxx`)
      expect(big.error).not.toMatch(HIDDEN)
      expect(big.error).toMatch(/output cut at \d+ of \d+ characters/)
      expect(big.error?.length).toBeLessThan(10_000)
      expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
      yield* Scope.close(scope, Exit.void)
    }), 60_000)
})
