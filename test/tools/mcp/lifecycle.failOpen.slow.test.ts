/**
 * The tests of `lifecycle.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet machine:
 * real processes, worker starts, large inputs), kept in the slow lane so that the fast lane's
 * tests stay well under its 1 s CPU bound even on a loaded machine.
 *
 * The bridge's life: fail-open start (a missing command, a server that exits at once, a
 * silent one), a crash mid-call and the restart on the next call, a server that dies on its
 * own, and every process (and the processes they started) ended when the scope closes.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { recordingLogs, textOf } from "../../helpers/recordingLogs.js"
import { tempDir } from "../../helpers/tempDir.js"
import { marker, nodeServer, processesWith } from "./helpers.js"
import { open } from "./lifecycleHarness.js"

// live clock, every describe of this file: real server processes; the bridge's start deadline, stops and
// restart back-off run on the live clock (process.ts, serverHandle.ts)
describe("fail-open start", () => {
  it.live("skips a missing command, a server that exits at once and a silent one, with the reason; the rest come up", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-failopen-")
      const silentMark = marker("silent")
      const stubbornMark = marker("stubborn")
      const [{ bridge, scope, system }, logged] = yield* recordingLogs(open(ws, {
        missing: { command: "no-such-mcp-server-command" },
        exits: nodeServer("exitAtOnce.mjs", [], { requiresConfirmation: false }),
        silent: nodeServer("silent.mjs", [silentMark], { initTimeoutMs: 400, requiresConfirmation: false }),
        stubborn: nodeServer("silent.mjs", ["--ignore-sigterm", stubbornMark], { initTimeoutMs: 400, requiresConfirmation: false }),
        echo: nodeServer("echo.mjs", [], { requiresConfirmation: false })
      }))
      const reasons = Object.fromEntries(bridge.skipped.map((s) => [s.server, s.reason]))
      // each skipped server is logged with its reason, and the one that came up with its pid and tools
      const lines = logged.map((line) => [line.level.toUpperCase(), textOf(line)])
      for (const [server, reason] of Object.entries(reasons)) {
        expect(lines).toContainEqual(["WARN", `MCP server "${server}" skipped: ${reason}`])
      }
      expect(lines).toContainEqual(["INFO", expect.stringMatching(/^MCP server "echo" is up \(pid \d+, [1-9]\d* tools\)$/)])
      expect(Object.keys(reasons).sort()).toEqual(["exits", "missing", "silent", "stubborn"])
      expect(reasons.missing).toContain("ENOENT")
      expect(reasons.missing).toContain("no-such-mcp-server-command")
      expect(reasons.exits).toContain("Connection closed")
      expect(reasons.exits).toContain("exited with code 3")
      // the end of its stderr (6 KB of debug lines came before it), marked as an end
      expect(reasons.exits).toContain("plugin 199 of 200 fatal: missing configuration FOO_TOKEN")
      expect(reasons.exits).toMatch(/stderr: …\S/)
      expect(reasons.exits).not.toContain("plugin 0 of 200")
      expect(reasons.silent).toContain("Request timed out")
      expect(reasons.stubborn).toContain("Request timed out")
      // the skipped servers' processes are gone already, the stubborn one by SIGKILL
      expect(processesWith(silentMark)).toEqual([])
      expect(processesWith(stubbornMark)).toEqual([])
      expect((yield* bridge.servers).map((s) => [s.name, s.state])).toEqual([["echo", "up"]])
      const r = yield* system.execute("echo__echo", { text: "up" })
      expect(r.output).toBe("up")
      const listed = yield* system.registry.list({ tags: ["mcp"] })
      expect(listed.every((t) => t.name.startsWith("echo__"))).toBe(true)
      yield* Scope.close(scope, Exit.void)
    }))
})
