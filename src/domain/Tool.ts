/**
 * A registered tool: its spec plus what the executor needs to run it.
 * Build one with `Tool.make`; the registry stores them as `{ name: { version: Tool } }`.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import type * as Result from "effect/Result"
import type {
  ConfirmationRequired,
  InvalidArguments,
  McpToolChanged,
  MemoryLimitExceeded,
  PathTraversalError,
  ProtectedPath,
  ToolError,
  ToolTimeout
} from "./errors.js"
import type { JsonSchema, ToolSpec } from "./ToolSpec.js"
import type { PathSlot } from "./WorkspacePath.js"

/**
 * How a handler's run can fail, as the executor receives it: a `ToolError`, a workspace escape
 * (a defect once it reaches the executor), a worker-based tool's own memory cap
 * (`MemoryLimitExceeded`), the deadline of a tool that keeps its own (`ToolTimeout`, see
 * `ToolInfo.ownDeadline`), for a held MCP proxy, `McpToolChanged`, for a tool that asks for
 * confirmation as it is about to act (`ToolInfo.asksConfirmation`), `ConfirmationRequired`, or,
 * for a tool that finds a path to change elsewhere than in its arguments (`restore_snapshot`
 * reads it from metadata), `ProtectedPath`, so that it keeps its code.
 *
 * @internal
 */
export type HandlerFailure =
  | ToolError
  | PathTraversalError
  | MemoryLimitExceeded
  | ToolTimeout
  | McpToolChanged
  | ConfirmationRequired
  | ProtectedPath

/**
 * A call whose arguments were validated: its path arguments and the effect that runs it.
 *
 * @since 0.1.0
 * @category models
 */
export interface PreparedCall<R> {
  /** The decoded arguments. */
  readonly args: unknown
  /**
   * Where the `WorkspacePath` values of `args` sit, at any depth. The executor resolves each
   * through `Workspace` and writes the resolved path back before any gate or handler runs.
   */
  readonly paths: ReadonlyArray<PathSlot>
  /**
   * Runs the handler; its failures are already `ToolError` or `PathTraversalError`. It reads
   * `args` when it runs, so it sees the resolved paths the executor wrote back through `paths`.
   */
  readonly run: Effect.Effect<unknown, HandlerFailure, R>
}

/**
 * What the gates and listings read of a tool: everything but how to run it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolInfo {
  readonly spec: ToolSpec
  readonly name: string
  /** A semver version, e.g. `1.0.0`. */
  readonly version: string
  readonly tags: ReadonlyArray<string>
  /** The run timeout in ms (`undefined`: no timeout). */
  readonly timeoutMs: number | undefined
  /**
   * `true` when the handler keeps the deadline itself: it ends with `ToolTimeout` at
   * `timeoutMs`, its request cancelled (an MCP proxy, whose client request carries the
   * deadline). The executor then sets no timer of its own for it.
   */
  readonly ownDeadline?: boolean | undefined
  /** Calls per minute, enforced by the `RateLimiter` (`undefined`: no limit). */
  readonly rateLimitRpm: number | undefined
  readonly requiresConfirmation: boolean
  /**
   * Set on a tool that needs no confirmation up front but asks for it in some calls, at the
   * moment of the effect (see `CallConfirmation`): when, e.g. "when it would create a file".
   * The executor lets its handler ask the `ConfirmationGate`; `explain` says when it asks.
   */
  readonly asksConfirmation?: string | undefined
  /** Memory cap in MB: hard inside worker-based tools, best-effort elsewhere. */
  readonly memoryLimitMb: number | undefined
  /** A vetted scoped-write tool: may run in a read-only mode when its paths lie in a scoped dir. */
  readonly scopedWrite: boolean
  /** The names of the top-level parameters that hold a `WorkspacePath` (at any depth). */
  readonly pathFields: ReadonlyArray<string>
  /** Set when the version is deprecated: the reason or the replacement. */
  readonly deprecated: string | undefined
  /**
   * The JSON Schema of a successful call's output, for a tool whose `success` schema encodes to
   * an object (`Tool.make`): what the MCP server lists as the tool's `outputSchema`, and what
   * its answers' `structuredContent` passes. Made once, when the tool is defined.
   */
  readonly outputSchema?: JsonSchema | undefined
}

/**
 * A tool: spec, version, metadata for the gates, and `prepare`, which validates raw
 * arguments and returns the call to run. `R` is what the handler needs (services).
 *
 * @since 0.1.0
 * @category models
 */
export interface Tool<out R = never> extends ToolInfo {
  readonly prepare: (input: unknown) => Result.Result<PreparedCall<R>, InvalidArguments>
}

/**
 * A validated call of a registered tool, bound to the services captured at registration
 * (`Effect.provideContext`, cheap in Effect 4): `run` needs nothing more from the caller.
 *
 * @since 0.1.0
 * @category models
 */
export interface BoundCall {
  readonly args: unknown
  readonly paths: ReadonlyArray<PathSlot>
  readonly run: Effect.Effect<unknown, HandlerFailure>
}

/**
 * A tool as the registry holds it: its calls come bound to their services.
 *
 * @since 0.1.0
 * @category models
 */
export interface RegisteredTool extends ToolInfo {
  readonly prepare: (input: unknown) => Result.Result<BoundCall, InvalidArguments>
}
