/**
 * The executor's spans follow OpenTelemetry's semantic conventions for tool execution,
 * checked through `@effect/opentelemetry` and an in-memory span exporter (no network).
 *
 * Effect 4: `@effect/opentelemetry/OtelTracer` for `Tracer`; its `layer` takes the provider only
 * (no `Resource`: the tracer is named by the provider's `getTracer`).
 */
import * as OtelTracer from "@effect/opentelemetry/OtelTracer"
import { describe, expect, it } from "@effect/vitest"
import { SpanStatusCode } from "@opentelemetry/api"
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Deferred, Effect, Fiber, Layer, Schema } from "effect"
import { AgentMode, Tool, ToolPolicy, ToolSystem, Workspace, WorkspacePath } from "../../src/index.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const ws = makeTempDirSync("otel-")

const echo = Tool.make("echo", {
  description: "Echoes, inside a span of its own",
  parameters: Schema.Struct({ x: Schema.Number }),
  readOnly: true,
  version: "1.2.3",
  handler: ({ x }) => Effect.withSpan(Effect.succeed(x), "echo.inner")
})
const broken = Tool.make("broken", {
  description: "Always fails",
  parameters: Schema.Struct({}),
  readOnly: true,
  handler: () => Effect.fail("no")
})

const exporter = new InMemorySpanExporter()
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
const otel = OtelTracer.layer.pipe(Layer.provide(Layer.succeed(OtelTracer.OtelTracerProvider, provider)))
const system = ToolSystem.layerNode({ builtins: false, tools: [echo, broken], workspace: Workspace.layerFixed(ws) })

describe("OpenTelemetry spans", () => {
  it.effect("a call is an execute_tool span with the GenAI attributes; the handler's spans nest under it", () =>
    Effect.gen(function*() {
      exporter.reset()
      const tools = yield* ToolSystem
      const result = yield* tools.execute("echo", { x: 4 }, { mode: AgentMode.Plan, callId: "call_42" }).pipe(
        Effect.withSpan("request")
      )
      expect(result.success).toBe(true)
      const spans = exporter.getFinishedSpans()
      const call = spans.find((s) => s.name === "execute_tool echo")
      const request = spans.find((s) => s.name === "request")
      const inner = spans.find((s) => s.name === "echo.inner")
      expect(call?.attributes).toMatchObject({
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "echo",
        "gen_ai.tool.type": "function",
        "gen_ai.tool.call.id": "call_42",
        "effect_tool_system.tool.version": "1.2.3",
        "effect_tool_system.agent.mode": "plan"
      })
      expect(call?.status.code).not.toBe(SpanStatusCode.ERROR)
      expect(call?.parentSpanContext?.spanId).toBe(request?.spanContext().spanId)
      expect(inner?.parentSpanContext?.spanId).toBe(call?.spanContext().spanId)
      expect(call?.spanContext().traceId).toBe(request?.spanContext().traceId)
    }).pipe(Effect.provide(Layer.merge(system, otel))))

  it.effect("a failed call's span is an error with error.type set to the error code", () =>
    Effect.gen(function*() {
      exporter.reset()
      const tools = yield* ToolSystem
      expect((yield* tools.execute("broken", {})).errorCode).toBe("TOOL_ERROR")
      expect((yield* tools.execute("echo", { x: "four" })).errorCode).toBe("INVALID_ARGUMENTS")
      const spans = exporter.getFinishedSpans().filter((s) => s.name.startsWith("execute_tool"))
      expect(spans.map((s) => [s.name, s.attributes["error.type"], s.status.code])).toEqual([
        ["execute_tool broken", "TOOL_ERROR", SpanStatusCode.ERROR],
        ["execute_tool echo", "INVALID_ARGUMENTS", SpanStatusCode.ERROR]
      ])
      expect(spans.every((s) => s.attributes["gen_ai.tool.call.id"] === undefined)).toBe(true)
    }).pipe(Effect.provide(Layer.merge(system, otel))))

  it.effect("a call interrupted by its caller ends its span, while its handler runs and while a gate holds it", () =>
    Effect.gen(function*() {
      exporter.reset()
      const started = yield* Deferred.make<void>()
      const atGate = yield* Deferred.make<void>()
      const hang = Tool.make("hang", {
        description: "Never answers",
        parameters: Schema.Struct({}),
        readOnly: true,
        handler: () => Effect.andThen(Deferred.succeed(started, undefined), Effect.never)
      })
      const held = Tool.make("held", {
        description: "Held by the policy",
        parameters: Schema.Struct({}),
        readOnly: true,
        handler: () => Effect.succeed("ran")
      })
      // the policy hook holds calls of "held" (an asynchronous gate), and lets the others through
      const policy = ToolPolicy.layer(({ tool }) =>
        tool.name === "held" ? Effect.andThen(Deferred.succeed(atGate, undefined), Effect.never) : Effect.succeedNone
      )
      const layer = ToolSystem.layerNode({ builtins: false, tools: [hang, held], policy, workspace: Workspace.layerFixed(ws) })
      yield* Effect.gen(function*() {
        const tools = yield* ToolSystem
        const running = yield* Effect.forkChild(tools.execute("hang", {}))
        yield* Deferred.await(started)
        yield* Fiber.interrupt(running)
        const gated = yield* Effect.forkChild(tools.execute("held", {}))
        yield* Deferred.await(atGate)
        yield* Fiber.interrupt(gated)
      }).pipe(Effect.provide(Layer.merge(layer, otel)))
      const spans = exporter.getFinishedSpans().filter((s) => s.name.startsWith("execute_tool"))
      // ended, and so exported (an interruption is not an error status in @effect/opentelemetry)
      expect(spans.map((s) => s.name)).toEqual(["execute_tool hang", "execute_tool held"])
    }))

  it.effect("a call whose path escapes the workspace ends its span before the escape is raised", () =>
    Effect.gen(function*() {
      exporter.reset()
      const tools = yield* ToolSystem
      const exit = yield* Effect.exit(tools.execute("look", { path: "../../etc/passwd" }))
      expect(exit._tag).toBe("Failure")
      const spans = exporter.getFinishedSpans().filter((s) => s.name.startsWith("execute_tool"))
      expect(spans.map((s) => [s.name, s.status.code])).toEqual([["execute_tool look", SpanStatusCode.ERROR]])
    }).pipe(Effect.provide(Layer.merge(
      ToolSystem.layerNode({
        builtins: false,
        tools: [Tool.make("look", {
          description: "Takes a path",
          parameters: Schema.Struct({ path: WorkspacePath }),
          readOnly: true,
          handler: ({ path }) => Effect.succeed(path)
        })],
        workspace: Workspace.layerFixed(ws)
      }),
      otel
    ))))
})
