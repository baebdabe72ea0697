/**
 * Helpers of the MCP tests: the test servers as configurations, a system with a bridge, and
 * process checks (by pid, and by a marker in the command line for processes whose pid we
 * never learn, such as a server that was skipped).
 */
import { Context, Effect, Layer, Schema, Scope } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { Tool } from "../../../src/index.js"
import { McpBridge, type McpBridgeOptions, type McpServersConfig } from "../../../src/services/McpBridge.js"
import type { McpStdioServerConfig } from "../../../src/tools/mcp/config.js"
import { ToolSystem } from "../../../src/services/ToolSystem.js"
import { Workspace } from "../../../src/services/Workspace.js"

const here = path.dirname(new URL(import.meta.url).pathname)

/** A test server run with this node. */
export const nodeServer = (file: string, args: ReadonlyArray<string> = [], extra: Partial<McpStdioServerConfig> = {}): McpStdioServerConfig => ({
  command: process.execPath,
  args: [path.join(here, "servers", file), ...args],
  ...extra
})

/** Fast timings for tests. */
export const fast: McpBridgeOptions = {
  initTimeout: "3 seconds",
  restartBackoff: "50 millis",
  stopGrace: "300 millis"
}

/** A tool system (no builtins) with the servers bridged in. */
export const bridged = (ws: string, servers: McpServersConfig, options: McpBridgeOptions = fast) =>
  McpBridge.layer(servers, options).pipe(
    Layer.provideMerge(ToolSystem.layerNode({ builtins: false, workspace: Workspace.layerFixed(ws) }))
  )

/**
 * Builds the bridged system in a scope of its own, so a test can close it and look; the
 * test's scope closes it too, if the test did not.
 */
export const openBridged = (ws: string, servers: McpServersConfig, options: McpBridgeOptions = fast) =>
  Effect.gen(function*() {
    const scope = yield* Effect.acquireRelease(Scope.make(), (scope, exit) => Scope.close(scope, exit))
    const context = yield* Layer.buildWithScope(bridged(ws, servers, options), scope)
    return { scope, system: Context.get(context, ToolSystem), bridge: Context.get(context, McpBridge) }
  })

/** Whether a process is alive (a zombie counts as gone). */
export const alive = (pid: number): boolean => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return !/^\d+ \(.*\) Z/.test(stat)
  } catch {
    return false
  }
}

/** The pids of live processes whose command line contains `marker`. */
export const processesWith = (marker: string): Array<number> =>
  fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d)).map(Number).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker) && alive(pid)
    } catch {
      return false
    }
  })

/** A marker unique to one test, passed as an extra argument to a server. */
export const marker = (name: string): string => `--marker=${name}-${process.pid}-${Math.random().toString(36).slice(2)}`

/** Waits (up to `ms`) until `check` holds. */
export const eventually = (check: () => boolean, ms = 3000) =>
  Effect.gen(function*() {
    const end = Date.now() + ms
    while (!check() && Date.now() < end) yield* Effect.sleep("20 millis")
    return check()
  })

/**
 * `delete_thing`, a tool that needs confirmation; `deletions()` counts the calls that ran
 * (its output names the count, `deleted 1 (1)`).
 */
/** A read-only tool that says its text back. */
export const echoTool = Tool.make("echo", {
  description: "Says its text back",
  parameters: Schema.Struct({ text: Schema.String }),
  readOnly: true,
  handler: ({ text }) => Effect.succeed(text)
})

/** A read-only tool that waits until it is interrupted, counting its starts and its interruptions. */
export const makeForever = () => {
  let started = 0
  let stopped = 0
  const tool = Tool.make("forever", {
    description: "Waits until it is interrupted",
    parameters: Schema.Struct({}),
    readOnly: true,
    handler: () =>
      Effect.onInterrupt(Effect.andThen(Effect.sync(() => void started++), Effect.never), () => Effect.sync(() => void stopped++))
  })
  return { tool, started: () => started, stopped: () => stopped }
}

export const makeDeleteThing = () => {
  let deletions = 0
  const tool = Tool.make("delete_thing", {
    description: "Deletes a thing (needs confirmation)",
    parameters: Schema.Struct({ id: Schema.Number }),
    requiresConfirmation: true,
    handler: ({ id }) => Effect.sync(() => `deleted ${id} (${++deletions})`)
  })
  return { tool, deletions: () => deletions }
}
