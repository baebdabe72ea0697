/**
 * The gate pipeline. Hot path: no generator, no span unless a tracer is installed, and a
 * deadline that costs one child fiber and one timer (see `guard.ts`). A call with no path and
 * no gate left (`direct`) starts its handler at once and, when the handler ends synchronously,
 * builds its result without an effect step of its own.
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
  type ProtectedPath,
  type ToolCallError,
  ToolError,
  ToolTimeout
} from "../domain/errors.js"
import { fromStrictArguments } from "../domain/exports.js"
import { isSettled } from "../domain/settled.js"
import { showName } from "../domain/shownText.js"
import type { BoundCall, HandlerFailure, RegisteredTool } from "../domain/Tool.js"
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
import { makeCallGates, type Step } from "./callGates.js"
import { makeExplain } from "./explainCall.js"
import { guard, type GuardOptions, type Restore, onCallerOf, type Running, startGuarded, waitGuarded } from "./guard.js"
import { withoutHostPathDetails, withoutHostPaths } from "./hostPaths.js"
import { refuseProtected } from "./protectedPaths.js"

/** The tracer every fiber has unless the application installs one. */
const nativeTracer = Context.get(DefaultServices.liveServices, Tracer.Tracer)

const now = () => performance.now()
const elapsed = (start: number) => Math.round((performance.now() - start) * 1000) / 1000

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
   * handler only ever sees resolved paths. A tool with side effects is refused any path under
   * a `.git` (`protectedPaths.ts`).
   */
  const resolvePaths = (tool: RegisteredTool, call: BoundCall): Effect.Effect<ReadonlyArray<ResolvedPath>, ProtectedPath> =>
    Effect.forEach(call.paths, (slot) =>
      Effect.flatMap(workspace.resolve(slot.raw), (resolved) =>
        Reflect.set(slot.holder, slot.key, resolved)
          ? Effect.succeed(resolved)
          : Effect.dieMessage(`cannot place the resolved path of "${slot.raw}" into the arguments`))).pipe(
        Effect.flatMap((paths) =>
          tool.spec.readOnly ? Effect.succeed(paths) : Effect.flatMap(workspace.root, (root) => refuseProtected(tool.name, root, paths))
        )
      )

  const { behind, gatesOf, withCallConfirmation } = makeCallGates({ modeGate, policy, confirmation, rateLimiter })

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

  /** A call's arguments, decoded (and first converted back from the strict export's form). */
  const prepare = (tool: RegisteredTool, input: unknown, options: ExecuteOptions | undefined) =>
    tool.prepare(options?.strictArguments === true ? fromStrictArguments(tool.spec.parameters, input) : input)

  /**
   * The handler's run, guarded, under the call's span (its own spans nest under it). `restore`
   * is applied to each step that may wait (a gate that does work, the paths' resolution, the
   * handler's run): a traced call runs its steps in an uninterruptible region, so that its span
   * ends however the call ends, and waits interruptibly only where it waits at all.
   */
  const runOf = (
    tool: RegisteredTool,
    call: BoundCall,
    span: Tracer.Span | undefined,
    restore: Restore,
    callerInterruptible: boolean
  ): Step => call.use((handler, context) => guard(handler, context, span, guardOptionsOf(tool), restore, callerInterruptible))

  /**
   * The steps of a call with paths: they are resolved first, so that the policy and the mode
   * gate see resolved paths (their gates are built after).
   */
  const withPaths = (
    tool: RegisteredTool,
    call: BoundCall,
    options: ExecuteOptions | undefined,
    span: Tracer.Span | undefined,
    restore: Restore,
    callerInterruptible: boolean
  ): Step =>
    Effect.flatMap(restore(resolvePaths(tool, call)), (paths) =>
      behind(tool, gatesOf(tool, call, options, paths), restore, runOf(tool, call, span, restore, callerInterruptible)))

  const onFailure = (tool: RegisteredTool, start: number) => (cause: Cause.Cause<ToolCallError | PathTraversalError>) => {
    const traversal = pathTraversalOf(cause)
    if (Option.isSome(traversal)) return Effect.die(traversal.value)
    const failure = Cause.failureOption(cause)
    if (Option.isSome(failure) && failure.value._tag !== "PathTraversalError") {
      const error = failure.value
      if (error._tag !== "ToolError") return Effect.succeed(Result.fromError(tool.name, tool.version, error, elapsed(start)))
      return Effect.map(workspace.root, (root) =>
        Result.fromError(
          tool.name,
          tool.version,
          withoutHostPathDetails(error, root),
          elapsed(start),
          withoutHostPaths(error.message, root)
        ))
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

  /** The result of a call that returned `output`; it ends the call's span. */
  const succeeded = (tool: RegisteredTool, start: number, callSpan: CallSpan | undefined, output: unknown) => {
    const result = Result.succeed(tool.name, tool.version, output, elapsed(start))
    callSpan?.end(Exit.succeed(result))
    return Effect.succeed(result)
  }

  /** The result of a call that failed with `cause`; it ends the call's span. */
  const failed = (tool: RegisteredTool, start: number, callSpan: CallSpan | undefined) =>
    callSpan === undefined ? onFailure(tool, start) : (cause: Cause.Cause<ToolCallError | PathTraversalError>) =>
      Effect.onExit(onFailure(tool, start)(cause), (exit) => Effect.sync(() => endCallSpan(callSpan, exit)))

  /**
   * `steps` (given the mask's `restore`) and the result, under the call's span when traced: the
   * span ends on every way out (an interruption included), in one uninterruptible region whose
   * single continuation both builds the result and ends the span. The steps are interruptible
   * only where they wait (see `runOf`): `Effect.onExit`, or `restore` around all of them,
   * would add regions and continuations that cost more than the rest of tracing a call.
   */
  const settle = (
    tool: RegisteredTool,
    start: number,
    callSpan: CallSpan | undefined,
    steps: (restore: Restore) => Step
  ): Effect.Effect<Result.ToolExecutionResult> =>
    callSpan === undefined
      ? Effect.matchCauseEffect(steps(identity), {
        onFailure: onFailure(tool, start),
        onSuccess: (output) => succeeded(tool, start, undefined, output)
      })
      : Effect.uninterruptibleMask((restore) =>
        Effect.matchCauseEffect(steps(restore), {
          onFailure: failed(tool, start, callSpan),
          onSuccess: (output) => succeeded(tool, start, callSpan, output)
        })
      )

  /** How a direct call's handler stands once started: ended, waiting, or to be run on the caller's fiber. */
  type Started = Exit.Exit<unknown, HandlerFailure> | Running<unknown, HandlerFailure, ToolTimeout, MemoryLimitExceeded> | Step

  /**
   * A call with no path and no gate left is its handler alone: started here, on the caller's
   * fiber, and its result built at once when the handler ends synchronously, as most do. Only
   * a handler that waits costs the steps of waiting for it.
   */
  const direct = (
    fiber: Fiber.RuntimeFiber<unknown, unknown>,
    flags: RuntimeFlags.RuntimeFlags,
    tool: RegisteredTool,
    call: BoundCall,
    start: number,
    callSpan: CallSpan | undefined
  ): Effect.Effect<Result.ToolExecutionResult> => {
    const options = guardOptionsOf(tool)
    const span = callSpan?.span
    const interruptible = RuntimeFlags.interruptible(flags)
    const started = call.use<Started>((handler, context, startHandler) => {
      const onCaller = onCallerOf(context, span, options)
      if (onCaller !== undefined) return onCaller(handler)
      // No gate is left, so the handler function is called now: an effect it built settled
      // (an exit) has nothing left to time out, and needs no fiber to guard it. Not under a
      // memory cap, whose baseline is the heap before the handler function runs.
      // (the condition's `false` mutant is equivalent, the guard's fiber then calls the handler function and
      // ends as the same exit; left unmarked, as a mark would also hide `true`, which the executor tests kill)
      const built = options.memoryLimitMb === undefined ? startHandler?.() : undefined
      // (its `false` mutant is equivalent, a settled exit run by the guard's fiber ends as the same exit; left
      // unmarked, as a mark would also hide `true`, which the executor tests kill)
      if (built !== undefined && isSettled(built)) return built
      return startGuarded(fiber, flags, built ?? handler, context, span, options)
    })
    // Stryker disable next-line BlockStatement: equivalent, an exit is an effect too, and `settle` gives it the same result by more steps
    if (Exit.isExit(started)) {
      if (Exit.isSuccess(started)) return succeeded(tool, start, callSpan, started.value)
      const result = failed(tool, start, callSpan)(started.cause)
      // a traced failure's span ends in a region no interruption can enter (its steps do not wait)
      // Stryker disable next-line ConditionalExpression,EqualityOperator: both sides equivalent (each applied by hand): building a failure's result never waits, so nothing can interrupt it
      return callSpan === undefined ? result : Effect.uninterruptible(result)
    }
    // the handler waits (its wait's steps are paid), or runs on the caller's fiber
    return settle(tool, start, callSpan, Effect.isEffect(started) ? () => started : (restore) => waitGuarded(started, restore, interruptible))
  }

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
    // an unknown name is the caller's, of any length: the result names it as its message does
    if (Either.isLeft(found)) return Effect.succeed(Result.fromError(showName(name), null, found.left, elapsed(start)))
    const tool = found.right
    if (seen !== undefined) seen.tool = tool
    // a tool that asks for confirmation as it acts runs with the call's confirmation set
    if (tool.asksConfirmation !== undefined) {
      return withCallConfirmation(tool, options, Effect.withFiberRuntime((inner, status) =>
        runFound(inner, status.runtimeFlags, tool, input, options, start, seen)))
    }
    return runFound(fiber, flags, tool, input, options, start, seen)
  }

  /** `run` once the tool is found. */
  const runFound = (
    fiber: Fiber.RuntimeFiber<unknown, unknown>,
    flags: RuntimeFlags.RuntimeFlags,
    tool: RegisteredTool,
    input: unknown,
    options: ExecuteOptions | undefined,
    start: number,
    seen: Seen | undefined
  ): Effect.Effect<Result.ToolExecutionResult> => {
    // The span is made and ended by hand and the handler's fiber started under it: `withSpan`
    // would also re-provide the context around the whole pipeline, which costs several times
    // more. No stack trace: capturing one costs more than the rest of the span together.
    const callSpan = fiber.currentTracer === nativeTracer
      ? undefined
      : startCallSpan(fiber, tool, (options?.mode ?? AgentMode.Default).name, options?.callId)
    if (callSpan !== undefined && seen !== undefined) seen.span = callSpan.span
    const prepared = prepare(tool, input, options)
    if (Either.isLeft(prepared)) return settle(tool, start, callSpan, () => Effect.fail(prepared.left))
    const call = prepared.right
    const span = callSpan?.span
    const interruptible = RuntimeFlags.interruptible(flags)
    // The two shortcuts below only skip steps: their `true` and `>=` mutants (paths resolved when there are
    // none) and the `false` of the second (a call with no gate still passes `behind`, which then adds none)
    // give the same results by more steps. Left unmarked, as a mark would also hide `false`, `<=` and `true`,
    // which the executor tests kill (paths never resolved; gates skipped).
    if (call.paths.length > 0) {
      return settle(tool, start, callSpan, (restore) => withPaths(tool, call, options, span, restore, interruptible))
    }
    const gates = gatesOf(tool, call, options, noPaths)
    if (gates === undefined) return direct(fiber, flags, tool, call, start, callSpan)
    return settle(tool, start, callSpan, (restore) => behind(tool, gates, restore, runOf(tool, call, span, restore, interruptible)))
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
