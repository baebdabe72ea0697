/**
 * A server that lists its tools in pages: every page is read (each asked with the cursor the
 * one before gave), and a server with more than 1,000 tools is cut at 1,000.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { tempDir } from "../../helpers/tempDir.js"
import { nodeServer, openBridged } from "./helpers.js"

describe("a paged tools/list", () => {
  it.scopedLive("reads every page, each asked with the cursor of the one before", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-paged-")
      const { bridge, system } = yield* openBridged(ws, { paged: nodeServer("paged.mjs", ["--tools", "5", "--page", "2"]) })
      expect([...bridge.proxies.keys()].sort()).toEqual(["paged__t0", "paged__t1", "paged__t2", "paged__t3", "paged__t4"])
      expect(yield* system.execute("paged__t4", {})).toMatchObject({ success: true, output: "t4" })
    }), 20_000)

  it.scopedLive("keeps the first 1,000 tools of a server that lists more", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-paged-many-")
      const { bridge } = yield* openBridged(ws, { many: nodeServer("paged.mjs", ["--tools", "1003", "--page", "400"]) })
      expect(bridge.proxies.size).toBe(1000)
      expect(bridge.proxies.has("many__t999")).toBe(true)
      expect(bridge.proxies.has("many__t1000")).toBe(false)
    }), 30_000)
})
