/**
 * Tools the executor sets no deadline for: one defined with `timeout: "none"`, and one that
 * keeps its own (`ownDeadline`, as an MCP proxy does). Their handlers run with no timer:
 * services, span, interruption and their own timeouts hold for them as for the others.
 *
 * On Effect 4: the held handler's check and the own deadline's run under `countingSleeps`
 * (Effect 4's TestClock lists no sleeps; `pendingSleeps` stands for Effect 3's `TestClock.sleeps()`).
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Schema, Tracer } from "effect"
import { TestClock } from "effect/testing"
import { Tool, ToolSystem, ToolTimeout, Workspace } from "../../src/index.js"
import { makeRawTool } from "../../src/tools/mcp/index.js"
import { makeHeldHandler } from "../helpers/heldHandler.js"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { countingSleeps, joinUnmoved, pendingSleeps, sleepersUntil } from "../helpers/testClock.js"

const ws = makeTempDirSync("no-deadline-")

class Greeter extends Context.Service<Greeter, { readonly greet: (name: string) => string }>()("test/NoDeadlineGreeter") {}

const greet = Tool.make("greet", {
  description: "Greets with the application's Greeter",
  parameters: Schema.Struct({ name: Schema.String }),
  readOnly: true,
  timeout: "none",
  handler: ({ name }) => Effect.map(Greeter, (g) => g.greet(name))
})

const waiting = makeHeldHandler()
const held = Tool.make("held", {
  description: "Waits until interrupted; its finalizer is asynchronous",
  parameters: Schema.Struct({}),
  readOnly: true,
  timeout: "none",
  handler: waiting.handler
})

const spanName = Tool.make("span_name", {
  description: "Names the span it runs under",
  parameters: Schema.Struct({}),
  readOnly: true,
  timeout: "none",
  handler: () => Effect.map(Effect.currentSpan, (span) => span.name).pipe(Effect.orElseSucceed(() => "no span"))
})

const selfTimed = makeRawTool("self_timed", {
  description: "Ends itself with ToolTimeout, as a proxy whose request timed out",
  parameters: { type: "object", properties: {} },
  readOnly: true,
  timeout: "250 millis",
  ownDeadline: true,
  handler: () => Effect.fail(new ToolTimeout({ tool: "self_timed", timeoutMs: 250 }))
})

const slowSelfTimed = makeRawTool("slow_self_timed", {
  description: "Keeps its own deadline, and answers after the declared timeout",
  parameters: { type: "object", properties: {} },
  readOnly: true,
  timeout: "20 millis",
  ownDeadline: true,
  handler: () => Effect.as(Effect.sleep("80 millis"), "late but answered")
})

const ownTimeout = Tool.make("own_timeout", {
  description: "A Tool.make handler that ends with a ToolTimeout naming itself",
  parameters: Schema.Struct({}),
  readOnly: true,
  handler: () => Effect.fail(new ToolTimeout({ tool: "own_timeout", timeoutMs: 75 }))
})

const system = ToolSystem.layerNode({
  builtins: false,
  tools: [greet, held, spanName, selfTimed, slowSelfTimed, ownTimeout],
  workspace: Workspace.layerFixed(ws)
}).pipe(Layer.provide(Layer.succeed(Greeter, { greet: (name) => `Hello, ${name}!` })))

describe("tools without an executor deadline", () => {
  it.effect("the handler gets the services bound at registration", () =>
    Effect.gen(function*() {
      const tools = yield* ToolSystem
      expect(yield* tools.execute("greet", { name: "Ada" })).toMatchObject({ success: true, output: "Hello, Ada!" })
    }).pipe(Effect.provide(system)))

  it.effect("the handler runs under the call's span", () =>
    Effect.gen(function*() {
      const tools = yield* ToolSystem
      // the default tracer, installed explicitly: the executor then makes the call's span
      const tracer = yield* Effect.tracer
      const r = yield* tools.execute("span_name", {}).pipe(Effect.withTracer(Tracer.make({ ...tracer })))
      expect(r).toMatchObject({ success: true, output: "execute_tool span_name" })
    }).pipe(Effect.provide(system)))

  it.effect("an interrupted caller resumes after the handler's asynchronous finalizer", () =>
    Effect.gen(function*() {
      const tools = yield* ToolSystem
      expect(yield* waiting.interruptOnceStarted(tools.execute("held", {}))).toEqual(["held"])
    }).pipe(Effect.provide(system), countingSleeps), 10_000)

  it.effect.each([
    ["a tool that keeps its own deadline reports TIMEOUT with its own message", "self_timed", 250],
    ["a Tool.make handler's own ToolTimeout is a TIMEOUT, as a raw tool's is", "own_timeout", 75]
  ] as const)("%s", ([, name, ms]) =>
    Effect.gen(function*() {
      const tools = yield* ToolSystem
      const r = yield* tools.execute(name, {})
      expect(r).toMatchObject({ success: false, errorCode: "TIMEOUT", error: `Tool "${name}" timed out after ${ms} ms` })
    }).pipe(Effect.provide(system)))

  it.effect("the executor sets no timer of its own for a tool that keeps its own deadline", () =>
    Effect.gen(function*() {
      const tools = yield* ToolSystem
      const info = (yield* tools.registry.list()).find((t) => t.name === "slow_self_timed")
      expect(info).toMatchObject({ timeoutMs: 20, ownDeadline: true })
      const call = yield* Effect.forkChild(tools.execute("slow_self_timed", {}))
      // the handler's 80 ms is the only wait on the clock: no deadline of 20 ms beside it
      yield* sleepersUntil(80)
      expect(yield* pendingSleeps).toEqual([80])
      yield* TestClock.adjust("80 millis")
      expect(yield* joinUnmoved(call)).toMatchObject({ success: true, output: "late but answered" })
    }).pipe(Effect.provide(system), countingSleeps))
})

describe("makeRawTool ownDeadline", () => {
  it("is off without a timeout to keep", () => {
    const tool = makeRawTool("no_timer", {
      description: "No timeout at all",
      parameters: { type: "object", properties: {} },
      timeout: "none",
      ownDeadline: true,
      handler: () => Effect.void
    })
    expect(tool.ownDeadline).toBe(false)
    expect(tool.timeoutMs).toBeUndefined()
  })
})
