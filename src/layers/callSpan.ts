/**
 * The span of one tool call, following OpenTelemetry's semantic conventions for GenAI tool
 * execution: named `execute_tool {tool}`, with `gen_ai.operation.name = "execute_tool"`,
 * `gen_ai.tool.name`, `gen_ai.tool.type`, `gen_ai.tool.call.id` and, on a failed call,
 * `error.type` (the error code). The tool's version and the agent mode are recorded under
 * `effect_tool_system.*`.
 *
 * @since 0.2.0
 */
import type * as Tracer from "effect/Tracer"
import type { ToolInfo } from "../domain/Tool.js"

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
 * The options of the span of a call of `tool` in `mode`.
 *
 * @internal
 */
export const spanOptionsOf = (tool: ToolInfo, mode: string, callId: string | undefined): Tracer.SpanOptionsNoTrace => ({
  kind: "internal",
  attributes: {
    [CallSpanAttributes.operation]: "execute_tool",
    [CallSpanAttributes.toolName]: tool.name,
    [CallSpanAttributes.toolType]: "function",
    ...(callId === undefined ? {} : { [CallSpanAttributes.callId]: callId }),
    [CallSpanAttributes.version]: tool.version,
    [CallSpanAttributes.mode]: mode
  }
})
