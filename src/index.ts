/**
 * effect-tool-system: one safe, fast door to everything an agent can do. The main entry holds
 * what an application runs: the services and their layers, the domain's data and errors, the
 * builtin tools and `Tool.make`. MCP is in `effect-tool-system/mcp`, the `effect/ai` interop
 * in `effect-tool-system/effect-ai`, the fakes and the attack catalogs in
 * `effect-tool-system/testing`.
 *
 * @module effect-tool-system
 * @since 0.1.0
 */

/**
 * `AgentMode`: what an agent may do (`Default`, `Explore`, `Plan`, or a mode of the
 * application's own), and the system prompt addendum that tells the model.
 *
 * @since 0.1.0
 * @category exports
 */
export * as AgentMode from "./domain/AgentMode.js"
export * from "./domain/errors.js"
/**
 * `Exports`: tool specs in the shapes model APIs take (OpenAI plain and strict, Anthropic,
 * MCP, Gemini).
 *
 * @since 0.1.0
 * @category exports
 */
export * as Exports from "./domain/exports.js"
export { MAX_ARGUMENT_CHARS, MAX_ARGUMENT_DEPTH, MAX_ARGUMENT_NODES } from "./domain/argumentLimits.js"
export type { BoundCall, PreparedCall, RegisteredTool, ToolInfo } from "./domain/Tool.js"
export type { ToolExecutionFailure, ToolExecutionResult, ToolExecutionSuccess } from "./domain/ToolExecutionResult.js"
export { type JsonSchema, type OpenAITool, ToolSpec } from "./domain/ToolSpec.js"
export { defaultPath, type PathSlot, type ResolvedPath, WorkspacePath } from "./domain/WorkspacePath.js"
export {
  type AnthropicContentBlock,
  type AnthropicOtherBlock,
  type AnthropicTool,
  type AnthropicToolResult,
  type AnthropicToolUse,
  type MalformedArguments,
  type OpenAIToolCall,
  type OpenAIToolMessage,
  type ToolCall,
  type ToolCallOutcome
} from "./domain/toolCalls.js"
/**
 * `ToolCalls`: a model's tool calls (OpenAI's and Anthropic's shapes) read into `ToolCall`s,
 * and the messages that answer them.
 *
 * @since 0.1.0
 * @category exports
 */
export * as ToolCalls from "./domain/toolCalls.js"
export { type CallExplanation, type GateDecision, type GateName, gateOrder } from "./domain/GateDecision.js"
/**
 * `Gate`: one named decision about a call before its handler runs; an application adds its own
 * after the built-in ones with `ToolGates.layerWith`.
 *
 * @since 0.6.0
 * @category exports
 */
export * as Gate from "./domain/Gate.js"
export { CallSpanAttributes } from "./layers/callSpan.js"
export {
  AuditLog,
  type AuditLogJsonlOptions,
  type AuditLogLoggerOptions,
  type AuditLogService,
  type AuditRecord
} from "./services/AuditLog.js"
export {
  MAX_PROGRESS_MESSAGE_CHARS,
  PROGRESS_INTERVAL_MS,
  type ProgressListener,
  progressReporter,
  type ProgressUpdate,
  reportProgress
} from "./services/CallProgress.js"
export { ConfirmationGate, type ConfirmationGateService } from "./services/ConfirmationGate.js"
export {
  type ConfirmationDecision,
  ConfirmationHandler,
  type ConfirmationHandlerService,
  type ConfirmationRequest
} from "./services/ConfirmationHandler.js"
export { type Answer, type Question, QuestionHandler, type QuestionHandlerService } from "./services/QuestionHandler.js"
export { ModeGate, type ModeGateService } from "./services/ModeGate.js"
export { type PdfPoolOptions, type PdfWorkerStats, PdfWorkers, type PdfWorkersService } from "./services/PdfWorkers.js"
export {
  type SandboxOutcome,
  SandboxPool,
  type SandboxPoolOptions,
  type SandboxPoolService,
  type SandboxPoolStats
} from "./services/SandboxPool.js"
export {
  type SessionOptions,
  ToolCallHandler,
  type ToolCallHandlerService,
  type ToolCallSession
} from "./services/ToolCallHandler.js"
export {
  RateLimiter,
  type RateLimiterService,
  type RedisConnection,
  type RedisRateLimiterOptions,
  type RedisUnavailablePolicy
} from "./services/RateLimiter.js"
export { type ExecuteOptions, ToolExecutor, type ToolExecutorService } from "./services/ToolExecutor.js"
export { type PolicyHook, ToolPolicy, type ToolPolicyService } from "./services/ToolPolicy.js"
export { type BuiltinGateServices, ToolGates, type ToolGatesService } from "./services/ToolGates.js"
export { type ListOptions, ToolRegistry, type ToolRegistryService } from "./services/ToolRegistry.js"
export {
  type CoreOptions,
  type GraphOptions,
  type LibraryServices,
  type PlatformServices,
  type RequirementsOf,
  type SystemServices,
  type ToolServices,
  ToolSystem,
  type ToolSystemService
} from "./services/ToolSystem.js"
export {
  CLOUD_METADATA_ADDRESSES,
  InvalidUrlPolicy,
  MAX_REDIRECTS,
  type RefusedRange,
  TooManyRedirects,
  UrlPolicy,
  type UrlPolicyRules,
  type UrlPolicyService,
  UrlRefused
} from "./services/UrlPolicy.js"
export { Workspace, type WorkspaceService } from "./services/Workspace.js"
/**
 * `Tool`: `Tool.make` defines a tool from a Schema of its parameters and an Effect handler.
 *
 * @since 0.1.0
 * @category exports
 */
export * as Tool from "./tools/define.js"
export {
  ASK_USER_TOOL_SPEC,
  builtinTools,
  executeJavascript,
  listFiles,
  readFile,
  readPdf,
  webSearch,
  writeFile
} from "./tools/builtin/index.js"
