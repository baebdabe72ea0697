/**
 * The `ToolCallHandler` service: its interface, its tag and its layers.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { AgentMode } from "../domain/AgentMode.js"
import type {
  AnthropicContentBlock,
  AnthropicTool,
  AnthropicToolResult,
  OpenAIToolCall,
  OpenAIToolMessage,
  ToolCall,
  ToolCallOutcome
} from "../domain/toolCalls.js"
import type { OpenAITool, ToolSpec } from "../domain/ToolSpec.js"
import { makeToolCallHandler } from "../layers/ToolCallHandler.js"
import type { ToolExecutor } from "./ToolExecutor.js"
import type { ToolRegistry } from "./ToolRegistry.js"

/**
 * How a session runs its calls.
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionOptions {
  /** The agent mode (default `AgentMode.Default`): its gate, its tool list, its prompt addendum. */
  readonly mode?: AgentMode | undefined
  /**
   * The model is given the OpenAI strict export (`openAITools` returns it), so the nulls it
   * sends for omitted fields are dropped before validation. Default `false`.
   */
  readonly strict?: boolean | undefined
  /** Offer only tools with one of these tags (`ask_user` aside). */
  readonly tags?: ReadonlyArray<string> | undefined
  /** How many calls of one turn may run at once (default 32). */
  readonly concurrency?: number | undefined
  /**
   * A call whose path leads out of the workspace (`PathTraversalError`):
   * - `"defect"` (default): the turn fails with the defect (a `CallPathTraversal`, naming the
   *   call's tool and id), so that an escape cannot be swallowed;
   * - `"answer"`: that call is answered `Error [PATH_TRAVERSAL]: ...` and the turn's other
   *   calls keep their results; a warning is logged, and the executor's audit record of the
   *   call (with its id) records the escape.
   */
  readonly pathTraversal?: "defect" | "answer" | undefined
}

/**
 * One conversation's worth of tool calls.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolCallSession {
  readonly mode: AgentMode
  /** The model is given the strict export; its calls' nulls for omitted fields are dropped. */
  readonly strict: boolean
  /** The mode's text for the system prompt (`""` in the default mode). */
  readonly systemPromptAddendum: string
  /** `system` with the mode's addendum appended. */
  readonly systemPrompt: (system: string) => string
  /** The specs the mode allows, plus `ask_user` when a `QuestionHandler` is installed. */
  readonly specs: Effect.Effect<ReadonlyArray<ToolSpec>>
  /** `specs` in OpenAI's shape (the strict export when the session is strict). */
  readonly openAITools: Effect.Effect<ReadonlyArray<OpenAITool>>
  /** `specs` in Anthropic's shape. */
  readonly anthropicTools: Effect.Effect<ReadonlyArray<AnthropicTool>>
  /**
   * Runs one turn's calls and returns the outcomes in the order of the calls. Bad JSON,
   * malformed calls, unknown tools and refusals are outcomes with `isError`; a workspace
   * escape (`PathTraversalError`) is not, unless the session answers escapes
   * (`pathTraversal: "answer"`): it is a defect naming the call, and fails the whole turn.
   *
   * Calls of read-only tools run concurrently (up to `concurrency`). A call that is not
   * read-only, needs confirmation or asks the user runs alone: after every call before it,
   * before every call after it, so two edits of one file apply in their given order.
   */
  readonly handle: (calls: ReadonlyArray<ToolCall>) => Effect.Effect<ReadonlyArray<ToolCallOutcome>>
  /**
   * `handle` for OpenAI's `message.tool_calls` (`ReadonlyArray<OpenAIToolCall>`, read as the
   * model sent it, so any value is taken): the `tool` messages to append, one for each call.
   * A malformed call (a field missing or of the wrong type, arguments that are not JSON text,
   * an id used twice) is answered with what is wrong, under its id, or under a stable id
   * derived from its position (`malformed_call_<index>`) when its id is not a string.
   */
  readonly handleOpenAI: (calls: ReadonlyArray<OpenAIToolCall> | unknown) => Effect.Effect<ReadonlyArray<OpenAIToolMessage>>
  /**
   * `handle` for an Anthropic assistant message's content (`ReadonlyArray<AnthropicContentBlock>`,
   * read as the model sent it; other blocks are skipped): the `tool_result` blocks to send back
   * in one user message, one for each `tool_use` block, malformed ones (an id or name that is
   * not a string, no input) answered with what is wrong.
   */
  readonly handleAnthropic: (
    content: ReadonlyArray<AnthropicContentBlock> | unknown
  ) => Effect.Effect<ReadonlyArray<AnthropicToolResult>>
  /** The tools a person approved for the rest of the session. */
  readonly approvedTools: Effect.Effect<ReadonlyArray<string>>
}

/**
 * The `ToolCallHandler` service interface.
 *
 * @since 0.1.0
 * @category services
 */
export interface ToolCallHandlerService {
  /**
   * A new session. The optional `ConfirmationHandler` and `QuestionHandler` are looked up
   * at each call (the caller's context first, then the one the layer was built in).
   */
  readonly session: (options?: SessionOptions) => Effect.Effect<ToolCallSession>
}

/**
 * From a model's tool calls to the messages that go back into the
 * conversation. A session holds what lasts across turns (the agent mode, whether the model
 * saw the strict export, the approvals a person asked to remember); each turn's calls run
 * through the executor's gates and come back as tool messages in the order of the calls.
 *
 * @since 0.1.0
 * @category services
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { AgentMode, type OpenAITool, type OpenAIToolCall, ToolCallHandler } from "effect-tool-system"
 *
 * // one turn: `ask` gives the model the tools and returns the calls in its reply
 * const turn = (ask: (tools: ReadonlyArray<OpenAITool>) => Effect.Effect<ReadonlyArray<OpenAIToolCall>>) =>
 *   Effect.gen(function*() {
 *     const handler = yield* ToolCallHandler
 *     const session = yield* handler.session({ mode: AgentMode.Explore })
 *     const calls = yield* ask(yield* session.openAITools)
 *     return yield* session.handleOpenAI(calls) // the tool messages to append to the conversation
 *   })
 * ```
 */
export class ToolCallHandler extends Context.Service<ToolCallHandler, ToolCallHandlerService>()(
  "effect-tool-system/ToolCallHandler"
) {
  /** Over the registry and executor of a `ToolSystem` layer. */
  static readonly layer: Layer.Layer<ToolCallHandler, never, ToolRegistry | ToolExecutor> = Layer.effect(
    ToolCallHandler,
    makeToolCallHandler
  )
}
