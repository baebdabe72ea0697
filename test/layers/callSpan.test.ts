/**
 * The span of a call: its parent is the one `Effect.withSpan` would pick in the same place
 * (a span with propagation disabled is passed over), it is an internal span that carries the
 * caller's span annotations, no span is made when tracing is off on the fiber, and ending it
 * twice keeps the first end.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Option, Schema, Tracer } from "effect"
import { TestClock } from "effect/testing"
import { Tool, ToolSystem, Workspace } from "../../src/index.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const ws = makeTempDirSync("callspan-")

const echo = Tool.make("echo", {
  description: "Echoes",
  parameters: Schema.Struct({ x: Schema.Number }),
  readOnly: true,
  version: "3.0.1",
  handler: ({ x }) => Effect.succeed(x)
})

const system = ToolSystem.layerNode({ builtins: false, tools: [echo], workspace: Workspace.layerFixed(ws) })
const exec = (x: number) => Effect.flatMap(ToolSystem, (t) => t.execute("echo", { x }))

/** A tracer that makes the native spans and keeps each one it made. */
const recording = (spans: Array<Tracer.Span>) =>
  Effect.map(Effect.tracer, (native) =>
    Tracer.make({
      context: native.context,
      span: (options) => {
        const span = native.span(options)
        spans.push(span)
        return span
      }
    }))

const named = (spans: ReadonlyArray<Tracer.Span>, name: string): Tracer.Span => {
  const found = spans.filter((s) => s.name === name)
  expect(found).toHaveLength(1)
  return found[0]!
}

const parentId = (span: Tracer.Span): string | null => Option.getOrNull(Option.map(span.parent, (p) => p.spanId))

const disabled = Context.make(Tracer.DisablePropagation, true)

describe("the call span's parent", () => {
  /** Runs a call and an `Effect.withSpan` probe side by side inside `around`; both spans. */
  const callAndProbe = (around: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>) =>
    Effect.gen(function*() {
      const spans: Array<Tracer.Span> = []
      const tracer = yield* recording(spans)
      const result = yield* around(Effect.tap(exec(1), () => Effect.withSpan(Effect.void, "probe"))).pipe(
        Effect.withTracer(tracer)
      )
      expect(result.success).toBe(true)
      return { call: named(spans, "execute_tool echo"), probe: named(spans, "probe"), spans }
    })

  it.effect("is the enclosing span", () =>
    Effect.gen(function*() {
      const { call, spans } = yield* callAndProbe((e) => Effect.withSpan(e, "request"))
      const request = named(spans, "request")
      expect(parentId(call)).toBe(request.spanId)
      expect(call.traceId).toBe(request.traceId)
    }).pipe(Effect.provide(system)))

  it.effect("passes over a span with propagation disabled, for that span's own parent", () =>
    Effect.gen(function*() {
      const { call, probe, spans } = yield* callAndProbe((e) =>
        e.pipe(Effect.withSpan("hidden", { annotations: disabled }), Effect.withSpan("request"))
      )
      const request = named(spans, "request")
      expect(parentId(probe)).toBe(request.spanId)
      expect(parentId(call)).toBe(request.spanId)
      expect(call.traceId).toBe(request.traceId)
    }).pipe(Effect.provide(system)))

  it.effect("is an external span, unless its propagation is disabled: then there is none", () =>
    Effect.gen(function*() {
      const external = { traceId: "a".repeat(32), spanId: "b".repeat(16) }
      const kept = yield* callAndProbe(Effect.withParentSpan(Tracer.externalSpan(external)))
      expect(parentId(kept.call)).toBe(external.spanId)
      expect(kept.call.traceId).toBe(external.traceId)
      const cut = yield* callAndProbe(Effect.withParentSpan(Tracer.externalSpan({ ...external, annotations: disabled })))
      expect(Option.isNone(cut.probe.parent)).toBe(true)
      expect(Option.isNone(cut.call.parent)).toBe(true)
      expect(cut.call.traceId).not.toBe(external.traceId)
    }).pipe(Effect.provide(system)))

  it.effect("is none outside any span", () =>
    Effect.gen(function*() {
      const { call } = yield* callAndProbe((e) => e)
      expect(Option.isNone(call.parent)).toBe(true)
    }).pipe(Effect.provide(system)))
})

describe("the call span", () => {
  it.effect("is an internal span carrying the caller's span annotations and the call's attributes", () =>
    Effect.gen(function*() {
      const spans: Array<Tracer.Span> = []
      const tracer = yield* recording(spans)
      yield* exec(2).pipe(Effect.annotateSpans({ "request.id": "r-1", tenant: "acme" }), Effect.withTracer(tracer))
      const call = named(spans, "execute_tool echo")
      expect(call.kind).toBe("internal")
      expect(call.attributes.get("request.id")).toBe("r-1")
      expect(call.attributes.get("tenant")).toBe("acme")
      expect(call.attributes.get("gen_ai.tool.name")).toBe("echo")
      expect(call.attributes.get("effect_tool_system.tool.version")).toBe("3.0.1")
    }).pipe(Effect.provide(system)))

  it.effect("is not made when tracing is disabled on the fiber, and the call still runs", () =>
    Effect.gen(function*() {
      const spans: Array<Tracer.Span> = []
      const tracer = yield* recording(spans)
      const result = yield* exec(3).pipe(Effect.withTracerEnabled(false), Effect.withTracer(tracer))
      expect(result).toMatchObject({ success: true, output: 3 })
      expect(spans).toEqual([])
      // the same tracer, enabled: the span is made
      yield* exec(3).pipe(Effect.withTracer(tracer))
      expect(spans.map((s) => s.name)).toEqual(["execute_tool echo"])
    }).pipe(Effect.provide(system)))

  // Effect 4: the engine makes the span with `Effect.withSpan` (there is no `startCallSpan`):
  // the span a call made, ended again later, keeps its first end time and exit
  it.effect("ended twice keeps its first end time and exit", () =>
    Effect.gen(function*() {
      const spans: Array<Tracer.Span> = []
      const tracer = yield* recording(spans)
      yield* TestClock.adjust("1 second")
      const result = yield* exec(4).pipe(Effect.withTracer(tracer))
      const callSpan = named(spans, "execute_tool echo")
      const first = callSpan.status
      expect(first).toMatchObject({ _tag: "Ended", endTime: BigInt(1_000_000_000) })
      yield* TestClock.adjust("1 second")
      callSpan.end(BigInt(2_000_000_000), Exit.fail("second"))
      expect(callSpan.status).toBe(first)
      expect(callSpan.status).toMatchObject({ _tag: "Ended", endTime: BigInt(1_000_000_000), exit: Exit.succeed(result) })
    }).pipe(Effect.provide(system)))
})
