/**
 * The bridge's life: fail-open start (a missing command, a server that exits at once, a
 * silent one), a crash mid-call and the restart on the next call, a server that dies on its
 * own, and every process (and the processes they started) ended when the scope closes.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Schema, Scope } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { recordingLogs, textOf } from "../../helpers/recordingLogs.js"
import { tempDir } from "../../helpers/tempDir.js"
import { alive, eventually, fast, nodeServer } from "./helpers.js"
import { open } from "./lifecycleHarness.js"

/** What the echo server's `pids` tool answers. */
const Pids = Schema.fromJsonString(Schema.Struct({ pid: Schema.Number, child: Schema.Number }))

describe("start", () => {
  it.live("starts the servers side by side: two that each wait for the other both come up", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-side-by-side-")
      const [a, b] = [path.join(ws, "a.started"), path.join(ws, "b.started")]
      const { bridge, scope } = yield* open(ws, {
        a: nodeServer("rendezvous.mjs", ["--mine", a, "--theirs", b], { requiresConfirmation: false }),
        b: nodeServer("rendezvous.mjs", ["--mine", b, "--theirs", a], { requiresConfirmation: false })
      })
      expect(bridge.skipped).toEqual([])
      expect([...bridge.proxies.keys()].sort()).toEqual(["a__ping", "b__ping"])
      yield* Scope.close(scope, Exit.void)
    }))
})

describe("a server's process", () => {
  it.live("gets the configured env and cwd over a minimal environment: none of the host's other variables", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-environment-")
      // a secret of the host's, which no server is given
      process.env.ETS_TEST_HOST_SECRET = "s3cret"
      yield* Effect.addFinalizer(() => Effect.sync(() => delete process.env.ETS_TEST_HOST_SECRET))
      const { scope, system } = yield* open(ws, {
        env: nodeServer("environment.mjs", [], { env: { SERVER_TOKEN: "t0k3n" }, cwd: ws, requiresConfirmation: false })
      })
      const r = yield* system.execute("env__environment", { names: ["SERVER_TOKEN", "ETS_TEST_HOST_SECRET", "PATH", "HOME"] })
      expect(r.success).toBe(true)
      const seen: { cwd: string; variables: Record<string, string | null> } = JSON.parse(String(r.output))
      expect(seen.cwd).toBe(ws)
      expect(seen.variables).toEqual({
        SERVER_TOKEN: "t0k3n",
        ETS_TEST_HOST_SECRET: null,
        PATH: process.env.PATH,
        HOME: process.env.HOME
      })
      yield* Scope.close(scope, Exit.void)
    }))
})

describe("crashes and restarts", () => {
  it.live("a crash ends the pending call with a clear error; the next call restarts the server once; others are not affected", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-crash-")
      const log = path.join(ws, "starts.log")
      const { bridge, scope, system } = yield* open(ws, {
        flaky: nodeServer("echo.mjs", ["--start-log", log], { requiresConfirmation: false }),
        steady: nodeServer("echo.mjs", [], { requiresConfirmation: false })
      }, { ...fast, maxRestarts: 1 })
      const before = (yield* bridge.servers).find((s) => s.name === "flaky")?.pid ?? 0
      const [crash, other] = yield* Effect.all([
        system.execute("flaky__crash", {}),
        Effect.andThen(Effect.sleep("100 millis"), system.execute("steady__slow", { ms: 50 }))
      ], { concurrency: 2 })
      expect(crash).toMatchObject({ success: false, errorCode: "TOOL_ERROR" })
      expect(crash.error).toContain("the server closed the connection during the call")
      expect(crash.error).toContain("exited with code 5")
      expect(other).toMatchObject({ success: true, output: "slept 50" })
      expect(alive(before)).toBe(false)
      // the next call restarts it
      const again = yield* system.execute("flaky__echo", { text: "back" })
      expect(again).toMatchObject({ success: true, output: "back" })
      const status = (yield* bridge.servers).find((s) => s.name === "flaky")
      expect(status).toMatchObject({ state: "up", restarts: 1 })
      expect(status?.pid).not.toBe(before)
      expect(fs.readFileSync(log, "utf8").trim().split("\n")).toHaveLength(2)
      // a second crash: the restarts are used up, and the server is reported down
      yield* system.execute("flaky__crash", {})
      const down = yield* system.execute("flaky__echo", { text: "?" })
      expect(down).toMatchObject({ success: false, errorCode: "TOOL_ERROR" })
      expect(down.error).toContain(`MCP server "flaky" is unavailable`)
      expect(down.error).toContain("restarted 1 times already")
      expect((yield* bridge.servers).find((s) => s.name === "flaky")?.state).toBe("down")
      expect(fs.readFileSync(log, "utf8").trim().split("\n")).toHaveLength(2)
      // the other server never noticed
      expect((yield* system.execute("steady__echo", { text: "fine" })).output).toBe("fine")
      yield* Scope.close(scope, Exit.void)
    }))

  it.live("a crash is logged with the server's stderr, and the restart with its delay (the back-off, then doubled)", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-crash-log-")
      const [seen, lines] = yield* recordingLogs(Effect.gen(function*() {
        const { bridge, scope, system } = yield* open(ws, { flaky: nodeServer("echo.mjs", [], { requiresConfirmation: false }) })
        const first = (yield* bridge.servers)[0]?.pid ?? 0
        const crash = yield* system.execute("flaky__crash", {})
        yield* system.execute("flaky__echo", { text: "back" })
        const second = (yield* bridge.servers)[0]?.pid ?? 0
        yield* system.execute("flaky__crash", {})
        yield* system.execute("flaky__echo", { text: "back again" })
        yield* Scope.close(scope, Exit.void)
        return { crash, first, second }
      }))
      const { crash, first, second } = seen
      // the call's own error holds the end of the server's stderr too
      expect(crash.success ? "" : crash.error).toContain("exited with code 5; stderr: crashing on purpose")
      const texts = lines.map(textOf)
      expect(texts).toContain(`MCP server "flaky" (pid ${first}) exited with code 5; stderr: crashing on purpose; its next call restarts it`)
      expect(texts).toContain(
        `Restarting MCP server "flaky" in 50ms (it stopped (the server exited with code 5; stderr: crashing on purpose))`
      )
      expect(texts.find((t) => t.startsWith(`Restarting MCP server "flaky" in 100ms (`))).toBeDefined()
      expect(texts).toContain(`MCP server "flaky" restarted (pid ${second})`)
    }))

  it.live("a crash with nothing on stderr is logged without a stderr part", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-crash-quiet-")
      const [pid, lines] = yield* recordingLogs(Effect.gen(function*() {
        const { bridge, scope, system } = yield* open(ws, { quiet: nodeServer("changing.mjs", [], { requiresConfirmation: false }) })
        const pid = (yield* bridge.servers)[0]?.pid ?? 0
        yield* system.execute("quiet__control", { actions: ["crash"], notify: false })
        // the bridge has seen it go (not only the process table): the next call restarts it
        for (let i = 0; i < 250 && (yield* bridge.servers)[0]?.state === "up"; i++) yield* Effect.sleep("20 millis")
        expect(yield* system.execute("quiet__stable", { text: "back" })).toMatchObject({ success: true, output: "back" })
        yield* Scope.close(scope, Exit.void)
        return pid
      }))
      const texts = lines.map(textOf)
      expect(texts).toContain(`MCP server "quiet" (pid ${pid}) exited with code 9; its next call restarts it`)
      expect(texts).toContain(`Restarting MCP server "quiet" in 50ms (it stopped (the server exited with code 9))`)
    }))

  it.live("a restart that fails leaves the server down with the reason, and its calls fail at once", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-restart-fails-")
      // the server's working directory: gone after the first start, so the restart cannot spawn
      const cwd = path.join(ws, "cwd")
      fs.mkdirSync(cwd)
      const { bridge, scope, system } = yield* open(ws, {
        fragile: nodeServer("echo.mjs", [], { cwd, requiresConfirmation: false })
      })
      fs.rmSync(cwd, { recursive: true })
      yield* system.execute("fragile__crash", {})
      const failed = yield* system.execute("fragile__echo", { text: "back?" })
      expect(failed).toMatchObject({ success: false, errorCode: "TOOL_ERROR" })
      expect(failed.error).toContain(`MCP server "fragile" is unavailable: the restart failed: `)
      expect(failed.error).toContain("ENOENT")
      const status = (yield* bridge.servers)[0]
      expect(status).toMatchObject({ state: "down", restarts: 1 })
      expect(status?.reason).toContain("the restart failed: ")
      // down: the next call is refused with the same reason, and nothing is started again
      const again = yield* system.execute("fragile__echo", { text: "back?" })
      expect(again.error).toBe(failed.error)
      expect((yield* bridge.servers)[0]).toMatchObject({ state: "down", restarts: 1 })
      yield* Scope.close(scope, Exit.void)
    }))

  it.live("a server that dies on its own after start is restarted by the next call", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-dies-")
      // only the first start dies: the restarted one must outlive the call that restarts it,
      // which a loaded machine can delay past any fixed lifetime
      const { bridge, scope, system } = yield* open(ws, {
        mortal: nodeServer("echo.mjs", ["--die-after", "400", "--die-once", path.join(ws, "died")], { requiresConfirmation: false })
      })
      const first = (yield* bridge.servers)[0]?.pid ?? 0
      expect(yield* eventually(() => !alive(first))).toBe(true)
      // the bridge notices (the pipe closes); a call made before that would meet the dying server
      let state = ""
      for (let i = 0; i < 100 && state !== "crashed"; i++) {
        state = (yield* bridge.servers)[0]?.state ?? ""
        if (state !== "crashed") yield* Effect.sleep("20 millis")
      }
      expect(state).toBe("crashed")
      const r = yield* system.execute("mortal__echo", { text: "again" })
      expect(r).toMatchObject({ success: true, output: "again" })
      expect((yield* bridge.servers)[0]).toMatchObject({ state: "up", restarts: 1 })
      yield* Scope.close(scope, Exit.void)
    }))
})

describe("an answer past the 10 MB message cap", () => {
  it.live("fails its call, stops the server (no unbounded buffer), and the next call restarts it", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-oversized-")
      const { bridge, scope, system } = yield* open(ws, {
        huge: nodeServer("echo.mjs", [], { requiresConfirmation: false })
      })
      const before = (yield* bridge.servers)[0]?.pid ?? 0
      const r = yield* system.execute("huge__big", { n: 11 * 1024 * 1024 })
      expect(r).toMatchObject({ success: false, errorCode: "TOOL_ERROR" })
      expect(r.error).toContain("the server closed the connection during the call (it was stopped: it sent a message over 10 MB)")
      expect(yield* eventually(() => !alive(before), 5000)).toBe(true)
      const again = yield* system.execute("huge__big", { n: 10 })
      expect(again).toMatchObject({ success: true, output: "x".repeat(10) })
      expect((yield* bridge.servers)[0]).toMatchObject({ state: "up", restarts: 1 })
      yield* Scope.close(scope, Exit.void)
    }), 60_000)
})

describe("the end of the scope", () => {
  it.live("ends every server process and the processes they started, and unregisters the proxies", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-scope-")
      const { bridge, scope, system } = yield* open(ws, {
        a: nodeServer("echo.mjs", ["--spawn-child"], { requiresConfirmation: false }),
        b: nodeServer("echo.mjs", [], { requiresConfirmation: false })
      })
      const pids = Schema.decodeUnknownSync(Pids)((yield* system.execute("a__pids", {})).output)
      const servers = (yield* bridge.servers).map((s) => s.pid)
      expect(servers).toContain(pids.pid)
      for (const pid of [...servers, pids.child]) expect(alive(pid)).toBe(true)
      yield* Scope.close(scope, Exit.void)
      for (const pid of [...servers, pids.child]) expect(alive(pid)).toBe(false)
      expect(yield* system.registry.list({ tags: ["mcp"] })).toEqual([])
    }))
})
