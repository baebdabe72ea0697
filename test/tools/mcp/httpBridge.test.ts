/**
 * Issue 50: remote servers (`url` entries, Streamable HTTP) bridged as stdio ones are, against an
 * SDK v2 server on 127.0.0.1 (`httpServers.ts`): both protocol eras (2025's `initialize`, the
 * 2026-07-28 revision pinned or probed), `{server}__{tool}` proxies through the same gates
 * (input schema, confirmation, output schema), the rug-pull hold on a change the server tells of
 * (2026: over `subscriptions/listen`), fail-open for a server that is down or a URL the rule
 * refuses, and a server that goes away mid-life failing its calls plainly.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { recordingLogsWith, textOf } from "../../helpers/recordingLogs.js"
import { tempDir } from "../../helpers/tempDir.js"
import { eventually, openBridged } from "./helpers.js"
import { listen, sdkServer } from "./httpServers.js"

/** A URL nothing listens on: a port taken, then let go. */
const deadUrl = Effect.gen(function*() {
  const scope = yield* Scope.make()
  const { url } = yield* listen(() => {}).pipe(Scope.provide(scope))
  yield* Scope.close(scope, Exit.void)
  return url
})

describe("remote (Streamable HTTP) servers", () => {
  it.live("are bridged in both eras, each tool a proxy through the same gates", () =>
    Effect.gen(function*() {
      const fixture = yield* sdkServer
      const ws = yield* tempDir("mcp-http-")
      const { bridge, system } = yield* openBridged(ws, {
        old: { url: fixture.url, protocol: "legacy", trusted: true },
        pinned: { url: fixture.url, protocol: "2026-07-28", trusted: true },
        probed: { url: fixture.url }
      })
      expect(bridge.skipped).toEqual([])
      expect([...bridge.proxies.keys()].sort()).toEqual([
        "old__delete_thing",
        "old__echo",
        "pinned__delete_thing",
        "pinned__echo",
        "probed__delete_thing",
        "probed__echo"
      ])
      const statuses = yield* bridge.servers
      expect(statuses.map((s) => [s.name, s.state, s.pid, s.protocol])).toEqual([
        ["old", "up", 0, "2025-11-25"],
        ["pinned", "up", 0, "2026-07-28"],
        ["probed", "up", 0, "2026-07-28"]
      ])
      // a trusted server's read-only tool runs at once; its answer passed the output schema
      expect(yield* system.execute("old__echo", { text: "one" })).toMatchObject({ success: true, output: "one" })
      expect(yield* system.execute("pinned__echo", { text: "two" })).toMatchObject({ success: true, output: "two" })
      // an untrusted server's tools need confirmation; a destructive one always does
      expect(yield* system.execute("probed__echo", { text: "x" })).toMatchObject({ success: false, errorCode: "CONFIRMATION_REQUIRED" })
      expect(yield* system.execute("pinned__delete_thing", { text: "t" })).toMatchObject({ success: false, errorCode: "CONFIRMATION_REQUIRED" })
      expect(yield* system.execute("pinned__delete_thing", { text: "t" }, { confirm: true })).toMatchObject({ success: true, output: "deleted t" })
      // arguments are checked against the input schema before anything is sent
      expect(yield* system.execute("old__echo", { text: 5 })).toMatchObject({ success: false })
      expect(fixture.calls).toEqual(["echo", "echo", "delete_thing"])
    }))

  it.live("a change the server tells of (2026: over subscriptions/listen) is held until approved", () =>
    Effect.gen(function*() {
      const fixture = yield* sdkServer
      const ws = yield* tempDir("mcp-http-")
      const { bridge, system } = yield* openBridged(ws, { web: { url: fixture.url, protocol: "2026-07-28", trusted: true } })
      expect(yield* system.execute("web__echo", { text: "before" })).toMatchObject({ success: true, output: "before" })
      fixture.change()
      let pending = 0
      expect(yield* eventually(() => {
        Effect.runFork(Effect.map(bridge.pending, (p) => (pending = p.length)))
        return pending === 1
      })).toBe(true)
      const held = yield* system.execute("web__echo", { text: "after" })
      expect(held).toMatchObject({ success: false, errorCode: "MCP_TOOL_CHANGED" })
      expect(fixture.calls).toEqual(["echo"])
      yield* bridge.approve("web__echo")
      expect(yield* system.execute("web__echo", { text: "approved" })).toMatchObject({ success: true, output: "approved" })
    }))

  it.live("fail-open: a server that is down, or a URL the rule refuses, is skipped with the reason; the others come up", () =>
    Effect.gen(function*() {
      const fixture = yield* sdkServer
      const down = yield* deadUrl
      const ws = yield* tempDir("mcp-http-")
      const [{ bridge }, lines] = yield* recordingLogsWith(() => openBridged(ws, {
        up: { url: fixture.url, protocol: "legacy" },
        down: { url: down, protocol: "legacy" },
        downProbed: { url: down },
        far: { url: "http://example.invalid/mcp" },
        ftp: { url: "ftp://127.0.0.1/mcp" },
        broken: { url: "not a url" }
      }))
      expect([...bridge.proxies.keys()].sort()).toEqual(["up__delete_thing", "up__echo"])
      const reasons = Object.fromEntries(bridge.skipped.map((s) => [s.server, s.reason]))
      expect(Object.keys(reasons).sort()).toEqual(["broken", "down", "downProbed", "far", "ftp"])
      expect(reasons.down).toMatch(/^initialize failed: /)
      expect(reasons.downProbed).toMatch(/^connecting failed: /)
      expect(reasons.far).toContain("plain http: is allowed only to a loopback host")
      expect(reasons.ftp).toContain("the scheme ftp: is not bridged")
      expect(reasons.broken).toContain("is not a URL")
      expect(lines.map(textOf)).toContainEqual(expect.stringContaining(`MCP server "far" skipped: plain http:`))
    }))

  it.live("a server that goes away fails its calls plainly; the host goes on", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const fixture = yield* sdkServer.pipe(Scope.provide(scope))
      const ws = yield* tempDir("mcp-http-")
      const { system } = yield* openBridged(ws, { web: { url: fixture.url, trusted: true, protocol: "legacy" } }, {
        initTimeout: "2 seconds",
        restartBackoff: "20 millis",
        maxRestarts: 1
      })
      expect(yield* system.execute("web__echo", { text: "up" })).toMatchObject({ success: true, output: "up" })
      yield* Scope.close(scope, Exit.void)
      const gone = yield* system.execute("web__echo", { text: "gone" })
      expect(gone).toMatchObject({ success: false })
      // the next call tries to connect again, once, and the server is down after that
      const again = yield* system.execute("web__echo", { text: "again" })
      expect(again).toMatchObject({ success: false })
      expect(again.success ? "" : again.error).toContain("web")
    }))
})
