/**
 * The gate pipeline. Hot path: no generator, no span unless a tracer is installed, and a
 * deadline that costs one child fiber and one timer (see `guard.ts`).
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import { identity } from "effect/Function"
import * as Option from "effect/Option"
import * as RuntimeFlags from "effect/RuntimeFlags"
import * as Tracer from "effect/Tracer"
import * as AgentMode from "../domain/AgentMode.js"
import {
  MemoryLimitExceeded,
  type PathTraversalError,
  pathTraversalOf,
  PolicyVeto,
  type ToolCallError,
  ToolError,
  ToolTimeout
} from "../domain/errors.js"
import { fromStrictArguments } from "../domain/exports.js"
import type { BoundCall, RegisteredTool } from "../domain/Tool.js"
import * as Result from "../domain/ToolExecutionResult.js"
import type { ResolvedPath } from "../domain/WorkspacePath.js"
import { AuditLog, type AuditLogService } from "../services/AuditLog.js"
import { ConfirmationGate } from "../services/ConfirmationGate.js"
import { ModeGate } from "../services/ModeGate.js"
import { RateLimiter } from "../services/RateLimiter.js"
import type { ExecuteOptions, ToolExecutorService } from "../services/ToolExecutor.js"
import { ToolPolicy } from "../services/ToolPolicy.js"
import { ToolRegistry } from "../services/ToolRegistry.js"
import { Workspace } from "../services/Workspace.js"
import { auditRecordOf } from "./auditRecord.js"
import { type CallSpan, CallSpanAttributes, startCallSpan } from "./callSpan.js"
import { makeExplain } from "./explainCall.js"
import { guard, type GuardOptions, type Restore } from "./guard.js"
import { relativeToRoot } from "./relativeToRoot.js"
import { allowAll } from "./ToolPolicy.js"

/** The tracer every fiber has unless the application installs one. */
const nativeTracer = Context.get(DefaultServices.liveServices, Tracer.Tracer)

const now = () => performance.now()
const elapsed = (start: number) => Math.round((performance.now() - start) * 1000) / 1000

/** A step of the pipeline, with every expected failure it can raise. */
type Step = Effect.Effect<unknown, ToolCallError | PathTraversalError>

const noPaths: ReadonlyArray<ResolvedPath> = []

/** The message of a defect, bounded (a defect's own formatting may recurse over deep data). */
const crashMessage = (cause: Cause.Cause<unknown>): string => {
  try {
    const text = String(Cause.squash(cause))
    return text.length > 500 ? `${text.slice(0, 499)}…` : text
  } catch {
    return "an unprintable defect"
  }
}

/** The audit log when none is in context. */
const noAudit: AuditLogService = { enabled: false, includeArguments: false, write: () => Effect.void }

export const makeExecutor = Effect.gen(function*() {
  const registry = yield* ToolRegistry
  const modeGate = yield* ModeGate
  const policy = yield* ToolPolicy
  const confirmation = yield* ConfirmationGate
  const rateLimiter = yield* RateLimiter
  const workspace = yield* Workspace
  const audit: AuditLogService = Option.getOrElse(yield* Effect.serviceOption(AuditLog), () => noAudit)

  /**
   * Resolves every path argument of a call through the `Workspace` (an escape dies with
   * `PathTraversalError`) and writes the resolved path back into the arguments, so the
   * handler only ever sees resolved paths.
   */
  const resolvePaths = (call: BoundCall): Effect.Effect<ReadonlyArray<ResolvedPath>> =>
    Effect.forEach(call.paths, (slot) =>
      Effect.flatMap(workspace.resolve(slot.raw), (resolved) =>
        Reflect.set(slot.holder, slot.key, resolved)
          ? Effect.succeed(resolved)
          : Effect.dieMessage(`cannot place the resolved path of "${slot.raw}" into the arguments`)))

  /** Each tool's deadline and memory cap, made once: a call allocates none. */
  const guardOptions = new WeakMap<RegisteredTool, GuardOptions<ToolTimeout, MemoryLimitExceeded>>()
  const guardOptionsOf = (tool: RegisteredTool): GuardOptions<ToolTimeout, MemoryLimitExceeded> => {
    const known = guardOptions.get(tool)
    if (known !== undefined) return known
    const made: GuardOptions<ToolTimeout, MemoryLimitExceeded> = {
      // a tool that keeps its own deadline ends itself with `ToolTimeout`
      timeoutMs: tool.ownDeadline === true ? undefined : tool.timeoutMs,
      memoryLimitMb: tool.memoryLimitMb,
      onTimeout: () => new ToolTimeout({ tool: tool.name, timeoutMs: tool.timeoutMs ?? 0 }),
      onMemoryLimit: () => new MemoryLimitExceeded({ tool: tool.name, limitMb: tool.memoryLimitMb ?? 0 })
    }
    guardOptions.set(tool, made)
    return made
  }

  /**
   * The call's steps. `restore` is applied to each step that may wait (a gate that does work,
   * the paths' resolution, the handler's run): a traced call runs the pipeline in an
   * uninterruptible region, so that its span ends however the call ends, and waits
   * interruptibly only where it waits at all.
   */
  const pipeline = (
    tool: RegisteredTool,
    input: unknown,
    options: ExecuteOptions | undefined,
    span: Tracer.Span | undefined,
    restore: Restore,
    callerInterruptible?: boolean
  ): Effect.Effect<unknown, ToolCallError | PathTraversalError> => {
    const prepared = tool.prepare(
      options?.strictArguments === true ? fromStrictArguments(tool.spec.parameters, input) : input
    )
    if (Either.isLeft(prepared)) return Effect.fail(prepared.left)
    const call = prepared.right
    const confirmed = options?.confirm === true
    // the handler runs under the call's span (its own spans nest under it)
    const run = call.use((handler, context) => guard(handler, context, span, guardOptionsOf(tool), restore, callerInterruptible))
    // Gates that pass without work (`Effect.void`, the allow-all policy) are left out of the
    // chain: the order stays mode, policy, confirmation, rate limit, run.
    const limited: Step = tool.rateLimitRpm === undefined
      ? run
      : Effect.zipRight(restore(rateLimiter.acquire(tool, options?.rateLimitKey)), run)
    // only tools that need confirmation are put to the confirmation gate
    const confirmation_ = tool.requiresConfirmation ? confirmation.check(tool, confirmed) : Effect.void
    const confirmed_: Step = confirmation_ === Effect.void ? limited : Effect.zipRight(restore(confirmation_), limited)
    const mode = options?.mode ?? AgentMode.Default
    // the policy and the mode gate are built after the paths are resolved: both see resolved paths
    const gated = (paths: ReadonlyArray<ResolvedPath>): Step => {
      const evaluation = policy.evaluate(tool, call.args)
      const allowed: Step = evaluation === allowAll ? confirmed_ : Effect.flatMap(restore(evaluation), (veto) =>
        Option.isSome(veto) ? Effect.fail(new PolicyVeto({ tool: tool.name, reason: veto.value })) : confirmed_)
      const checked = modeGate.check(tool, { paths }, mode)
      return checked === Effect.void ? allowed : Effect.zipRight(restore(checked), allowed)
    }
    return call.paths.length === 0 ? gated(noPaths) : Effect.flatMap(restore(resolvePaths(call)), gated)
  }

  const onFailure = (tool: RegisteredTool, start: number) => (cause: Cause.Cause<ToolCallError | PathTraversalError>) => {
    const traversal = pathTraversalOf(cause)
    if (Option.isSome(traversal)) return Effect.die(traversal.value)
    const failure = Cause.failureOption(cause)
    if (Option.isSome(failure) && failure.value._tag !== "PathTraversalError") {
      const error = failure.value
      if (error._tag !== "ToolError") return Effect.succeed(Result.fromError(tool.name, tool.version, error, elapsed(start)))
      return Effect.map(workspace.root, (root) =>
        Result.fromError(tool.name, tool.version, error, elapsed(start), relativeToRoot(error.message, root)))
    }
    if (Cause.isInterruptedOnly(cause)) return Effect.interrupt
    const error = new ToolError({ tool: tool.name, message: `the tool crashed: ${crashMessage(cause)}`, cause })
    return Effect.zipRight(
      Effect.logError(`Tool "${tool.name}" died`, cause),
      Effect.succeed(Result.fromError(tool.name, tool.version, error, elapsed(start)))
    )
  }

  /** A refused or failed call ends its span as an error, with the code as `error.type`. */
  const endCallSpan = (callSpan: CallSpan, exit: Exit.Exit<Result.ToolExecutionResult>): void => {
    if (Exit.isSuccess(exit) && !exit.value.success) {
      callSpan.span.attribute(CallSpanAttributes.errorType, exit.value.errorCode)
      callSpan.end(Exit.fail(exit.value.errorCode))
    } else {
      callSpan.end(exit)
    }
  }

  /**
   * `pipeline` under the call's span, which ends on every way out (an interruption
   * included): one uninterruptible region whose single continuation both builds the result
   * and ends the span. The pipeline is interruptible only where it waits (see `pipeline`):
   * `Effect.onExit`, or `restore` around the whole pipeline, would add regions and
   * continuations that cost more than the rest of tracing a call.
   */
  const traced = (
    tool: RegisteredTool,
    input: unknown,
    options: ExecuteOptions | undefined,
    start: number,
    callSpan: CallSpan,
    callerInterruptible: boolean
  ): Effect.Effect<Result.ToolExecutionResult> =>
    Effect.uninterruptibleMask((restore) =>
      Effect.matchCauseEffect(pipeline(tool, input, options, callSpan.span, restore, callerInterruptible), {
        onFailure: (cause) => Effect.onExit(onFailure(tool, start)(cause), (exit) => Effect.sync(() => endCallSpan(callSpan, exit))),
        onSuccess: (output) => {
          const result = Result.succeed(tool.name, tool.version, output, elapsed(start))
          callSpan.end(Exit.succeed(result))
          return Effect.succeed(result)
        }
      })
    )

  /** What `run` found, for the audit record: the tool it looked up and the call's span. */
  interface Seen {
    tool?: RegisteredTool | undefined
    span?: Tracer.AnySpan | undefined
  }

  /**
   * One call, made on `fiber` running with `flags`; `seen` (when given) learns the tool and the
   * call's span.
   */
  const run = (
    fiber: Fiber.RuntimeFiber<unknown, unknown>,
    flags: RuntimeFlags.RuntimeFlags,
    name: string,
    input: unknown,
    options: ExecuteOptions | undefined,
    seen?: Seen
  ): Effect.Effect<Result.ToolExecutionResult> => {
    const start = now()
    const found = registry.lookup(name, options?.versionRange)
    if (Either.isLeft(found)) return Effect.succeed(Result.fromError(name, null, found.left, elapsed(start)))
    const tool = found.right
    if (seen !== undefined) seen.tool = tool
    // The span is made and ended by hand and the handler's fiber started under it: `withSpan`
    // would also re-provide the context around the whole pipeline, which costs several times
    // more. No stack trace: capturing one costs more than the rest of the span together.
    const callSpan = fiber.currentTracer === nativeTracer
      ? undefined
      : startCallSpan(fiber, tool, (options?.mode ?? AgentMode.Default).name, options?.callId)
    if (callSpan !== undefined) {
      if (seen !== undefined) seen.span = callSpan.span
      return traced(tool, input, options, start, callSpan, RuntimeFlags.interruptible(flags))
    }
    return Effect.matchCauseEffect(pipeline(tool, input, options, undefined, identity), {
      onFailure: onFailure(tool, start),
      onSuccess: (output) => Effect.succeed(Result.succeed(tool.name, tool.version, output, elapsed(start)))
    })
  }

  /** `run`, then one audit record of what happened (an escape and an interruption included). */
  const audited = (
    fiber: Fiber.RuntimeFiber<unknown, unknown>,
    flags: RuntimeFlags.RuntimeFlags,
    name: string,
    input: unknown,
    options: ExecuteOptions | undefined
  ): Effect.Effect<Result.ToolExecutionResult> => {
    const start = now()
    const startedAtMillis = Context.get(fiber.getFiberRef(DefaultServices.currentServices), Clock.Clock)
      .unsafeCurrentTimeMillis()
    // the caller's span, unless the call makes its own
    const seen: Seen = { span: Option.getOrUndefined(Context.getOption(fiber.currentContext, Tracer.ParentSpan)) }
    // `onExit` runs `run` with the caller's own flags restored
    return Effect.onExit(run(fiber, flags, name, input, options, seen), (exit) => {
      const { span, tool } = seen
      const traversal = Exit.isFailure(exit) ? pathTraversalOf(exit.cause) : Option.none()
      const result = Exit.isSuccess(exit) ? exit.value : undefined
      return audit.write(auditRecordOf({
        startedAtMillis,
        tool,
        name,
        version: result?.version ?? tool?.version ?? null,
        options,
        mode: (options?.mode ?? AgentMode.Default).name,
        args: input,
        includeArguments: audit.includeArguments,
        success: result?.success === true,
        errorCode: result?.errorCode ?? (Option.isSome(traversal) ? "PATH_TRAVERSAL" : null),
        // an interrupted call has no error code, so no gate reads a message
        message: result?.error ?? (Option.isSome(traversal) ? traversal.value.message : null),
        durationMs: result?.durationMs ?? elapsed(start),
        traceId: span?.traceId ?? null,
        spanId: span?.spanId ?? null
      }))
    })
  }

  const execute = (name: string, input: unknown, options?: ExecuteOptions): Effect.Effect<Result.ToolExecutionResult> =>
    Effect.withFiberRuntime((fiber, status) =>
      audit.enabled
        ? audited(fiber, status.runtimeFlags, name, input, options)
        : run(fiber, status.runtimeFlags, name, input, options)
    )

  const explain = makeExplain({ registry, modeGate, policy, confirmation, rateLimiter, workspace })

  return { execute, explain } satisfies ToolExecutorService
})
