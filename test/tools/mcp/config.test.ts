/**
 * The `mcpServers` configuration: from a file (relative `cwd` from the file's directory,
 * remote and disabled entries skipped, unknown keys ignored) and its errors.
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
        remote: { url: "https://example.invalid/mcp" },
        http: { type: "http", command: "x" },
        local: { type: "stdio", command: "node" },
        off: { command: "node", disabled: true }
      },
      globalShortcut: "Ctrl+Space"
    })
    expect(parsed).toEqual(Result.succeed({
      servers: {
        files: { command: "npx", args: ["-y", "server"], env: { TOKEN: "t" } },
        mine: { command: "node", args: ["s.js"], trusted: true, requiresConfirmation: false, initTimeoutMs: 500 },
        // an explicit "stdio" type is bridged
        local: { type: "stdio", command: "node" }
      },
      skipped: [
        { server: "remote", reason: "only stdio servers (with a command) are bridged" },
        { server: "http", reason: "only stdio servers (with a command) are bridged" },
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
      fs.writeFileSync(file, JSON.stringify({ mcpServers: { a: { command: "node" }, web: { url: "https://example.invalid" }, off: { command: "x", disabled: true } } }))
      const [servers, lines] = yield* recordingLogs(loadMcpConfig(file))
      expect(servers).toEqual({ a: { command: "node" } })
      expect(lines.map((line) => [line.level.toUpperCase(), textOf(line)])).toEqual([
        ["WARN", `MCP server "web" in ${file} is skipped: only stdio servers (with a command) are bridged`],
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
