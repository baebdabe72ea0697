/**
 * How a proxied call reaches its server: through the connection's own call table
 * (`directCalls.ts`), with or without an `outputSchema` (one with an output schema has its
 * structured content checked here, `outputCheck.ts`). An interrupted call is cancelled on the
 * server by its own request's id.
 */
import { afterAll, describe, expect, it, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ToolSystem } from "../../../src/index.js"
import { callRoutes } from "../../../src/tools/mcp/callRequest.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"
import { bridged, eventually, fast, nodeServer } from "./helpers.js"

const ws = makeTempDirSync("mcp-call-path-")
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))
const cancelLog = path.join(ws, "cancelled.log")
const shapedCancelLog = path.join(ws, "shaped-cancelled.log")

const system = bridged(ws, {
  echo: nodeServer("echo.mjs", ["--cancel-log", cancelLog], { requiresConfirmation: false }),
  shaped: nodeServer("shaped.mjs", ["--cancel-log", shapedCancelLog], { requiresConfirmation: false })
}, fast)

/**
 * What a server wrote into its cancel log so far. Not whether the file exists: the server's
 * `appendFileSync` creates it before it writes, and the test can read it in between.
 */
const logged = (file: string): string => (fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "")

const execute = (name: string, args: unknown) => Effect.flatMap(ToolSystem, (tools) => tools.execute(name, args))

// live clock (excludeTestServices): a real MCP server process shared by the suite; the bridge's own timers
// run on the live clock (process.ts liveClock)
layer(system, { timeout: 30_000, excludeTestServices: true })("a proxied call", (it) => {
  it.effect("interrupted, is cancelled on the server by its id, while the next call goes on", () =>
    Effect.gen(function*() {
      const slow = yield* Effect.forkChild(execute("echo__slow", { ms: 2500 }))
      // a call made meanwhile is sent after the slow one: the id to cancel is still the slow one's
      yield* Effect.sleep("150 millis")
      expect(yield* execute("echo__echo", { text: "meanwhile" })).toMatchObject({ success: true, output: "meanwhile" })
      yield* Fiber.interrupt(slow)
      expect(yield* eventually(() => logged(cancelLog) !== "", 2000)).toBe(true)
      expect(logged(cancelLog)).toBe("cancelled 2500\n")
      expect(yield* execute("echo__echo", { text: "after" })).toMatchObject({ success: true, output: "after" })
    }))

  it.effect("with an outputSchema, interrupted, is cancelled on the server by its id, while the next call goes on", () =>
    Effect.gen(function*() {
      const slow = yield* Effect.forkChild(execute("shaped__wait", { ms: 2500 }))
      yield* Effect.sleep("150 millis")
      // sent after the slow one and answered: the id to cancel is still the slow one's
      expect(yield* execute("shaped__wait", { ms: 1 })).toMatchObject({ success: true, output: "{\"n\":1}" })
      yield* Fiber.interrupt(slow)
      expect(yield* eventually(() => logged(shapedCancelLog) !== "", 2000)).toBe(true)
      expect(logged(shapedCancelLog)).toBe("cancelled 2500\n")
      expect(yield* execute("shaped__count", { n: 4 })).toMatchObject({ success: true, output: "{\"n\":4}" })
    }))

  it.effect("with an outputSchema, has its structured content checked here", () =>
    Effect.gen(function*() {
      expect(yield* execute("shaped__count", { n: 3 })).toMatchObject({ success: true, output: "{\"n\":3}" })
      const bad = yield* execute("shaped__count", { n: "three" })
      expect(bad).toMatchObject({ success: false, errorCode: "TOOL_ERROR" })
      expect(bad.success ? "" : bad.error).toContain("its structured content does not pass its output schema: n: must be number")
    }))
})

describe("callRoutes", () => {
  it("routes the tools that require tasks (refused) or have an outputSchema (checked), and no other", () => {
    const inputSchema = { type: "object" as const }
    const outputSchema = { type: "object" as const }
    const tools = [
      { name: "shaped", inputSchema, outputSchema },
      { name: "tasks", inputSchema, outputSchema, execution: { taskSupport: "required" as const } },
      { name: "maybeTasks", inputSchema, execution: { taskSupport: "optional" as const } },
      { name: "plain", inputSchema }
    ]
    expect([...callRoutes(tools)]).toEqual([
      ["shaped", { _tag: "OutputSchema", schema: outputSchema }],
      ["tasks", { _tag: "TasksRequired" }]
    ])
    expect(callRoutes([])).toEqual(new Map())
  })
})
