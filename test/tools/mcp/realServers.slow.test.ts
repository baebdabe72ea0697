/**
 * The bridge against real MCP servers from npm (devDependencies, run with this node as child
 * processes): `@modelcontextprotocol/server-everything` and `@modelcontextprotocol/server-filesystem`.
 * Their tools through the executor and its gates, the names, fail-open starts with real
 * commands, a server killed in the middle of a call, and server-everything's `list_changed`.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Logger, References } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { AgentMode, ToolRegistry, ToolSystem, Workspace } from "../../../src/index.js"
import type { McpStdioServerConfig } from "../../../src/tools/mcp/config.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"
import { alive, fast, openBridged } from "./helpers.js"

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../../..")
const serverScript = (name: string) => path.join(root, "node_modules/@modelcontextprotocol", name, "dist/index.js")
// untrusted servers: their readOnlyHint waives no confirmation, so the tools called without
// one are listed as the user would list them
const everything = (extra: Partial<McpStdioServerConfig> = {}, transport = "stdio"): McpStdioServerConfig => ({
  command: process.execPath,
  args: [serverScript("server-everything"), transport],
  toolsWithoutConfirmation: ["echo", "get-sum", "get-tiny-image", "trigger-long-running-operation"],
  ...extra
})
const filesystem = (dir: string, extra: Partial<McpStdioServerConfig> = {}): McpStdioServerConfig => ({
  command: process.execPath,
  args: [serverScript("server-filesystem"), dir],
  toolsWithoutConfirmation: ["read_text_file", "list_directory", "list_allowed_directories"],
  ...extra
})

const ws = makeTempDirSync("mcp-real-")
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))
fs.writeFileSync(path.join(ws, "notes.txt"), "first line\nsecond line\n")

/** What the two servers (at their pinned versions) list for a client without capabilities. */
const FILESYSTEM_TOOLS = [
  "create_directory", "directory_tree", "edit_file", "get_file_info", "list_allowed_directories", "list_directory",
  "list_directory_with_sizes", "move_file", "read_file", "read_media_file", "read_multiple_files", "read_text_file",
  "search_files", "write_file"
]
const EVERYTHING_TOOLS = [
  "echo", "get-annotated-message", "get-env", "get-resource-links", "get-resource-reference", "get-structured-content",
  "get-sum", "get-tiny-image", "gzip-file-as-resource", "simulate-research-query", "toggle-simulated-logging",
  "toggle-subscriber-updates", "trigger-long-running-operation"
]

/** The application's way: `ToolSystem.layerNode({ mcpServers })`. */
const system = ToolSystem.layerNode({
  builtins: false,
  workspace: Workspace.layerFixed(ws),
  mcpServers: { everything: everything(), files: filesystem(ws) },
  mcp: { initTimeout: "20 seconds" }
})

const execute = (name: string, args: unknown, options: { confirm?: boolean; mode?: AgentMode.AgentMode } = {}) =>
  Effect.flatMap(ToolSystem, (tools) => tools.execute(name, args, options))

layer(system, { timeout: 60_000, excludeTestServices: true })("server-everything and server-filesystem", (it) => {
  it.effect("are bridged under {server}__{tool}, every tool of each", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry
      const names = (tag: string) => Effect.map(registry.list({ tags: [tag] }), (tools) => tools.map((t) => t.name))
      expect(yield* names("mcp:files")).toEqual(FILESYSTEM_TOOLS.map((t) => `files__${t}`))
      expect(yield* names("mcp:everything")).toEqual(EVERYTHING_TOOLS.map((t) => `everything__${t}`))
      const echo = yield* registry.get("everything__echo")
      expect(echo.spec.description).toBe("Echoes back the input string")
      expect(echo.spec.required).toEqual(["message"])
      expect(echo.requiresConfirmation).toBe(false)
      expect((yield* registry.get("files__write_file")).requiresConfirmation).toBe(true)
    }))

  it.effect("calls server-everything's tools through the executor", () =>
    Effect.gen(function*() {
      expect(yield* execute("everything__echo", { message: "hello" })).toMatchObject({
        success: true,
        output: "Echo: hello",
        tool: "everything__echo",
        version: "1.0.0"
      })
      const sum = yield* execute("everything__get-sum", { a: 2, b: 40 })
      expect(sum.output).toContain("42")
      const image = yield* execute("everything__get-tiny-image", {})
      expect(image.output).toMatch(/\[image image\/png, \d+ bytes\]/)
      // checked against the server's own schema before anything is sent
      const bad = yield* execute("everything__echo", { message: 1, extra: true })
      expect(bad).toMatchObject({ success: false, errorCode: "INVALID_ARGUMENTS" })
      expect(bad.error).toContain("message: must be string")
      // readOnlyHint from a server the configuration does not trust: not in read-only modes
      expect((yield* execute("everything__echo", { message: "x" }, { mode: AgentMode.Explore })).errorCode).toBe("MODE_BLOCKED")
    }))

  it.effect("calls server-filesystem's tools, with confirmation for writes and its own sandbox", () =>
    Effect.gen(function*() {
      const read = yield* execute("files__read_text_file", { path: path.join(ws, "notes.txt") })
      expect(read).toMatchObject({ success: true, output: "first line\nsecond line\n" })
      const target = path.join(ws, "written.txt")
      const waiting = yield* execute("files__write_file", { path: target, content: "by the bridge" })
      expect(waiting).toMatchObject({ success: false, errorCode: "CONFIRMATION_REQUIRED" })
      expect(fs.existsSync(target)).toBe(false)
      const written = yield* execute("files__write_file", { path: target, content: "by the bridge" }, { confirm: true })
      expect(written.success).toBe(true)
      expect(fs.readFileSync(target, "utf8")).toBe("by the bridge")
      const listing = yield* execute("files__list_directory", { path: ws })
      expect(listing.output).toContain("[FILE] written.txt")
      // outside its allowed directory the server refuses: an isError answer, a TOOL_ERROR result
      const outside = yield* execute("files__read_text_file", { path: "/etc/hostname" })
      expect(outside).toMatchObject({ success: false, errorCode: "TOOL_ERROR" })
      expect(outside.error).toContain("Access denied")
    }))
})

describe("real servers, one scope each", () => {
  it.live("fail open: a missing command, servers that exit at once, a silent one and a slow one are skipped; the rest come up", () =>
    Effect.gen(function*() {
      const { bridge, system: tools } = yield* openBridged(ws, {
        missing: { command: "mcp-server-that-is-not-installed" },
        noRoot: filesystem(path.join(ws, "no-such-dir")),
        badTransport: everything({}, "carrier-pigeon"),
        silent: { command: "sleep", args: ["30"], initTimeoutMs: 500 },
        slow: filesystem(ws, { initTimeoutMs: 20 }),
        files: filesystem(ws)
      }, { ...fast, initTimeout: "20 seconds" })
      const reasons = Object.fromEntries(bridge.skipped.map((s) => [s.server, s.reason]))
      expect(Object.keys(reasons).sort()).toEqual(["badTransport", "missing", "noRoot", "silent", "slow"])
      expect(reasons.missing).toContain("spawn mcp-server-that-is-not-installed ENOENT")
      expect(reasons.noRoot).toContain("Connection closed")
      expect(reasons.noRoot).toContain("exited with code 1")
      expect(reasons.noRoot).toContain("None of the specified directories are accessible")
      expect(reasons.badTransport).toContain("exited with code 1")
      expect(reasons.badTransport).toContain("Unknown transport: carrier-pigeon")
      expect(reasons.silent).toContain("Request timed out")
      expect(reasons.slow).toContain("Request timed out")
      expect((yield* bridge.servers).map((s) => [s.name, s.state])).toEqual([["files", "up"]])
      const r = yield* tools.execute("files__list_allowed_directories", {})
      expect(r.output).toContain(fs.realpathSync(ws))
    }), 60_000)

  it.live("a server killed in the middle of a call: a clear error, the next call restarts it once, the other server is not affected", () =>
    Effect.gen(function*() {
      const { bridge, system: tools } = yield* openBridged(ws, { everything: everything(), files: filesystem(ws) }, {
        ...fast,
        initTimeout: "20 seconds",
        maxRestarts: 1
      })
      const before = (yield* bridge.servers).find((s) => s.name === "everything")?.pid ?? 0
      const [long, other] = yield* Effect.all([
        tools.execute("everything__trigger-long-running-operation", { duration: 10, steps: 10 }),
        Effect.gen(function*() {
          yield* Effect.sleep("300 millis")
          process.kill(before, "SIGKILL")
          return yield* tools.execute("files__list_allowed_directories", {})
        })
      ], { concurrency: 2 })
      expect(long).toMatchObject({ success: false, errorCode: "TOOL_ERROR" })
      expect(long.error).toContain("the server closed the connection during the call")
      expect(long.error).toContain("ended by a signal (SIGKILL)")
      expect(long.durationMs).toBeLessThan(5000)
      expect(other.success).toBe(true)
      const again = yield* tools.execute("everything__echo", { message: "back" })
      expect(again).toMatchObject({ success: true, output: "Echo: back" })
      const status = (yield* bridge.servers).find((s) => s.name === "everything")
      expect(status).toMatchObject({ state: "up", restarts: 1 })
      expect(status?.pid).not.toBe(before)
      expect(alive(status?.pid ?? 0)).toBe(true)
    }), 60_000)

  it.live("server-everything's list_changed (sent as it adds its tools after initialize) lists its tools again; nothing is held", () =>
    Effect.gen(function*() {
      const logs: Array<string> = []
      const collect = Logger.make(({ message }) => {
        logs.push(Array.isArray(message) ? message.join(" ") : String(message))
      })
      const { bridge } = yield* openBridged(ws, { everything: everything() }, { ...fast, initTimeout: "20 seconds" }).pipe(
        Effect.provide(Logger.layer([collect])),
        Effect.provideService(References.MinimumLogLevel, "Debug")
      )
      const relisted = () => logs.some((l) => l.includes(`MCP server "everything" changed its tools; it lists 13 now`))
      for (let i = 0; i < 100 && !relisted(); i++) yield* Effect.sleep("20 millis")
      expect(relisted()).toBe(true)
      expect(yield* bridge.pending).toEqual([])
      expect(bridge.proxies.size).toBe(EVERYTHING_TOOLS.length)
    }), 60_000)
})
