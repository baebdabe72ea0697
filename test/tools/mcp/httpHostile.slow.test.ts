/**
 * Issue 50: a hostile Streamable HTTP server (`httpServers.ts`'s `hostileServer`) cannot exhaust
 * the host's memory or hold a call past its deadline: a 12 MB answer fails its call naming the
 * cap (the server is stopped), an event stream that never ends times the call out at its
 * deadline, a `text/html` answer fails plainly, a stream past the bytes-per-second bound stops
 * the server; the host goes on serving another server.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { ToolExecutionResult } from "../../../src/domain/ToolExecutionResult.js"
import { tempDir } from "../../helpers/tempDir.js"
import { openBridged } from "./helpers.js"
import { hostileServer, sdkServer } from "./httpServers.js"

const errorOf = (result: ToolExecutionResult): string => (result.success ? "" : result.error)

describe("a hostile HTTP server", () => {
  it.live("gives each call a clear error within its deadline, and the host survives", () =>
    Effect.gen(function*() {
      const hostile = yield* hostileServer
      const good = yield* sdkServer
      const ws = yield* tempDir("mcp-http-hostile-")
      const config = { url: hostile.url, protocol: "legacy" as const, trusted: true, requiresConfirmation: false, callTimeoutMs: 1500 }
      const { bridge, system } = yield* openBridged(ws, {
        endless: config,
        html: config,
        huge: config,
        flood: config,
        good: { url: good.url, trusted: true }
      }, { initTimeout: "3 seconds", restartBackoff: "20 millis", stopGrace: "300 millis" })
      expect(bridge.skipped).toEqual([])

      // an event stream that never answers: the call ends at its deadline
      const started = Date.now()
      const endless = yield* system.execute("endless__endless", {})
      expect(Date.now() - started).toBeLessThan(2500)
      expect(endless).toMatchObject({ success: false, errorCode: "TIMEOUT" })

      // the wrong content type
      const html = yield* system.execute("html__html", {})
      expect(html).toMatchObject({ success: false })
      expect(errorOf(html)).toContain("text/html")

      // an answer past the message cap: the server is stopped, and the call names why
      const heapBefore = process.memoryUsage().heapUsed
      const huge = yield* system.execute("huge__huge", {})
      expect(huge).toMatchObject({ success: false })
      expect(errorOf(huge)).toContain("over 10 MB")
      expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024)

      // a stream past the bytes-per-second bound: stopped for flooding, and not reconnected
      const flood = yield* system.execute("flood__flood", {})
      expect(flood).toMatchObject({ success: false })
      expect(errorOf(flood)).toContain("in a second")
      const status = (yield* bridge.servers).find((s) => s.name === "flood")
      expect(status?.state).toBe("down")

      // the host goes on
      expect(yield* system.execute("good__echo", { text: "still here" })).toMatchObject({ success: true, output: "still here" })
    }))
})
