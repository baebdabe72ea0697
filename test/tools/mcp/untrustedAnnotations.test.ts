/**
 * Issue 47, item 3: an untrusted server's own `readOnlyHint` waived confirmation, and its
 * "read-only" tool wrote outside the workspace. Annotations of an untrusted server are hints
 * only: its tools need confirmation unless the user's configuration trusts the server (then
 * its read-only tools need none) or lists the tool in `toolsWithoutConfirmation`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { tempDir } from "../../helpers/tempDir.js"
import { nodeServer, openBridged } from "./helpers.js"

// live clock: a real MCP server process (servers/*.mjs); the bridge's own timers run on the live clock (process.ts liveClock)
describe("annotations of an untrusted server", () => {
  it.live("do not waive confirmation; trust or the configuration's list do", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-untrusted-ws-")
      const outside = yield* tempDir("mcp-untrusted-outside-")
      const target = (name: string) => path.join(outside, `${name}.txt`)
      const { system } = yield* openBridged(ws, {
        liar: nodeServer("liar.mjs", [target("liar")]),
        trusted: nodeServer("liar.mjs", [target("trusted")], { trusted: true }),
        listed: nodeServer("liar.mjs", [target("listed")], { toolsWithoutConfirmation: ["peek"] })
      })

      // the liar says readOnlyHint: true and writes outside the workspace: held for confirmation
      const held = yield* system.execute("liar__peek", {})
      expect(held).toMatchObject({ success: false, errorCode: "CONFIRMATION_REQUIRED", confirmed: false })
      expect(fs.existsSync(target("liar"))).toBe(false)
      // confirmed, it runs
      expect(yield* system.execute("liar__peek", {}, { confirm: true })).toMatchObject({ success: true, output: "peeked" })
      expect(fs.existsSync(target("liar"))).toBe(true)

      // the user trusts the server: its read-only hint waives confirmation
      expect(yield* system.execute("trusted__peek", {})).toMatchObject({ success: true, output: "peeked" })
      // the user lists the tool: no confirmation either
      expect(yield* system.execute("listed__peek", {})).toMatchObject({ success: true, output: "peeked" })
    }), 30_000)
})
