/**
 * The tool calls a model returns and the messages that answer them, in OpenAI's chat shape
 * and in Anthropic's `tool_use` / `tool_result` blocks, plus the shape-neutral `ToolCall` and
 * `ToolCallOutcome` that `ToolCallHandler` works with in between.
 *
 * @since 0.1.0
 */
import * as Result from "effect/Result"
import type { ToolExecutionResult } from "./ToolExecutionResult.js"

/**
 * A tool call in an OpenAI chat completion (`message.tool_calls[i]`); `arguments` is a JSON string.
 *
 * @since 0.1.0
 * @category models
 */
export interface OpenAIToolCall {
  readonly id: string
  readonly type: "function"
  readonly function: {
    readonly name: string
    /** JSON text, as the model wrote it: it may be malformed. */
    readonly arguments: string
  }
}

/**
 * The message that answers one OpenAI tool call: append it to the conversation.
 *
 * @since 0.1.0
 * @category models
 */
export interface OpenAIToolMessage {
  readonly role: "tool"
  readonly tool_call_id: string
  readonly content: string
}

/**
 * A `tool_use` block of an Anthropic assistant message.
 *
 * @since 0.1.0
 * @category models
 */
export interface AnthropicToolUse {
  readonly type: "tool_use"
  readonly id: string
  readonly name: string
  readonly input: unknown
}

/**
 * A block of an Anthropic assistant message other than `tool_use` (text, thinking, ...).
 *
 * @since 0.1.0
 * @category models
 */
export interface AnthropicOtherBlock {
  readonly type: string
}

/**
 * Any block of an Anthropic assistant message; only `tool_use` ones are run.
 *
 * @since 0.1.0
 * @category models
 */
export type AnthropicContentBlock = AnthropicToolUse | AnthropicOtherBlock

/**
 * The block that answers one `tool_use`: send all of a turn's in one user message.
 *
 * @since 0.1.0
 * @category models
 */
export interface AnthropicToolResult {
  readonly type: "tool_result"
  readonly tool_use_id: string
  readonly content: string
  readonly is_error: boolean
}

/**
 * Anthropic's tool shape, as the model is given it.
 *
 * @since 0.1.0
 * @category models
 */
export interface AnthropicTool {
  readonly name: string
  readonly description: string
  readonly input_schema: Readonly<Record<string, unknown>>
}

/**
 * Arguments that could not be read: the JSON text and what is wrong with it.
 *
 * @since 0.1.0
 * @category models
 */
export interface MalformedArguments {
  readonly text: string
  readonly problem: string
}

/**
 * One tool call, whatever the provider's shape.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolCall {
  /** The provider's call id, echoed in the answer. */
  readonly id: string
  readonly name: string
  /** The parsed arguments, or why they could not be parsed. */
  readonly input: Result.Result<unknown, MalformedArguments>
  /**
   * The model saw the OpenAI strict export, so it sends `null` for every optional field it
   * leaves out: those nulls are dropped before validation.
   */
  readonly strictArguments: boolean
  /**
   * What is wrong with the call itself, when the model sent it malformed (no name, arguments
   * that are not JSON text, an id that is not a string, an id used twice): such a call is not
   * run; it is answered with this.
   */
  readonly malformed?: string | undefined
}

/**
 * What one call produced, ready to become a message.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolCallOutcome {
  readonly id: string
  readonly name: string
  /** What the model reads: the output, or what went wrong and what to do about it. */
  readonly content: string
  /** The call did not succeed (a refusal, a failure, bad arguments, a declined confirmation). */
  readonly isError: boolean
  /** The executor's result, when the call reached the executor (`null` for bad JSON and `ask_user`). */
  readonly result: ToolExecutionResult | null
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null

/**
 * Parses OpenAI's JSON argument text; an empty text is `{}` (a call without arguments).
 *
 * @since 0.1.0
 * @category decoding
 */
export const parseArguments = (text: string): Result.Result<unknown, MalformedArguments> => {
  if (text.trim() === "") return Result.succeed({})
  try {
    return Result.succeed(JSON.parse(text))
  } catch (error) {
    const problem = error instanceof Error ? error.message : String(error)
    return Result.fail({ text, problem })
  }
}

/**
 * An OpenAI tool call as a `ToolCall`.
 *
 * @since 0.1.0
 * @category decoding
 */
export const fromOpenAI = (call: OpenAIToolCall, strictArguments = false): ToolCall => ({
  id: call.id,
  name: call.function.name,
  input: parseArguments(call.function.arguments),
  strictArguments
})

/**
 * Whether an Anthropic content block is a `tool_use`.
 *
 * @since 0.1.0
 * @category guards
 */
export const isAnthropicToolUse = (block: AnthropicContentBlock): block is AnthropicToolUse =>
  block.type === "tool_use" && isRecord(block) && typeof block.id === "string" && typeof block.name === "string"

/**
 * An Anthropic `tool_use` block as a `ToolCall` (its `input` is already parsed).
 *
 * @since 0.1.0
 * @category decoding
 */
export const fromAnthropic = (block: AnthropicToolUse): ToolCall => ({
  id: block.id,
  name: block.name,
  input: Result.succeed(block.input ?? {}),
  strictArguments: false
})

/**
 * The OpenAI `tool` message for an outcome.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toOpenAIMessage = (outcome: ToolCallOutcome): OpenAIToolMessage => ({
  role: "tool",
  tool_call_id: outcome.id,
  content: outcome.content
})

/**
 * The Anthropic `tool_result` block for an outcome.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toAnthropicResult = (outcome: ToolCallOutcome): AnthropicToolResult => ({
  type: "tool_result",
  tool_use_id: outcome.id,
  content: outcome.content,
  is_error: outcome.isError
})
