/**
 * Issue 47, item 2, outputs: a tool's `outputSchema` is screened and compiled as input schemas
 * are, and a call's structured content is checked here, within the work bound. Before, the SDK
 * client did both: its `listTools` compiled every output schema with its own ajv, unbudgeted
 * (2,000 properties: 0.66 s of blocked event loop; one `$ref` it could not resolve failed the
 * whole listing, and the server was skipped), and its `callTool` checked the content unbounded
 * (uniqueItems over 20,000 objects: 11.6 s; a recursive anyOf failing 18 levels down: 3.4 s),
 * no timer, a call's timeout included, firing meanwhile.
 *
 * Each measured thing is repeated when its run blocked past the bound (`measureRepeatedBlocking`,
 * as hostileSchemas.test does: on a loaded machine the event loop also waits for a core).
 */
import { afterAll, describe, expect, it, layer } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Logger, Runtime, Scope } from "effect"
import * as fs from "node:fs"
import { ToolSystem } from "../../../src/services/ToolSystem.js"
import { MAX_BLOCK_MS, measureRepeatedBlocking } from "../../helpers/loopDelay.js"
import { makeTempDirSync, tempDir } from "../../helpers/tempDir.js"
import { bridged, fast, nodeServer } from "./helpers.js"

/** `{ a: { a: ... 5 } }`, `levels` deep: every branch of the recursive anyOf fails only at the bottom. */
const failingAtTheBottom = (levels: number): unknown => {
  let value: unknown = 5
  for (let i = 0; i < levels; i++) value = { a: value }
  return value
}
const outputs = (extra: Parameters<typeof nodeServer>[2] = {}) =>
  nodeServer("outputSchemas.mjs", [], { requiresConfirmation: false, ...extra })

// live clock: a real MCP server process (servers/*.mjs); the bridge's own timers run on the live clock (process.ts liveClock); the event loop's blocks are measured in real time
describe("hostile output schemas of a bridged server", () => {
  it.live("start without holding the event loop; each tool is taken with its output schema checked, or left out", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-output-schemas-")
      const logs: Array<string> = []
      const capture = Logger.layer([Logger.make(({ message }) => logs.push(String(message)))])
      const run = Effect.runPromiseWith(yield* Effect.context<Scope.Scope>())
      const layer = bridged(ws, { outputs: outputs() })
      const startOnce = Effect.acquireRelease(Scope.make(), (scope, exit) => Scope.close(scope, exit)).pipe(
        Effect.flatMap((scope) => Layer.buildWithScope(layer, scope)),
        Effect.provide(capture)
      )
      // a start is long (a process, its listing) and shares the machine with other test files: five tries
      const start = yield* Effect.promise(() => measureRepeatedBlocking(() => run(startOnce), 5))
      expect(start.maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
      const system = Context.get(start.value, ToolSystem)

      const names = (yield* system.registry.list({ tags: ["mcp"] })).map((t) => t.name)
      expect(names).toEqual(["outputs__bigEnum", "outputs__recursive", "outputs__shaped", "outputs__slow", "outputs__tasks", "outputs__unique"])
      const warned = (text: string) => logs.some((line) => line.includes(text))
      expect(warned(`tool "huge" skipped: its output schema cannot be checked here: it costs more than 500 to compile`)).toBe(true)
      expect(warned(`tool "badRef" skipped: its output schema cannot be checked here: its $ref "https://example.com/s.json"`)).toBe(true)
      expect(warned(`tool "bigEnum" has its structured content checked here only in part`)).toBe(true)
      expect(warned("an enum of 40000 members")).toBe(true)

      // the 40,000-member enum: its members' type is checked here
      expect(yield* system.execute("outputs__bigEnum", { out: { color: "c39999" } })).toMatchObject({ success: true })
      const notString = yield* system.execute("outputs__bigEnum", { out: { color: 5 } })
      expect(notString).toMatchObject({ success: false, errorCode: "TOOL_ERROR", details: { issues: ["color: must be string"] } })
      // the recursive anyOf: content that fits goes through
      expect(yield* system.execute("outputs__recursive", { out: { n: { a: { a: {} } } } })).toMatchObject({ success: true })
    }), 60_000)
})

const ws = makeTempDirSync("mcp-output-calls-")
const system = bridged(ws, { outputs: outputs(), timed: outputs({ callTimeoutMs: 400 }) }, fast)
const execute = (name: string, args: unknown) => Effect.flatMap(ToolSystem, (tools) => tools.execute(name, args))

// live clock (excludeTestServices): a real MCP server process shared by the suite; the bridge's own timers
// run on the live clock (process.ts liveClock)
layer(system, { timeout: 30_000, excludeTestServices: true })("structured content, checked here", (it) => {
  it.effect("that matches passes; that does not is a clear error result naming each mismatch", () =>
    Effect.gen(function*() {
      expect(yield* execute("outputs__shaped", { out: { n: 3 } })).toMatchObject({ success: true, output: "{\"n\":3}" })
      const bad = yield* execute("outputs__shaped", { out: { n: "three", extra: true } })
      expect(bad).toMatchObject({
        success: false,
        errorCode: "TOOL_ERROR",
        details: { server: "outputs", tool: "shaped", issues: ["n: must be number"] }
      })
      expect(bad.success ? "" : bad.error).toContain("its structured content does not pass its output schema: n: must be number")
      const none = yield* execute("outputs__shaped", {})
      expect(none).toMatchObject({ success: false, errorCode: "TOOL_ERROR" })
      expect(none.success ? "" : none.error).toContain("has an output schema but did not return structured content")
    }))

  it.effect("a tool that requires task-based execution is refused by the bridge, naming why", () =>
    Effect.gen(function*() {
      const tasks = yield* execute("outputs__tasks", {})
      expect(tasks).toMatchObject({ success: false, errorCode: "TOOL_ERROR" })
      expect(tasks.success ? "" : tasks.error).toContain(`requires task-based execution (its execution.taskSupport is "required"), which the bridge does not support`)
    }))

  it.effect("that is costly to check holds the event loop within the bound: a timeout meanwhile fires on time", () =>
    Effect.gen(function*() {
      const run = Effect.runPromiseWith(yield* Effect.context<ToolSystem>())
      const costly = Effect.gen(function*() {
        // a call of the server with a 400 ms timeout that answers after 5 s: its timeout fires meanwhile
        const started = Date.now()
        const slow = yield* Effect.forkChild(Effect.zip(execute("timed__slow", { ms: 5_000 }), Effect.sync(() => Date.now() - started)))
        // 20,000 objects under uniqueItems: not compared pairwise here (the uniqueness is left unchecked, as the warning says)
        const unique = yield* execute("outputs__unique", { count: 20_000 })
        // a recursive anyOf, 21 levels failing at the bottom: refused within the work bound
        const deep = yield* execute("outputs__recursive", { out: { n: failingAtTheBottom(21) } })
        const [timedOut, slowMs] = yield* Fiber.join(slow)
        return { unique, deep, timedOut, slowMs }
      })
      const { maxBlockMs, value } = yield* Effect.promise(() => measureRepeatedBlocking(() => run(costly)))
      expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
      // checked (all but the uniqueness), or refused past the 40 ms a check may run (a loaded machine): never passed on unchecked
      if (!value.unique.success) expect(value.unique.error).toContain("takes more than")
      else expect(value.unique.output).toBe("20000 items")
      expect(value.deep).toMatchObject({ success: false, errorCode: "TOOL_ERROR" })
      expect(value.deep.success ? "" : value.deep.error).toContain("takes more than")
      expect(value.timedOut).toMatchObject({ success: false, errorCode: "TIMEOUT" })
      expect(value.slowMs).toBeLessThan(400 + MAX_BLOCK_MS + 400)
    }), 30_000)
})

afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))
