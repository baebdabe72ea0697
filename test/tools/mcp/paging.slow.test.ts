/**
 * A server that lists its tools in pages: every page is read (each asked with the cursor the
 * one before gave), and a server with more than 1,000 tools is cut at 1,000 without reading
 * further. One that pages without end is read for 100 pages; the whole listing has the
 * start's deadline, not each page.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { tempDir } from "../../helpers/tempDir.js"
import { nodeServer, openBridged } from "./helpers.js"

describe("a paged tools/list", () => {
  it.live("reads every page, each asked with the cursor of the one before", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-paged-")
      const { bridge, system } = yield* openBridged(ws, { paged: nodeServer("paged.mjs", ["--tools", "5", "--page", "2"], { requiresConfirmation: false }) })
      expect([...bridge.proxies.keys()].sort()).toEqual(["paged__t0", "paged__t1", "paged__t2", "paged__t3", "paged__t4"])
      expect(yield* system.execute("paged__t4", {})).toMatchObject({ success: true, output: "t4" })
    }), 20_000)

  it.live("keeps the first 1,000 tools of a server that lists more, and asks no page past them", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-paged-many-")
      const log = path.join(ws, "pages.log")
      const { bridge } = yield* openBridged(ws, {
        many: nodeServer("paged.mjs", ["--tools", "1003", "--page", "400", "--list-log", log], { requiresConfirmation: false })
      })
      expect(bridge.proxies.size).toBe(1000)
      expect(bridge.proxies.has("many__t999")).toBe(true)
      expect(bridge.proxies.has("many__t1000")).toBe(false)
      expect(fs.readFileSync(log, "utf8")).toBe("page first\npage 400\npage 800\n")
      // exactly 1,000 after two pages: the third is not asked
      const exact = path.join(ws, "exact.log")
      const { bridge: two } = yield* openBridged(ws, {
        exact: nodeServer("paged.mjs", ["--tools", "1500", "--page", "500", "--list-log", exact], { requiresConfirmation: false })
      })
      expect(two.proxies.size).toBe(1000)
      expect(fs.readFileSync(exact, "utf8")).toBe("page first\npage 500\n")
    }), 30_000)

  it.live("reads 100 pages of a server that pages without end, and keeps their tools", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-paged-endless-")
      const log = path.join(ws, "pages.log")
      const { bridge, system } = yield* openBridged(ws, {
        endless: nodeServer("paged.mjs", ["--tools", "3", "--page", "1", "--endless", "--list-log", log], { requiresConfirmation: false })
      })
      expect([...bridge.proxies.keys()].sort()).toEqual(["endless__t0", "endless__t1", "endless__t2"])
      expect(fs.readFileSync(log, "utf8").split("\n").filter((line) => line !== "")).toHaveLength(100)
      expect(yield* system.execute("endless__t2", {})).toMatchObject({ success: true, output: "t2" })
    }), 30_000)

  it.live("gives the whole listing the start's deadline: slow pages past it skip the server", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-paged-slow-")
      const { bridge } = yield* openBridged(ws, {
        // each page in time on its own (500 ms of 2 s), not all six of them
        slow: nodeServer("paged.mjs", ["--tools", "6", "--page", "1", "--page-delay", "500"], { initTimeoutMs: 2000, requiresConfirmation: false }),
        quick: nodeServer("paged.mjs", ["--tools", "2"], { requiresConfirmation: false })
      })
      expect(bridge.skipped.map((s) => s.server)).toEqual(["slow"])
      expect(bridge.skipped[0]?.reason).toContain("tools/list failed: Request timed out")
      expect([...bridge.proxies.keys()].sort()).toEqual(["quick__t0", "quick__t1"])
    }), 30_000)
})
