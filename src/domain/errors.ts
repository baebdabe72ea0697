/**
 * The tagged errors of the tool system. Every expected failure of a call is one of these,
 * and each carries a stable `code` that a `ToolExecutionResult` reports as `errorCode`.
 *
 * `PathTraversalError` is special: the executor never turns it into a result, it re-raises
 * it as a defect so that a workspace escape cannot be swallowed.
 *
 * `ProtectedPath` (`PROTECTED_PATH`) is a path inside the workspace that no tool with side
 * effects may touch (a repository's `.git`): a refusal at the `paths` step, reported as a result
 * like the gates' refusals, since nothing left the workspace.
 *
 * @since 0.1.0
 */
import type * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Option from "effect/Option"
import { showName } from "./shownText.js"

/**
 * The stable error codes a `ToolExecutionResult` can carry.
 *
 * @since 0.1.0
 * @category models
 */
export type ErrorCode =
  | "TOOL_NOT_FOUND"
  | "INVALID_ARGUMENTS"
  | "MODE_BLOCKED"
  | "POLICY_VETO"
  | "CONFIRMATION_REQUIRED"
  | "RATE_LIMITED"
  | "TIMEOUT"
  | "MEMORY_LIMIT"
  | "TOOL_ERROR"
  | "PATH_TRAVERSAL"
  | "PROTECTED_PATH"
  | "MCP_TOOL_CHANGED"

/**
 * No tool (or no version of it in the requested range) is registered under `name`. The
 * message shows the name and the range as `showName` does (cut, saying so and how long they
 * were; hiding characters escaped): they are the caller's, of any length, and the message
 * goes to the model and the log.
 *
 * @since 0.1.0
 * @category errors
 */
export class ToolNotFound extends Data.TaggedError("ToolNotFound")<{
  readonly name: string
  readonly versionRange?: string | undefined
  /** Registered names close to `name`, best first. */
  readonly suggestions: ReadonlyArray<string>
}> {
  readonly code = "TOOL_NOT_FOUND" as const
  override get message(): string {
    const range = this.versionRange === undefined ? "" : ` in range "${showName(this.versionRange)}"`
    const hint = this.suggestions.length > 0 ? ` (did you mean: ${this.suggestions.join(", ")}?)` : ""
    return `Tool "${showName(this.name)}"${range} not found${hint}`
  }
}

/**
 * One problem with a call's arguments: where (`path`, e.g. `["max_lines"]`) and what.
 *
 * @since 0.1.0
 * @category models
 */
export interface ArgumentIssue {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

/**
 * The arguments do not match the tool's parameter schema. Lists every issue.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidArguments extends Data.TaggedError("InvalidArguments")<{
  readonly tool: string
  readonly issues: ReadonlyArray<ArgumentIssue>
}> {
  readonly code = "INVALID_ARGUMENTS" as const
  override get message(): string {
    const list = this.issues
      .map((i) => (i.path.length > 0 ? `${i.path.map(String).join(".")}: ${i.message}` : i.message))
      .join("; ")
    return `Invalid arguments for "${this.tool}": ${list}`
  }
}

/**
 * The agent mode does not allow this tool (a read-only mode and a tool with side effects).
 *
 * @since 0.1.0
 * @category errors
 */
export class ModeBlocked extends Data.TaggedError("ModeBlocked")<{
  readonly tool: string
  readonly mode: string
  readonly reason: string
}> {
  readonly code = "MODE_BLOCKED" as const
  override get message(): string {
    return `Tool "${this.tool}" is not allowed in mode "${this.mode}": ${this.reason}`
  }
}

/**
 * The application's policy hook vetoed the call.
 *
 * @since 0.1.0
 * @category errors
 */
export class PolicyVeto extends Data.TaggedError("PolicyVeto")<{
  readonly tool: string
  readonly reason: string
}> {
  readonly code = "POLICY_VETO" as const
  override get message(): string {
    return `Policy vetoed "${this.tool}": ${this.reason}`
  }
}

/**
 * The tool requires confirmation and the call was not made with `confirm: true`; `reason` says
 * what the call would have done when the tool found that out as it was about to act (e.g.
 * "would create notes.txt", see `CallConfirmation`).
 *
 * @since 0.1.0
 * @category errors
 */
export class ConfirmationRequired extends Data.TaggedError("ConfirmationRequired")<{
  readonly tool: string
  readonly reason?: string | undefined
}> {
  readonly code = "CONFIRMATION_REQUIRED" as const
  override get message(): string {
    return this.reason === undefined ? "Confirmation required" : `Confirmation required: ${this.reason}`
  }
}

/**
 * The tool's rate limit is used up (or, with `reason`, could not be checked); a call may
 * succeed again after `retryAfterMs`.
 *
 * @since 0.1.0
 * @category errors
 */
export class RateLimited extends Data.TaggedError("RateLimited")<{
  readonly tool: string
  readonly limitRpm: number
  readonly retryAfterMs: number
  /** Set when the limiter refused without counting, e.g. "Redis unavailable: ..." (fail closed). */
  readonly reason?: string | undefined
}> {
  readonly code = "RATE_LIMITED" as const
  override get message(): string {
    const why = this.reason === undefined ? "reached" : `not checked (${this.reason})`
    return `Rate limit of ${this.limitRpm}/min for "${this.tool}" ${why}; retry after ${this.retryAfterMs} ms`
  }
}

/**
 * The handler ran past the tool's timeout; it was interrupted and its finalizers ran.
 *
 * @since 0.1.0
 * @category errors
 */
export class ToolTimeout extends Data.TaggedError("ToolTimeout")<{
  readonly tool: string
  readonly timeoutMs: number
}> {
  readonly code = "TIMEOUT" as const
  override get message(): string {
    return `Tool "${this.tool}" timed out after ${this.timeoutMs} ms`
  }
}

/**
 * The handler grew memory past the tool's `memoryLimitMb`.
 *
 * @since 0.1.0
 * @category errors
 */
export class MemoryLimitExceeded extends Data.TaggedError("MemoryLimitExceeded")<{
  readonly tool: string
  readonly limitMb: number
  /** What the tool has to add, such as the output a guest printed before it ran out. */
  readonly detail?: string | undefined
}> {
  readonly code = "MEMORY_LIMIT" as const
  override get message(): string {
    return `Tool "${this.tool}" exceeded its memory limit of ${this.limitMb} MB${this.detail ?? ""}`
  }
}

/**
 * The tool ran and failed in an expected way: a missing file, a bad regex, a 500 answer.
 *
 * @since 0.1.0
 * @category errors
 */
export class ToolError extends Data.TaggedError("ToolError")<{
  readonly tool: string
  readonly message: string
  readonly cause?: unknown
  /** The fields of the handler's own error, as JSON data (a result carries them as `details`). */
  readonly details?: Readonly<Record<string, unknown>> | undefined
}> {
  readonly code = "TOOL_ERROR" as const
}

/**
 * A path argument leads out of the workspace (or is not a path at all: a NUL byte, a URL).
 * The executor re-raises it as a defect; it never becomes a result.
 *
 * @since 0.1.0
 * @category errors
 */
export class PathTraversalError extends Data.TaggedError("PathTraversalError")<{
  readonly path: string
  readonly workspace: string
  readonly reason: string
}> {
  readonly code = "PATH_TRAVERSAL" as const
  override get message(): string {
    return `PATH_TRAVERSAL: "${this.path}" is outside the workspace ${this.workspace} (${this.reason})`
  }
}

/**
 * A tool with side effects was given a path under a repository's `.git` (its hooks, config,
 * objects): file tools never write there, as git would run or trust what they wrote. Nothing
 * was done.
 *
 * @since 0.1.0
 * @category errors
 */
export class ProtectedPath extends Data.TaggedError("ProtectedPath")<{
  readonly tool: string
  /** The path, relative to the workspace root, after resolution (symbolic links followed). */
  readonly path: string
  /** The protected component of `path` as it is spelled there (`.git`, `.GIT`). */
  readonly component: string
}> {
  readonly code = "PROTECTED_PATH" as const
  override get message(): string {
    return `Tool "${this.tool}" may not change "${this.path}": it is under ${this.component}, a repository's ` +
      "metadata, which tools only read"
  }
}

/**
 * A bridged MCP tool is held: its server changed it (its description, its input schema or its
 * `readOnlyHint`) after it was first seen, and the application has not approved the new
 * version (see `McpBridge.approve`). Nothing was sent to the server.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpToolChanged extends Data.TaggedError("McpToolChanged")<{
  /** The server's name in the configuration. */
  readonly server: string
  /** The tool's name on that server. */
  readonly tool: string
  /** What changed and what waits, in a few words (e.g. `description changed; version 2.0.0 waits for approval`). */
  readonly changed: string
}> {
  readonly code = "MCP_TOOL_CHANGED" as const
  override get message(): string {
    return `The MCP server "${this.server}" changed its tool "${this.tool}" after it was first seen: ${this.changed}`
  }
}

/**
 * A tool definition was refused at `Tool.make` or registration (bad name, bad version, duplicate).
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidToolDefinition extends Data.TaggedError("InvalidToolDefinition")<{
  readonly name: string
  readonly reason: string
}> {
  override get message(): string {
    return `Invalid tool definition "${this.name}": ${this.reason}`
  }
}

/**
 * Every error that the pipeline turns into a `ToolExecutionResult`.
 *
 * @since 0.1.0
 * @category errors
 */
export type ToolCallError =
  | ToolNotFound
  | InvalidArguments
  | ModeBlocked
  | PolicyVeto
  | ConfirmationRequired
  | RateLimited
  | ToolTimeout
  | MemoryLimitExceeded
  | ToolError
  | ProtectedPath
  | McpToolChanged

/**
 * The `PathTraversalError` in a cause, as a failure or (as the executor raises it) a defect.
 *
 * @since 0.1.0
 * @category utils
 *
 * @example
 * ```ts
 * import { Effect, Exit, Option } from "effect"
 * import { pathTraversalOf, ToolSystem } from "effect-tool-system"
 *
 * const escaped = Effect.gen(function*() {
 *   const tools = yield* ToolSystem
 *   const exit = yield* Effect.exit(tools.execute("read_file", { filepath: "../secret" }))
 *   return Exit.isFailure(exit) && Option.isSome(pathTraversalOf(exit.cause)) // true: the call died
 * })
 * ```
 */
export const pathTraversalOf = (cause: Cause.Cause<unknown>): Option.Option<PathTraversalError> => {
  for (const reason of cause.reasons) {
    const value = reason._tag === "Fail" ? reason.error : reason._tag === "Die" ? reason.defect : undefined
    if (value instanceof PathTraversalError) return Option.some(value)
  }
  return Option.none()
}

/**
 * Whether a cause holds a workspace escape (`PathTraversalError`, failure or defect).
 *
 * @since 0.1.0
 * @category guards
 */
export const isPathTraversal = (cause: Cause.Cause<unknown>): boolean => Option.isSome(pathTraversalOf(cause))
