/**
 * A server that pushes at the bridge without end (issue 47, item 1): `ping` requests while it
 * never reads its stdin (the answers pile up toward it), floods of notifications, of lines that
 * are not JSON and of answers to nothing, one write of many small messages, and a line that
 * never ends. Each is a real child process (`servers/hostile.mjs`). The host's memory stays
 * bounded, the server is stopped and the stop logged with the reason, and a call to its tool
 * answers an error naming it, at once. One write of 20,000 messages is refused at the rate before
 * it is parsed, without holding the event loop; and a server stopped for flooding is not
 * restarted, while one stopped for an oversized message is. The ping flood with no rate limit
 * (stopped by the cap on what waits to be written) and the bursts within a raised rate (read in
 * slices) are in `hostileServer.slow.test.ts`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { MAX_BLOCK_MS } from "../../helpers/loopDelay.js"
import { tempDir } from "../../helpers/tempDir.js"
import { eventually, fast, nodeServer, openBridged } from "./helpers.js"
import { burstCall, flooded, MEMORY_MARGIN, noRestart, stopLogged } from "./hostileServerHarness.js"

// live clock, every describe of this file: a real hostile server process; its flood is counted against a
// rate per second of real time (serverLimits.ts), and the bridge's timers run on the live clock
describe("a server that floods ping requests and never reads its stdin", () => {
  it.live("is stopped and logged, its tool answers an error at once, and the host's memory stays bounded", () =>
    Effect.gen(function*() {
      const r = yield* flooded("ping")
      expect(r.state).not.toBe("up")
      expect(r.call).toMatchObject({ success: false })
      expect(r.call.error).toMatch(/it was stopped: it sent more than \d+ messages in a second/)
      expect(r.callMs).toBeLessThan(1000)
      expect(stopLogged(r.logs, /stopped: it sent more than \d+ messages in a second/)).toBe(true)
      expect(r.gone).toBe(true)
      expect(r.growth).toBeLessThan(MEMORY_MARGIN)
    }), 20_000)
})

describe("a server that floods the bridge with messages it did not ask for", () => {
  it.live.each(["notify", "junk", "orphans"])("%s: is stopped and logged, and its tool answers an error", (mode) =>
    Effect.gen(function*() {
      const r = yield* flooded(mode)
      expect(r.state).not.toBe("up")
      expect(r.call).toMatchObject({ success: false })
      expect(r.call.error).toMatch(/it was stopped: it sent more than \d+ messages in a second/)
      expect(stopLogged(r.logs, /stopped: it sent more than \d+ messages in a second/)).toBe(true)
      expect(r.gone).toBe(true)
      expect(r.growth).toBeLessThan(MEMORY_MARGIN)
    }), 20_000)

  it.live("bytes past the rate in a second stop it too, whatever the count of messages", () =>
    Effect.gen(function*() {
      // the count cap is lifted, so the bytes alone can stop it: with both at their defaults,
      // which cap a loaded machine meets first depends on how the writes are split into reads
      const r = yield* flooded("notify", {
        ...noRestart,
        maxPushedPerSecond: 1e9,
        maxPushedBytesPerSecond: 64 * 1024
      })
      expect(r.call.error).toContain("it was stopped: it sent more than 64 KiB in a second")
    }), 20_000)
})

describe("one write of 20,000 small messages", () => {
  it.live.each(["burst", "burstRequests"])(
    "%s: the server is stopped at the rate before the rest is parsed, and the event loop is not held",
    (mode) =>
      Effect.gen(function*() {
        const r = yield* burstCall(mode, noRestart)
        expect(r.call).toMatchObject({ success: false })
        expect(r.call.error).toMatch(/it was stopped: it sent more than \d+ messages in a second/)
        expect(stopLogged(r.logs, /stopped: it sent more than \d+ messages in a second/)).toBe(true)
        expect(r.maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
      }),
    30_000
  )
})

describe("a line that never ends", () => {
  it.live("is cut at the message cap: the server is stopped, and the host's memory stays bounded", () =>
    Effect.gen(function*() {
      const r = yield* flooded("endless")
      expect(r.state).not.toBe("up")
      expect(r.call.error).toContain("it was stopped: it sent a message over 10 MB")
      expect(stopLogged(r.logs, /stopped: it sent a message over 10 MB/)).toBe(true)
      expect(r.growth).toBeLessThan(MEMORY_MARGIN)
      expect(r.maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
    }), 20_000)
})

/** The lines `hostile.mjs` added to `file`, one per start. */
const starts = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "").length : 0)

describe("restarts", () => {
  it.live("a server stopped for flooding is not restarted: its calls fail at once naming why, and it starts once", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-hostile-kept-down-")
      const file = path.join(ws, "starts.txt")
      const { bridge, scope, system } = yield* openBridged(ws, {
        hostile: nodeServer("hostile.mjs", ["notify", file], { callTimeoutMs: 2000, requiresConfirmation: false })
      }, { ...fast, maxRestarts: 3 })
      expect(yield* eventually(() => starts(file) === 1, 3000)).toBe(true)
      const stopped = () => Effect.map(bridge.servers, (servers) => servers[0]?.state)
      for (let i = 0; i < 150 && (yield* stopped()) === "up"; i++) yield* Effect.sleep("20 millis")
      for (let i = 0; i < 3; i++) {
        const call = yield* system.execute("hostile__work", {})
        expect(call).toMatchObject({ success: false, errorCode: "TOOL_ERROR" })
        expect(call.error).toMatch(/it was stopped: it sent more than \d+ messages in a second/)
        expect(call.error).toContain("it is not restarted")
      }
      // well past the restart back-off (50 ms, doubled per restart)
      yield* Effect.sleep("500 millis")
      expect(starts(file)).toBe(1)
      const status = (yield* bridge.servers)[0]
      expect(status).toMatchObject({ state: "down", restarts: 0 })
      expect(status?.reason).toContain("it is not restarted")
      yield* Scope.close(scope, Exit.void)
    }), 20_000)

  it.live("a server stopped for a message past the size cap (not a flood) is restarted by its next call", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-hostile-restarted-")
      const file = path.join(ws, "starts.txt")
      const { bridge, scope, system } = yield* openBridged(ws, {
        hostile: nodeServer("hostile.mjs", ["endless", file], { callTimeoutMs: 2000, requiresConfirmation: false })
      }, { ...fast, maxRestarts: 3 })
      const state = () => Effect.map(bridge.servers, (servers) => servers[0]?.state)
      for (let i = 0; i < 150 && (yield* state()) === "up"; i++) yield* Effect.sleep("20 millis")
      expect(yield* state()).toBe("crashed")
      yield* system.execute("hostile__work", {})
      expect(starts(file)).toBe(2)
      expect((yield* bridge.servers)[0]).toMatchObject({ restarts: 1 })
      yield* Scope.close(scope, Exit.void)
    }), 20_000)
})
