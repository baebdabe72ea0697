/**
 * The bridge against real stdio servers (tiny SDK servers in ./servers, run with node):
 * proxies through the executor and its gates, argument validation before anything is sent,
 * `isError`, capped outputs, confirmation, and read-only gating by trust.
 */
import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { AgentMode, ToolRegistry, ToolSystem } from "../../../src/index.js"
import { McpBridge } from "../../../src/services/McpBridge.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"
import { bridged, eventually, nodeServer } from "./helpers.js"

const ws = makeTempDirSync("mcp-bridge-")
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))
const lieTarget = path.join(ws, "lie.txt")
const trustedLieTarget = path.join(ws, "trusted-lie.txt")
const cancelLog = path.join(ws, "cancelled.log")

const system = bridged(ws, {
  // an untrusted server: its readOnlyHint waives nothing, the configuration lists what needs no confirmation
  echo: nodeServer("echo.mjs", ["--cancel-log", cancelLog], {
    callTimeoutMs: 1500,
    toolsWithoutConfirmation: ["echo", "add", "fail", "refuse", "big", "slow", "crash", "pids", "image"]
  }),
  trusted: nodeServer("echo.mjs", [], { trusted: true, requiresConfirmation: false }),
  liar: nodeServer("liar.mjs", [lieTarget]),
  trustedLiar: nodeServer("liar.mjs", [trustedLieTarget], { trusted: true })
}, { initTimeout: "5 seconds", maxOutputChars: 100 })

const execute = (name: string, args: unknown, options: { confirm?: boolean; mode?: AgentMode.AgentMode } = {}) =>
  Effect.flatMap(ToolSystem, (tools) => tools.execute(name, args, options))

// live clock (excludeTestServices): a real MCP server process shared by the suite; the bridge's own timers
// run on the live clock (process.ts liveClock)
layer(system, { timeout: 30_000, excludeTestServices: true })("the bridge", (it) => {
  it.effect("registers one proxy per tool, named {server}__{tool}, tagged mcp, with the mapping back", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry
      const bridge = yield* McpBridge
      const names = (yield* registry.list({ tags: ["mcp:echo"] })).map((t) => t.name)
      expect(names).toEqual([
        "echo__add", "echo__big", "echo__crash", "echo__echo", "echo__fail", "echo__image", "echo__pids", "echo__refuse", "echo__slow", "echo__write"
      ])
      expect(bridge.target("echo__echo")).toEqual(Option.some({ server: "echo", tool: "echo" }))
      expect(bridge.target("read_file")).toEqual(Option.none())
      expect(bridge.proxies.size).toBe(22)
      expect(bridge.skipped).toEqual([])
      const echo = yield* registry.get("echo__echo")
      expect(echo.spec.description).toBe("Echoes its text")
      expect(echo.spec.parameters).toEqual({
        type: "object",
        properties: { text: { type: "string", minLength: 1 } },
        required: ["text"],
        additionalProperties: false
      })
      expect(echo.pathFields).toEqual([])
      expect(echo.scopedWrite).toBe(false)
      expect(echo.tags).toEqual(["mcp", "mcp:echo"])
    }))

  it.effect("calls a tool through the executor", () =>
    Effect.gen(function*() {
      const r = yield* execute("echo__echo", { text: "hello" })
      expect(r).toMatchObject({ success: true, output: "hello", tool: "echo__echo", version: "1.0.0" })
      const sum = yield* execute("echo__add", { a: 2, b: 3 })
      expect(sum.output).toBe("5")
    }))

  it.effect("refuses wrong arguments with INVALID_ARGUMENTS before anything is sent", () =>
    Effect.gen(function*() {
      const missing = yield* execute("echo__echo", {})
      expect(missing).toMatchObject({ success: false, errorCode: "INVALID_ARGUMENTS" })
      expect(missing.error).toContain("text: is missing")
      const wrong = yield* execute("echo__add", { a: "2", b: 3, extra: true })
      expect(wrong.errorCode).toBe("INVALID_ARGUMENTS")
      expect(wrong.error).toContain("a: must be number")
      expect(wrong.error).toContain("extra: unknown property")
      const empty = yield* execute("echo__echo", { text: "" })
      expect(empty.error).toContain("text: must NOT have fewer than 1 characters")
      const notObject = yield* execute("echo__echo", [1, 2])
      expect(notObject.errorCode).toBe("INVALID_ARGUMENTS")
      // the schema's pattern runs on a linear-time engine: a catastrophic pattern takes no time
      const start = Date.now()
      const evil = yield* execute("echo__add", { a: 1, b: 2, label: `${"a".repeat(40)}!` })
      expect(evil.error).toContain("label: must match pattern")
      expect(Date.now() - start).toBeLessThan(500)
      // the server never saw these: its tools answer as before, and a bad call is not a crash
      const bridge = yield* McpBridge
      expect((yield* bridge.servers).find((s) => s.name === "echo")?.restarts).toBe(0)
    }))

  it.effect("an isError answer is a TOOL_ERROR failure with the server's text", () =>
    Effect.gen(function*() {
      const r = yield* execute("echo__fail", {}, { confirm: true })
      expect(r).toMatchObject({
        success: false,
        errorCode: "TOOL_ERROR",
        error: "the disk is on fire",
        details: { server: "echo", tool: "fail" }
      })
    }))

  it.effect("an isError answer without text says so; a long one is cut at 4,000 characters", () =>
    Effect.gen(function*() {
      const empty = yield* execute("echo__fail", { text: " " }, { confirm: true })
      expect(empty).toMatchObject({ success: false, errorCode: "TOOL_ERROR", error: "the tool reported an error" })
      const long = yield* execute("echo__fail", { text: "y".repeat(5000) }, { confirm: true })
      expect(long.success ? "" : long.error).toBe(`${"y".repeat(4000)}\n… [output cut at 4000 of 5000 characters]`)
    }))

  it.effect("a server's error answer is a TOOL_ERROR with its message, also one with the timeout's code", () =>
    Effect.gen(function*() {
      // -32001 is the code the SDK's own request timeout carries: only our own timer is a TIMEOUT
      const timedOutUpstream = yield* execute("echo__refuse", { code: -32001, message: "upstream timed out" })
      expect(timedOutUpstream).toMatchObject({ success: false, errorCode: "TOOL_ERROR" })
      expect(timedOutUpstream.success ? "" : timedOutUpstream.error).toContain("upstream timed out")
      // also with a timeout of its own in the error's data (the SDK's timer puts ours there)
      const withData = yield* execute("echo__refuse", { code: -32001, message: "upstream timed out", data: { timeout: 999 } })
      expect(withData).toMatchObject({ success: false, errorCode: "TOOL_ERROR" })
      const internal = yield* execute("echo__refuse", { code: -32603, message: "no such table" })
      expect(internal).toMatchObject({ success: false, errorCode: "TOOL_ERROR" })
      expect(internal.success ? "" : internal.error).toContain("no such table")
    }))

  it.effect("caps the output and names non-text content", () =>
    Effect.gen(function*() {
      // exactly at the cap: nothing is cut
      expect((yield* execute("echo__big", { n: 100 })).output).toBe("x".repeat(100))
      const r = yield* execute("echo__big", { n: 5000 })
      expect(r.success).toBe(true)
      expect(r.output).toBe(`${"x".repeat(100)}\n… [output cut at 100 of 5000 characters]`)
      const image = yield* execute("echo__image", {})
      expect(image.output).toBe("[image image/png, 6 bytes]\na picture")
    }))

  it.effect("a call past the proxy's timeout is a TIMEOUT, the server is told to cancel it, and it keeps serving", () =>
    Effect.gen(function*() {
      const r = yield* execute("echo__slow", { ms: 5000 })
      expect(r).toMatchObject({ success: false, errorCode: "TIMEOUT" })
      expect(r.durationMs).toBeLessThan(3000)
      // notifications/cancelled reached the server (it aborted the call's signal) at the deadline
      // (the server's append creates the file before it writes the line: wait for the line)
      const logged = () => (fs.existsSync(cancelLog) ? fs.readFileSync(cancelLog, "utf8") : "")
      expect(yield* eventually(() => logged() !== "", 800)).toBe(true)
      expect(yield* eventually(() => logged().endsWith("\n"), 800)).toBe(true)
      expect(logged()).toBe("cancelled 5000\n")
      const next = yield* execute("echo__echo", { text: "still here" })
      expect(next.output).toBe("still here")
    }))

  it.effect("a tool needs confirmation unless the configuration lists it or turns it off", () =>
    Effect.gen(function*() {
      const waiting = yield* execute("echo__write", {})
      expect(waiting).toMatchObject({ success: false, errorCode: "CONFIRMATION_REQUIRED", confirmed: false })
      const confirmed = yield* execute("echo__write", {}, { confirm: true })
      expect(confirmed).toMatchObject({ success: true, output: "written" })
      // listed in toolsWithoutConfirmation
      expect((yield* execute("echo__echo", { text: "a" })).success).toBe(true)
      // "requiresConfirmation": false in the configuration
      expect(yield* execute("trusted__write", {})).toMatchObject({ success: true, output: "written" })
    }))

  it.effect("read-only modes take readOnlyHint only from a trusted server", () =>
    Effect.gen(function*() {
      const explore = AgentMode.Explore
      const untrusted = yield* execute("echo__echo", { text: "a" }, { mode: explore })
      expect(untrusted).toMatchObject({ success: false, errorCode: "MODE_BLOCKED" })
      const trusted = yield* execute("trusted__echo", { text: "a" }, { mode: explore })
      expect(trusted).toMatchObject({ success: true, output: "a" })
      // a trusted server's tool without readOnlyHint stays blocked
      expect((yield* execute("trusted__write", {}, { mode: AgentMode.Plan })).errorCode).toBe("MODE_BLOCKED")
      // a server that lies about readOnlyHint: blocked unless trusted, and nothing was written
      const lie = yield* execute("liar__peek", {}, { mode: explore, confirm: true })
      expect(lie.errorCode).toBe("MODE_BLOCKED")
      expect(fs.existsSync(lieTarget)).toBe(false)
      // trusting it is what lets it through (and it does write: trust is the user's call)
      const trustedLie = yield* execute("trustedLiar__peek", {}, { mode: explore })
      expect(trustedLie.success).toBe(true)
      expect(fs.readFileSync(trustedLieTarget, "utf8")).toContain("written by a read-only tool")
      // listing in explore mode shows only the trusted read-only proxies
      const registry = yield* ToolRegistry
      const listed = (yield* registry.list({ mode: explore, tags: ["mcp"] })).map((t) => t.name)
      expect([...listed].sort()).toEqual([
        "trustedLiar__peek", "trusted__add", "trusted__big", "trusted__echo", "trusted__image", "trusted__pids", "trusted__refuse", "trusted__slow"
      ])
    }))
})
