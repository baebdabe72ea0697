/**
 * A server that pushes at the bridge without end (issue 47, item 1): `ping` requests while it
 * never reads its stdin (the answers pile up toward it), floods of notifications, of lines that
 * are not JSON and of answers to nothing, one write of many small messages, and a line that
 * never ends. Each is a real child process (`servers/hostile.mjs`). The host's memory stays
 * bounded, the server is stopped and the stop logged with the reason, and a call to its tool
 * answers an error naming it, at once. One write of 20,000 messages is refused at the rate before
 * it is parsed, without holding the event loop (read in slices with the rate raised:
 * `hostileServer.slow.test.ts`); and a server stopped for flooding is not restarted, while one
 * stopped for an oversized message is.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { McpBridgeOptions } from "../../../src/services/McpBridge.js"
import { measureBlocking, MAX_BLOCK_MS } from "../../helpers/loopDelay.js"
import { recordingLogsWith, textOf } from "../../helpers/recordingLogs.js"
import { tempDir } from "../../helpers/tempDir.js"
import { alive, eventually, fast, nodeServer, openBridged } from "./helpers.js"
import { burstCall, noRestart } from "./hostileServerHarness.js"

/** The heap and the buffers outside it, in bytes. */
const memory = () => {
  const usage = process.memoryUsage()
  return usage.heapUsed + usage.external + usage.arrayBuffers
}

/** How much more memory than at its start the host may use while a server floods it. */
const MEMORY_MARGIN = 96 * 1024 * 1024

/**
 * Brings up the server `hostile.mjs <mode>` in a bridge, waits (up to 3 s) until the bridge
 * no longer counts it as up while sampling the host's memory, then calls its tool. Gives the
 * call's result, the logs, the highest memory seen over the start's, and the longest block of
 * the event loop while the flood came in.
 */
const flooded = (mode: string, options: McpBridgeOptions = noRestart) =>
  Effect.gen(function*() {
    const ws = yield* tempDir(`mcp-hostile-${mode}-`)
    global.gc?.()
    const start = memory()
    let highest = start
    const [result, logs] = yield* recordingLogsWith(() =>
      Effect.gen(function*() {
        const { bridge, scope, system } = yield* openBridged(ws, {
          hostile: nodeServer("hostile.mjs", [mode], { callTimeoutMs: 2000, requiresConfirmation: false })
        }, options)
        const pid = (yield* bridge.servers)[0]?.pid ?? 0
        // the event loop is watched while the flood comes in, until the server is stopped
        const { maxBlockMs, value: state } = yield* Effect.promise(() =>
          measureBlocking(() =>
            Effect.runPromise(Effect.gen(function*() {
              const end = Date.now() + 3000
              let state = "up"
              while (state === "up" && Date.now() < end) {
                highest = Math.max(highest, memory())
                yield* Effect.sleep("10 millis")
                state = (yield* bridge.servers)[0]?.state ?? ""
              }
              return state
            }))
          )
        )
        const started = Date.now()
        const call = yield* system.execute("hostile__work", {})
        const callMs = Date.now() - started
        highest = Math.max(highest, memory())
        const gone = yield* eventually(() => !alive(pid), 3000)
        yield* Scope.close(scope, Exit.void)
        return { call, callMs, gone, state, maxBlockMs }
      })
    )
    return { ...result, logs: logs.map((line) => [line.level.label, textOf(line)] as const), growth: highest - start }
  })

/** The warning the bridge logs when it stops a server, with the reason. */
const stopLogged = (logs: ReadonlyArray<readonly [string, string]>, reason: RegExp) =>
  logs.some(([level, text]) => level === "WARN" && text.startsWith("MCP server \"hostile\"") && reason.test(text))

describe("a server that floods ping requests and never reads its stdin", () => {
  it.scopedLive("is stopped and logged, its tool answers an error at once, and the host's memory stays bounded", () =>
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

  it.scopedLive("with no rate limit, is stopped by the cap on what waits to be written to it", () =>
    Effect.gen(function*() {
      const r = yield* flooded("ping", { ...noRestart, maxPushedPerSecond: 1e9, maxQueuedBytes: 256 * 1024 })
      expect(r.state).not.toBe("up")
      expect(r.call).toMatchObject({ success: false })
      expect(r.call.error).toContain("it was stopped: it did not read what was sent to it (over 256 KiB waiting)")
      expect(stopLogged(r.logs, /stopped: it did not read what was sent to it/)).toBe(true)
      expect(r.gone).toBe(true)
      expect(r.growth).toBeLessThan(MEMORY_MARGIN)
    }), 20_000)
})

describe("a server that floods the bridge with messages it did not ask for", () => {
  it.scopedLive.each(["notify", "junk", "orphans"])("%s: is stopped and logged, and its tool answers an error", (mode) =>
    Effect.gen(function*() {
      const r = yield* flooded(mode)
      expect(r.state).not.toBe("up")
      expect(r.call).toMatchObject({ success: false })
      expect(r.call.error).toMatch(/it was stopped: it sent more than \d+ messages in a second/)
      expect(stopLogged(r.logs, /stopped: it sent more than \d+ messages in a second/)).toBe(true)
      expect(r.gone).toBe(true)
      expect(r.growth).toBeLessThan(MEMORY_MARGIN)
    }), 20_000)

  it.scopedLive("bytes past the rate in a second stop it too, whatever the count of messages", () =>
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
  it.scopedLive.each(["burst", "burstRequests"])(
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
  it.scopedLive("is cut at the message cap: the server is stopped, and the host's memory stays bounded", () =>
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
  it.scopedLive("a server stopped for flooding is not restarted: its calls fail at once naming why, and it starts once", () =>
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

  it.scopedLive("a server stopped for a message past the size cap (not a flood) is restarted by its next call", () =>
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
