/**
 * `ToolExecutor`: runs one call through the gate pipeline and returns a
 * `ToolExecutionResult`. Lookup, argument validation, mode gate, policy hook, confirmation
 * gate, rate limit, then the handler under its timeout and memory cap.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { AgentMode } from "../domain/AgentMode.js"
import type { Gate } from "../domain/Gate.js"
import type { CallExplanation } from "../domain/GateDecision.js"
import type { ToolExecutionResult } from "../domain/ToolExecutionResult.js"
import { makeExecutor } from "../layers/ToolExecutor.js"
import type { ProgressListener } from "./CallProgress.js"
import type { ConfirmationGate } from "./ConfirmationGate.js"
import type { ModeGate } from "./ModeGate.js"
import type { RateLimiter } from "./RateLimiter.js"
import type { ToolPolicy } from "./ToolPolicy.js"
import type { ToolRegistry } from "./ToolRegistry.js"
import type { Workspace } from "./Workspace.js"

/**
 * How one call is made.
 *
 * @since 0.1.0
 * @category models
 */
export interface ExecuteOptions {
  /** The agent mode (default: `AgentMode.Default`). */
  readonly mode?: AgentMode | undefined
  /** The call is confirmed (a person said yes, or the agent auto-confirms). Default `false`. */
  readonly confirm?: boolean | undefined
  /** A semver range selecting the version (default: the latest). */
  readonly versionRange?: string | undefined
  /**
   * The arguments come from a model that saw the OpenAI strict export, which sends `null` for
   * every optional field it leaves out: those nulls are dropped before validation.
   */
  readonly strictArguments?: boolean | undefined
  /**
   * Who the call's rate limit is counted for (a user, a tenant): each key has its own bucket
   * per tool. Default: one bucket per tool.
   */
  readonly rateLimitKey?: string | undefined
  /** The model's id for this call (`tool_call_id`); recorded on the span and in the audit log. */
  readonly callId?: string | undefined
  /**
   * Gates of this call only, asked before the executor's own list (`ToolGates`): what a caller
   * knows of one request (an OAuth token's scopes, see `effect-tool-system/mcp`'s HTTP `auth`).
   * `explain` and the audit record show them like any gate. Their names must differ from the
   * installed gates' names.
   */
  readonly gates?: ReadonlyArray<Gate> | undefined
  /**
   * Hears the progress the tool reports (`reportProgress`) while its handler runs: checked
   * (increasing, finite), at most one update per 100 ms (the latest kept, the last one sent
   * as the handler ends), beside the call: a listener that is slow or fails never holds or
   * fails the call (see `CallProgress`). The MCP server passes one when a `tools/call` carries
   * a `progressToken`.
   */
  readonly onProgress?: ProgressListener | undefined
}

/**
 * The `ToolExecutor` service interface.
 *
 * @since 0.1.0
 * @category services
 */
export interface ToolExecutorService {
  /**
   * Runs one call. Every expected failure is a result with an `errorCode`; a workspace
   * escape (`PathTraversalError`) is a defect and never a result.
   */
  readonly execute: (name: string, args: unknown, options?: ExecuteOptions) => Effect.Effect<ToolExecutionResult>
  /**
   * What `execute` would decide for this call, gate by gate, without running the handler or
   * taking a rate-limit token. A workspace escape is a `fail` of the `paths` gate here.
   */
  readonly explain: (name: string, args: unknown, options?: ExecuteOptions) => Effect.Effect<CallExplanation>
}

/**
 * The gated executor.
 *
 * @since 0.1.0
 * @category services
 */
export class ToolExecutor extends Context.Service<ToolExecutor, ToolExecutorService>()("effect-tool-system/ToolExecutor") {
  static readonly layer: Layer.Layer<
    ToolExecutor,
    never,
    ToolRegistry | ModeGate | ToolPolicy | ConfirmationGate | RateLimiter | Workspace
  > = Layer.effect(ToolExecutor, makeExecutor)
}
