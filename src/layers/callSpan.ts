/**
 * The span of one tool call, following OpenTelemetry's semantic conventions for GenAI tool
 * execution: named `execute_tool {tool}`, with `gen_ai.operation.name = "execute_tool"`,
 * `gen_ai.tool.name`, `gen_ai.tool.type`, `gen_ai.tool.call.id` and, on a failed call,
 * `error.type` (the error code). The tool's version and the agent mode are recorded under
 * `effect_tool_system.*`.
 *
 * The span is started and ended synchronously on the calling fiber, as `Effect.makeSpan`
 * does it but without its effect steps: on the hot path the difference is most of the cost
 * of tracing a call.
 *
 * @since 0.2.0
 */
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"
import type { ToolInfo } from "../domain/Tool.js"
import type { ToolExecutionResult } from "../domain/ToolExecutionResult.js"

/**
 * The attribute names the call span carries.
 *
 * @since 0.2.0
 * @category constants
 */
export const CallSpanAttributes = {
  operation: "gen_ai.operation.name",
  toolName: "gen_ai.tool.name",
  toolType: "gen_ai.tool.type",
  callId: "gen_ai.tool.call.id",
  errorType: "error.type",
  version: "effect_tool_system.tool.version",
  mode: "effect_tool_system.agent.mode"
} as const

/**
 * A started call span and how to end it.
 *
 * @internal
 */
export interface CallSpan {
  readonly span: Tracer.Span
  /** Ends the span at the fiber clock's time (0 when tracer timing is disabled). */
  readonly end: (exit: Exit.Exit<unknown, unknown>) => void
}

const noLinks: ReadonlyArray<Tracer.SpanLink> = []

/**
 * The parent span in the fiber's context, as `Effect.withSpan` picks it: a span with
 * propagation disabled is passed over for its own parent (an external one ends the search).
 */
const parentOf = (fiber: Fiber.RuntimeFiber<unknown, unknown>): Option.Option<Tracer.AnySpan> => {
  const current = fiber.currentSpan
  if (current === undefined) return Option.none()
  let parent = Option.some(current)
  while (Option.isSome(parent) && Context.get(parent.value.context, Tracer.DisablePropagation)) {
    const value = parent.value
    parent = value._tag === "Span" ? value.parent : Option.none()
  }
  return parent
}

/**
 * Starts the span of a call of `tool` on `fiber`'s tracer, or returns `undefined` when
 * tracing is disabled on the fiber.
 *
 * @internal
 */
export const startCallSpan = (
  fiber: Fiber.RuntimeFiber<unknown, unknown>,
  tool: ToolInfo,
  mode: string,
  callId: string | undefined
): CallSpan | undefined => {
  if (!fiber.getFiberRef(FiberRef.currentTracerEnabled)) return undefined
  // the fiber keeps its tracer and default services at hand (no fiber-ref lookups)
  const clock = Context.get(fiber.currentDefaultServices, Clock.Clock)
  const timing = fiber.getFiberRef(FiberRef.currentTracerTimingEnabled)
  const links = fiber.getFiberRef(FiberRef.currentTracerSpanLinks)
  const span = fiber.currentTracer.span(
    `execute_tool ${tool.name}`,
    parentOf(fiber),
    Context.empty(),
    Chunk.isEmpty(links) ? noLinks : Chunk.toReadonlyArray(links),
    timing ? clock.unsafeCurrentTimeNanos() : BigInt(0),
    "internal"
  )
  const annotations = fiber.getFiberRef(FiberRef.currentTracerSpanAnnotations)
  if (HashMap.size(annotations) > 0) HashMap.forEach(annotations, (value, key) => span.attribute(key, value))
  span.attribute(CallSpanAttributes.operation, "execute_tool")
  span.attribute(CallSpanAttributes.toolName, tool.name)
  span.attribute(CallSpanAttributes.toolType, "function")
  if (callId !== undefined) span.attribute(CallSpanAttributes.callId, callId)
  span.attribute(CallSpanAttributes.version, tool.version)
  span.attribute(CallSpanAttributes.mode, mode)
  return {
    span,
    end: (exit) => {
      if (span.status._tag === "Ended") return
      span.end(timing ? clock.unsafeCurrentTimeNanos() : BigInt(0), exit)
    }
  }
}

/**
 * Ends a call's span: a refused or failed call as an error, with its code as `error.type`.
 *
 * @internal
 */
export const endCallSpan = (callSpan: CallSpan, exit: Exit.Exit<ToolExecutionResult>): void => {
  if (Exit.isSuccess(exit) && !exit.value.success) {
    callSpan.span.attribute(CallSpanAttributes.errorType, exit.value.errorCode)
    callSpan.end(Exit.fail(exit.value.errorCode))
  } else {
    callSpan.end(exit)
  }
}
