/**
 * A tool registered without services, with no deadline and no memory cap (what an MCP proxy
 * is), runs on its caller's fiber: nothing needs providing, and a child fiber that waits on
 * I/O costs several times the rest of the call. A span, a deadline or bound services keep the
 * child fiber; in both cases the handler sees the caller's services and interruption waits
 * for its finalizers.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, FiberId, Layer, Schema, Tracer } from "effect"
import { makeCallContext } from "../../src/layers/callContext.js"
import { makeRawTool } from "../../src/tools/mcp/index.js"
import { Tool, ToolRegistry, ToolSystem, Workspace } from "../../src/index.js"
import { makeHeldHandler } from "../helpers/heldHandler.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const ws = makeTempDirSync("on-caller-")

class Caller extends Context.Tag("test/OnCallerCaller")<Caller, string>() {}

const held = makeHeldHandler()

const raw = (name: string, timeout: "none" | "5 seconds", handler: () => Effect.Effect<unknown>) =>
  makeRawTool(name, { description: name, parameters: { type: "object", properties: {} }, readOnly: true, timeout, handler })

/** The fiber the handler ran on, and what it saw of the caller's context and span. */
const whereAmI = () =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fiberId
    const caller = yield* Effect.serviceOption(Caller)
    const span = yield* Effect.option(Effect.currentSpan)
    return {
      fiber: FiberId.threadName(fiber),
      caller: caller._tag === "Some" ? caller.value : null,
      span: span._tag === "Some" ? span.value.name : null
    }
  })

/** Registers `tool` as the bridge registers a proxy: with an empty context. */
const registerBare = (tool: Tool.Tool) =>
  Effect.flatMap(ToolRegistry, (registry) =>
    registry.register(tool).pipe(Effect.mapInputContext<never, never>(() => Context.empty())))

/** Registered bare too, but with a memory cap: the cap needs the child fiber. */
const capped = Tool.make("bare_capped", {
  description: "bare_capped",
  parameters: Schema.Struct({}),
  readOnly: true,
  timeout: "none",
  memoryLimitMb: 512,
  handler: whereAmI
})

const system = Layer.effectDiscard(Effect.all([
  registerBare(capped),
  registerBare(raw("bare", "none", whereAmI)),
  registerBare(raw("bare_timed", "5 seconds", whereAmI)),
  registerBare(raw("bare_held", "none", held.handler))
])).pipe(
  Layer.provideMerge(ToolSystem.layerNode({
    builtins: false,
    tools: [raw("bound", "none", whereAmI)],
    workspace: Workspace.layerFixed(ws)
  }))
)

const call = (name: string) =>
  Effect.gen(function*() {
    const tools = yield* ToolSystem
    const r = yield* tools.execute(name, {}).pipe(Effect.provideService(Caller, "the caller"))
    if (!r.success) throw new Error(`${name} failed: ${r.error}`)
    return r.output
  })

describe("the handler of a tool registered without services", () => {
  it("has a CallContext that runs on the caller (and one with services has none)", () => {
    expect(makeCallContext(Context.empty()).onCaller).toBeTypeOf("function")
    expect(makeCallContext(Context.make(Caller, "x")).onCaller).toBeUndefined()
  })

  it.effect("runs on the caller's fiber, in the caller's context", () =>
    Effect.gen(function*() {
      const me = FiberId.threadName(yield* Effect.fiberId)
      expect(yield* call("bare")).toEqual({ fiber: me, caller: "the caller", span: null })
    }).pipe(Effect.provide(system)))

  it.effect("runs in a child fiber when it has a deadline or a memory cap, or when its tool holds services", () =>
    Effect.gen(function*() {
      const me = FiberId.threadName(yield* Effect.fiberId)
      for (const name of ["bare_timed", "bare_capped", "bound"]) {
        const where = yield* call(name)
        expect(where).toMatchObject({ caller: "the caller", span: null })
        expect(where).not.toMatchObject({ fiber: me })
      }
    }).pipe(Effect.provide(system)))

  it.effect("runs in a child fiber under the call's span when the call is traced", () =>
    Effect.gen(function*() {
      const me = FiberId.threadName(yield* Effect.fiberId)
      const tracer = yield* Effect.tracer
      const where = yield* call("bare").pipe(Effect.withTracer(Tracer.make({ ...tracer })))
      expect(where).toMatchObject({ caller: "the caller", span: "execute_tool bare" })
      expect(where).not.toMatchObject({ fiber: me })
    }).pipe(Effect.provide(system)))

  it.effect("an interrupted caller resumes after the handler's asynchronous finalizer", () =>
    Effect.gen(function*() {
      const tools = yield* ToolSystem
      expect(yield* held.interruptOnceStarted(tools.execute("bare_held", {}))).toEqual(["held"])
    }).pipe(Effect.provide(system)), 10_000)
})
