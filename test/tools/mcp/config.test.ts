/**
 * The `mcpServers` configuration: from a file (relative `cwd` from the file's directory,
 * HTTP+SSE and disabled entries skipped, unknown keys ignored, Streamable HTTP entries with `url`
 * and `headers`, the protocol era) and its errors.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { loadMcpConfig, McpConfigError, parseMcpConfig } from "../../../src/tools/mcp/config.js"
import { recordingLogs, textOf } from "../../helpers/recordingLogs.js"
import { tempDir } from "../../helpers/tempDir.js"

describe("parseMcpConfig", () => {
  it("reads the format other MCP clients write, ignoring keys it does not know", () => {
    const parsed = parseMcpConfig({
      mcpServers: {
        files: { command: "npx", args: ["-y", "server"], env: { TOKEN: "t" }, alwaysAllow: ["x"] },
        mine: { command: "node", args: ["s.js"], trusted: true, requiresConfirmation: false, initTimeoutMs: 500 },
        remote: { url: "https://example.invalid/mcp", headers: { Authorization: "Bearer t" }, protocol: "2026-07-28" },
        http: { type: "http", url: "http://127.0.0.1:3000/mcp", trusted: true },
        sse: { type: "sse", url: "https://example.invalid/sse" },
        local: { type: "stdio", command: "node", protocol: "auto" },
        off: { command: "node", disabled: true }
      },
      globalShortcut: "Ctrl+Space"
    })
    expect(parsed).toEqual(Result.succeed({
      servers: {
        files: { command: "npx", args: ["-y", "server"], env: { TOKEN: "t" } },
        mine: { command: "node", args: ["s.js"], trusted: true, requiresConfirmation: false, initTimeoutMs: 500 },
        // Streamable HTTP servers, with their headers
        remote: { url: "https://example.invalid/mcp", headers: { Authorization: "Bearer t" }, protocol: "2026-07-28" },
        http: { type: "http", url: "http://127.0.0.1:3000/mcp", trusted: true },
        // an explicit "stdio" type is bridged
        local: { type: "stdio", command: "node", protocol: "auto" }
      },
      skipped: [
        {
          server: "sse",
          reason: `the HTTP+SSE transport (protocol 2024-11-05) is not bridged; a Streamable HTTP endpoint is ("url" without "type": "sse")`
        },
        { server: "off", reason: "disabled" }
      ]
    }))
  })

  it("names the entry and the problem of a malformed configuration", () => {
    const notAnObject = Result.fail(`expected an object with an "mcpServers" object`)
    expect(parseMcpConfig({ servers: {} })).toEqual(notAnObject)
    // arrays are not the objects asked for
    expect(parseMcpConfig([])).toEqual(notAnObject)
    expect(parseMcpConfig({ mcpServers: [] })).toEqual(notAnObject)
    expect(parseMcpConfig({ mcpServers: null })).toEqual(notAnObject)
    const bad = parseMcpConfig({ mcpServers: { broken: { command: "", args: "not-a-list" } } })
    expect(Result.isFailure(bad)).toBe(true)
    if (Result.isFailure(bad)) {
      expect(bad.failure).toContain(`server "broken"`)
      expect(bad.failure).toContain("args")
    }
    expect(Result.isFailure(parseMcpConfig({ mcpServers: { t: { command: "x", initTimeoutMs: -1 } } }))).toBe(true)
    // an HTTP entry needs its url; the protocol is one of the modes
    const noUrl = parseMcpConfig({ mcpServers: { web: { type: "http", command: "x" } } })
    expect(Result.isFailure(noUrl) ? noUrl.failure : "").toContain(`server "web"`)
    expect(Result.isFailure(parseMcpConfig({ mcpServers: { t: { command: "x", protocol: "2030-01-01" } } }))).toBe(true)
  })
})

describe("loadMcpConfig", () => {
  it.effect("loads a file; a relative cwd is taken from the file's directory", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("mcp-config-")
      const file = path.join(dir, "mcp.json")
      fs.writeFileSync(file, JSON.stringify({ mcpServers: { a: { command: "node", cwd: "servers" }, b: { command: "x" } } }))
      const servers = yield* loadMcpConfig(file)
      expect(servers).toEqual({ a: { command: "node", cwd: path.join(dir, "servers") }, b: { command: "x" } })
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("logs each entry it leaves out, with the file and the reason", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("mcp-config-")
      const file = path.join(dir, "mcp.json")
      fs.writeFileSync(file, JSON.stringify({ mcpServers: { a: { command: "node" }, web: { type: "sse", url: "https://example.invalid" }, off: { command: "x", disabled: true } } }))
      const [servers, lines] = yield* recordingLogs(loadMcpConfig(file))
      expect(servers).toEqual({ a: { command: "node" } })
      expect(lines.map((line) => [line.level.toUpperCase(), textOf(line)])).toEqual([
        ["WARN", `MCP server "web" in ${file} is skipped: the HTTP+SSE transport (protocol 2024-11-05) is not bridged; a Streamable HTTP endpoint is ("url" without "type": "sse")`],
        ["WARN", `MCP server "off" in ${file} is skipped: disabled`]
      ])
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("fails with McpConfigError for a missing file, bad JSON or a bad entry", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("mcp-config-")
      const missing = yield* Effect.flip(loadMcpConfig(path.join(dir, "nope.json")))
      expect(missing).toBeInstanceOf(McpConfigError)
      expect(missing.message).toContain("nope.json")
      const badJson = path.join(dir, "bad.json")
      fs.writeFileSync(badJson, "{ mcpServers: ")
      expect((yield* Effect.flip(loadMcpConfig(badJson))).reason).toMatch(/^not JSON: /)
      const badEntry = path.join(dir, "entry.json")
      fs.writeFileSync(badEntry, JSON.stringify({ mcpServers: { x: { args: [] } } }))
      expect((yield* Effect.flip(loadMcpConfig(badEntry))).reason).toContain(`server "x"`)
    }).pipe(Effect.provide(NodeServices.layer)))
})
