/**
 * Proxy names: a server whose tool names do not fit `^[a-zA-Z0-9_-]{1,64}$` gets sanitized,
 * hash-shortened names that are stable, distinct and mapped back; a tool whose schema cannot
 * be compiled is skipped, not the server.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as fs from "node:fs"
import { afterAll } from "vitest"
import { NAME_PATTERN } from "../../../src/domain/ToolSpec.js"
import { McpBridge } from "../../../src/services/McpBridge.js"
import { ToolSystem } from "../../../src/services/ToolSystem.js"
import { proxyName } from "../../../src/tools/mcp/names.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"
import { bridged, nodeServer } from "./helpers.js"

describe("proxyName", () => {
  it("keeps a name that fits", () => {
    expect(proxyName("files", "read_file")).toBe("files__read_file")
    expect(proxyName("a-b", "C-9")).toBe("a-b__C-9")
  })

  it("sanitizes and shortens with a stable hash; distinct inputs stay distinct", () => {
    const dotted = proxyName("files", "read.file")
    expect(dotted).toMatch(/^files__read_file_[0-9a-f]{8}$/)
    expect(proxyName("files", "read.file")).toBe(dotted)
    // the same sanitized form from another name gets another hash
    expect(proxyName("files", "read file")).not.toBe(dotted)
    expect(proxyName("files", "read_file")).not.toBe(dotted)
    const long = proxyName("server", "x".repeat(200))
    expect(long).toHaveLength(64)
    expect(long).toMatch(NAME_PATTERN)
    expect(proxyName("server", `${"x".repeat(200)}y`)).not.toBe(long)
    expect(proxyName("my server", "ünïcødé")).toMatch(/^my_server___n_c_d__[0-9a-f]{8}$/)
    // the server's name is sanitized too, and an empty tool name still makes a name
    expect(proxyName("", "")).toMatch(NAME_PATTERN)
  })
})

const ws = makeTempDirSync("mcp-names-")
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))

// live clock (excludeTestServices): a real MCP server process shared by the suite; the bridge's own timers
// run on the live clock (process.ts liveClock)
layer(bridged(ws, { "bad.names": nodeServer("badNames.mjs", [], { requiresConfirmation: false }) }), { timeout: 30_000, excludeTestServices: true })(
  "a server with names that do not fit",
  (it) => {
    it.effect("gets proxies that fit, each mapped back to the server's own name and called by it", () =>
      Effect.gen(function*() {
        const bridge = yield* McpBridge
        const system = yield* ToolSystem
        const originals = ["read.file", "a b c", "ünïcødé", "x".repeat(80), "fine_name"]
        expect(bridge.proxies.size).toBe(originals.length)
        for (const original of originals) {
          const name = proxyName("bad.names", original)
          expect(name).toMatch(NAME_PATTERN)
          expect(bridge.target(name)).toEqual(Option.some({ server: "bad.names", tool: original }))
          const r = yield* system.execute(name, {})
          expect(r).toMatchObject({ success: true, output: `called ${original}` })
        }
        // the tool whose schema has a remote $ref is skipped (never fetched); the server is up
        expect([...bridge.proxies.values()].some((t) => t.tool === "remote_ref")).toBe(false)
        expect((yield* bridge.servers)[0]?.state).toBe("up")
      }))
  }
)
