/**
 * `ToolExecutor.explain`: a dry run of one call through the executor's own steps and its one
 * list of gates (`ToolGates`), asked as `dryRun` (no rate-limit token taken) and recorded,
 * without running the handler. The same lookup, decoding, path resolution and gate values as
 * `execute`, so the two agree on the decision and its code.
 *
 * @since 0.2.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as AgentMode from "../domain/AgentMode.js"
import { type InvalidArguments, type PathTraversalError, pathTraversalOf, type ProtectedPath } from "../domain/errors.js"
import type { Gate } from "../domain/Gate.js"
import type { CallExplanation, GateDecision } from "../domain/GateDecision.js"
import type { BoundCall, RegisteredTool } from "../domain/Tool.js"
import type { ResolvedPath } from "../domain/WorkspacePath.js"
import type { ExecuteOptions } from "../services/ToolExecutor.js"
import type { ToolRegistryService } from "../services/ToolRegistry.js"
import { argumentsPassed, completed, lookupPassed, pathsPassed, refusedBy } from "./callDecisions.js"
import { ask, behind, gateCallOf, gatesOf } from "./gateRun.js"

/** What `explain` shares with `execute`. */
export interface ExplainServices {
  readonly registry: ToolRegistryService
  readonly gates: ReadonlyArray<Gate>
  /** The call's arguments decoded, as `execute` decodes them. */
  readonly prepare: (
    tool: RegisteredTool,
    input: unknown,
    options: ExecuteOptions | undefined
  ) => Result.Result<BoundCall, InvalidArguments>
  /** The call's paths resolved (written back into its arguments), as `execute` resolves them. */
  readonly resolvePaths: (tool: RegisteredTool, call: BoundCall) => Effect.Effect<ReadonlyArray<ResolvedPath>, ProtectedPath>
}

export const makeExplain = (services: ExplainServices) =>
(name: string, input: unknown, options?: ExecuteOptions): Effect.Effect<CallExplanation> =>
  Effect.gen(function*() {
    const decisions: Array<GateDecision> = []
    const record = (decision: GateDecision) => {
      decisions.push(decision)
    }
    const explanation = (tool: RegisteredTool | undefined): CallExplanation => {
      const refusal = decisions.find((decision) => decision.outcome === "fail")
      return {
        tool: name,
        version: tool?.version ?? null,
        mode: (options?.mode ?? AgentMode.Default).name,
        wouldRun: refusal === undefined,
        errorCode: refusal?.code ?? null,
        // the message as `execute` returns it: a refusal is passed on as written
        message: refusal?.reason ?? null,
        gates: completed(decisions, gatesOf(services.gates, options))
      }
    }

    const found = services.registry.lookup(name, options?.versionRange)
    if (Result.isFailure(found)) {
      record(refusedBy("lookup", found.failure))
      return explanation(undefined)
    }
    const tool = found.success
    record(lookupPassed(tool))

    const prepared = services.prepare(tool, input, options)
    if (Result.isFailure(prepared)) {
      record(refusedBy("arguments", prepared.failure))
      return explanation(tool)
    }
    record(argumentsPassed)
    const call = prepared.success

    // paths: an escape is a defect in `execute`; here it is the `paths` step's refusal
    const resolved = yield* services.resolvePaths(tool, call).pipe(
      Effect.map(Result.succeed<ReadonlyArray<ResolvedPath>>),
      Effect.catchCause((cause): Effect.Effect<Result.Result<ReadonlyArray<ResolvedPath>, PathTraversalError | ProtectedPath>> => {
        const traversal = pathTraversalOf(cause)
        if (Option.isSome(traversal)) return Effect.succeed(Result.fail(traversal.value))
        // a refusal of the paths step, or (no failure in it) a defect or an interruption passed on
        const refusal = Cause.findError(cause)
        return Result.isSuccess(refusal) ? Effect.succeed(Result.fail(refusal.success)) : Effect.failCause(refusal.failure)
      })
    )
    if (Result.isFailure(resolved)) {
      record(refusedBy("paths", resolved.failure))
      return explanation(tool)
    }
    record(pathsPassed(resolved.success.length))

    const answers = ask(gatesOf(services.gates, options), gateCallOf(tool, call, options, resolved.success, true), record)
    // a refusal ends the dry run: it is recorded, and the explanation says so
    if (answers !== undefined) yield* Effect.ignore(behind(answers, record, Effect.void))
    return explanation(tool)
  })
