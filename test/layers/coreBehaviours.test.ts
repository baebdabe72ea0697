/**
 * Behaviours of the core that are promised and built, each pinned by a test that fails when
 * the behaviour breaks (found by deliberately breaking them one at a time).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { describe, expect, it } from "@effect/vitest"
import { Context, Deferred, Effect, Fiber, Layer, Schema, Tracer } from "effect"
import { TestClock } from "effect/testing"
import * as fs from "node:fs"
import * as path from "node:path"
import { AgentMode, RateLimiter, Tool, ToolRegistry, ToolSystem, Workspace } from "../../src/index.js"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { countingSleeps, joinUnmoved, sleepersUntil, wakeAfter } from "../helpers/testClock.js"

const ws = makeTempDirSync("core-")

let runs = 0
const limited = Tool.make("limited", {
  description: "Counts its runs; one call a minute",
  parameters: Schema.Struct({}),
  readOnly: true,
  rateLimitRpm: 1,
  handler: () => Effect.sync(() => ++runs)
})

const echo = Tool.make("echo", {
  description: "Echoes",
  parameters: Schema.Struct({ x: Schema.Number }),
  readOnly: true,
  tags: ["math"],
  version: "2.1.0",
  handler: ({ x }) => Effect.succeed(x)
})

const writer = Tool.make("writer", {
  description: "Has side effects",
  parameters: Schema.Struct({}),
  tags: ["io"],
  handler: () => Effect.void
})

const dated = Tool.make("dated", {
  description: "Returns a Date, encoded by its success schema",
  parameters: Schema.Struct({}),
  readOnly: true,
  success: Schema.DateFromString,
  handler: () => Effect.succeed(new Date(Date.UTC(2026, 0, 2)))
})

const system = ToolSystem.layerNode({ builtins: false, tools: [limited, echo, writer, dated], workspace: Workspace.layerFixed(ws) })
const exec = (name: string, args: unknown, options?: { readonly mode?: AgentMode.AgentMode }) =>
  Effect.flatMap(ToolSystem, (t) => t.execute(name, args, options))

describe("rate limits", () => {
  it.effect("a rate-limited call does not run the handler", () =>
    Effect.gen(function*() {
      runs = 0
      expect((yield* exec("limited", {})).success).toBe(true)
      const refused = yield* exec("limited", {})
      expect(refused.errorCode).toBe("RATE_LIMITED")
      expect(runs).toBe(1)
    }).pipe(Effect.provide(system)))

  it.effect("retryAfterMs counts the part of a token already refilled", () =>
    Effect.gen(function*() {
      const limiter = yield* RateLimiter
      const info = limited
      yield* limiter.acquire(info)
      yield* TestClock.adjust("15 seconds")
      const error = yield* Effect.flip(limiter.acquire(info))
      expect(error.retryAfterMs).toBe(45_000)
      yield* TestClock.adjust("45 seconds")
      yield* limiter.acquire(info)
    }).pipe(Effect.provide(RateLimiter.layerMemory)))
})

describe("tracing", () => {
  const recording = (spans: Array<{ name: string; attributes: ReadonlyMap<string, unknown> }>) =>
    Effect.map(Effect.tracer, (native) =>
      Tracer.make({
        context: native.context,
        span: (options) => {
          const span = native.span(options)
          spans.push({ name: options.name, attributes: span.attributes })
          return span
        }
      }))

  it.effect("with a tracer, the span names the tool, version and mode", () =>
    Effect.gen(function*() {
      const spans: Array<{ name: string; attributes: ReadonlyMap<string, unknown> }> = []
      const tracer = yield* recording(spans)
      yield* exec("echo", { x: 1 }, { mode: AgentMode.Plan }).pipe(Effect.withTracer(tracer))
      const span = spans.find((s) => s.name === "execute_tool echo")
      expect(span?.attributes.get("gen_ai.operation.name")).toBe("execute_tool")
      expect(span?.attributes.get("gen_ai.tool.name")).toBe("echo")
      expect(span?.attributes.get("effect_tool_system.tool.version")).toBe("2.1.0")
      expect(span?.attributes.get("effect_tool_system.agent.mode")).toBe("plan")
    }).pipe(Effect.provide(system)))

  it.effect("without a tracer, no span work is done: the handler runs under no span", () =>
    Effect.gen(function*() {
      const spanName = Tool.make("span_name", {
        description: "The current span's name, if any",
        parameters: Schema.Struct({}),
        readOnly: true,
        handler: () => Effect.map(Effect.option(Effect.currentSpan), (span) => span._tag === "Some" ? span.value.name : "none")
      })
      const registry = yield* ToolRegistry
      yield* registry.register(spanName)
      expect(yield* exec("span_name", {})).toMatchObject({ output: "none" })
      const tracer = yield* recording([])
      expect(yield* exec("span_name", {}).pipe(Effect.withTracer(tracer))).toMatchObject({ output: "execute_tool span_name" })
    }).pipe(Effect.provide(system)))
})

describe("interruption", () => {
  it.effect("an interrupted caller waits for the handler's asynchronous finalizer", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const events: Array<string> = []
      const slowFinalizer = Tool.make("slow_finalizer", {
        description: "Its finalizer takes 100 ms of the fiber's clock",
        parameters: Schema.Struct({}),
        readOnly: true,
        handler: () =>
          Effect.andThen(Deferred.succeed(started, undefined), Effect.never).pipe(
            Effect.ensuring(Effect.andThen(Effect.sleep("100 millis"), Effect.sync(() => void events.push("finalized"))))
          )
      })
      const layer = ToolSystem.layerNode({ builtins: false, tools: [slowFinalizer], workspace: Workspace.layerFixed(ws) })
      yield* Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(exec("slow_finalizer", {}))
        yield* Deferred.await(started)
        const interrupting = yield* Effect.forkChild(
          Effect.andThen(Fiber.interrupt(fiber), Effect.sync(() => void events.push("caller resumed")))
        )
        // the finalizer's wait: the caller is not back before it ends
        yield* wakeAfter(100)
        yield* joinUnmoved(interrupting)
      }).pipe(Effect.provide(layer))
      expect(events).toEqual(["finalized", "caller resumed"])
    }).pipe(countingSleeps))
})

describe("timeout", () => {
  it.effect("a TIMEOUT result comes back only after the handler's asynchronous finalizer has run", () =>
    Effect.gen(function*() {
      const events: Array<string> = []
      // real instants (durationMs is measured with performance.now, whatever the clock)
      const real = { handlerStarted: 0, finalized: 0 }
      const slowFinalizer = Tool.make("slow_finalizer_timeout", {
        description: "Never ends; its finalizer takes 100 ms of the fiber's clock",
        parameters: Schema.Struct({}),
        readOnly: true,
        timeout: "50 millis",
        handler: () =>
          Effect.andThen(Effect.sync(() => (real.handlerStarted = performance.now())), Effect.never).pipe(
            Effect.ensuring(Effect.andThen(
              Effect.sleep("100 millis"),
              Effect.sync(() => {
                real.finalized = performance.now()
                events.push("finalized")
              })
            ))
          )
      })
      const layer = ToolSystem.layerNode({ builtins: false, tools: [slowFinalizer], workspace: Workspace.layerFixed(ws) })
      const r = yield* Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(exec("slow_finalizer_timeout", {}))
        // the deadline, at 50 ms
        yield* wakeAfter(50)
        // the handler's finalizer then waits until 150 ms: no result before
        yield* sleepersUntil(150)
        yield* TestClock.adjust("99 millis")
        expect(fiber.pollUnsafe()).toBeUndefined()
        yield* TestClock.adjust("1 millis")
        return yield* joinUnmoved(fiber)
      }).pipe(Effect.provide(layer))
      events.push("result")
      expect(r.errorCode).toBe("TIMEOUT")
      expect(events).toEqual(["finalized", "result"])
      // the duration it reports covers the finalizer too (3 decimals: rounded by at most 0.0005 ms)
      expect(r.durationMs).toBeGreaterThanOrEqual(real.finalized - real.handlerStarted - 0.001)
    }).pipe(countingSleeps))
})

describe("registry", () => {
  it.effect("a version registered after a lookup becomes the latest", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry
      expect((yield* exec("echo", { x: 1 })).version).toBe("2.1.0")
      yield* registry.register(Tool.make("echo", {
        description: "Echoes twice",
        parameters: Schema.Struct({ x: Schema.Number }),
        readOnly: true,
        version: "2.2.0",
        handler: ({ x }) => Effect.succeed(x * 2)
      }))
      expect(yield* exec("echo", { x: 2 })).toMatchObject({ version: "2.2.0", output: 4 })
    }).pipe(Effect.provide(system)))

  it.effect("openAITools applies its tag and mode filters", () =>
    Effect.gen(function*() {
      const tools = yield* ToolSystem
      const names = (list: ReadonlyArray<{ readonly function: { readonly name: string } }>) => list.map((t) => t.function.name)
      expect(names(yield* tools.openAITools({ tags: ["math"] }))).toEqual(["echo"])
      expect(names(yield* tools.openAITools({ mode: AgentMode.Explore }))).not.toContain("writer")
      expect(names(yield* tools.openAITools())).toContain("writer")
    }).pipe(Effect.provide(system)))

  it.effect("a service captured when a tool is registered reaches its handler", () =>
    Effect.gen(function*() {
      class Prefix extends Context.Service<Prefix, string>()("test/Prefix") {}
      const greet = Tool.make("greet_prefix", {
        description: "Uses a captured service",
        parameters: Schema.Struct({ name: Schema.String }),
        readOnly: true,
        handler: ({ name }) => Effect.map(Prefix, (p) => `${p} ${name}`)
      })
      const registry = yield* ToolRegistry
      yield* registry.register(greet).pipe(Effect.provideService(Prefix, "Hi"))
      // the call is made without Prefix in the caller's context
      expect(yield* exec("greet_prefix", { name: "Ada" })).toMatchObject({ success: true, output: "Hi Ada" })
    }).pipe(Effect.provide(system)))

  it.effect("a tool's success schema encodes its output", () =>
    Effect.gen(function*() {
      expect(yield* exec("dated", {})).toMatchObject({ success: true, output: "2026-01-02T00:00:00.000Z" })
    }).pipe(Effect.provide(system)))
})

describe("workspace root", () => {
  it.effect("a root that does not exist yet works once it is created, also through a symlinked parent", () =>
    Effect.gen(function*() {
      const base = makeTempDirSync("core-root-")
      const real = path.join(base, "real")
      fs.mkdirSync(real)
      fs.symlinkSync(real, path.join(base, "link"))
      for (const root of [path.join(base, "later"), path.join(base, "link", "later")]) {
        yield* Effect.gen(function*() {
          const workspace = yield* Workspace
          // asked before the root exists: not an error, and nothing is remembered
          yield* workspace.root
          fs.mkdirSync(root)
          fs.writeFileSync(path.join(root, "f.txt"), "x")
          expect(yield* workspace.root).toBe(fs.realpathSync(root))
          expect(yield* workspace.resolve("f.txt")).toBe(path.join(fs.realpathSync(root), "f.txt"))
        }).pipe(Effect.provide(Workspace.layerFixed(root).pipe(Layer.provide(NodeServices.layer))))
      }
      fs.rmSync(base, { recursive: true, force: true })
    }))
})
