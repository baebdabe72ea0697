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
import type { GateDecision } from "../domain/GateDecision.js"
import { AuditLog, type AuditLogService } from "../services/AuditLog.js"
import { ConfirmationGate } from "../services/ConfirmationGate.js"
import { ModeGate } from "../services/ModeGate.js"
import { RateLimiter } from "../services/RateLimiter.js"
import type { ExecuteOptions, ToolExecutorService } from "../services/ToolExecutor.js"
import { ToolGates } from "../services/ToolGates.js"
import { ToolPolicy } from "../services/ToolPolicy.js"
import { ToolRegistry } from "../services/ToolRegistry.js"
import { Workspace } from "../services/Workspace.js"
import { auditRecordOfExit } from "./auditedCall.js"
import { builtinGates } from "./builtinGates.js"
import { argumentsPassed, lookupPassed, pathsPassed, refusedBy } from "./callDecisions.js"
import { withCallConfirmation } from "./callConfirmation.js"
import { type CallSpan, endCallSpan, startCallSpan } from "./callSpan.js"
import { crashMessage } from "./crashMessage.js"
import { makeExplain } from "./explainCall.js"
import { ask, behind, gateCallOf, type Recorder } from "./gateRun.js"
import { guard, type GuardOptions, type Restore, onCallerOf, type Running, startGuarded, waitGuarded } from "./guard.js"
import { withoutHostPathDetails, withoutHostPaths } from "./hostPaths.js"
import { refuseProtected } from "./protectedPaths.js"

/** The tracer every fiber has unless the application installs one. */
const nativeTracer = Context.get(DefaultServices.liveServices, Tracer.Tracer)

const now = () => performance.now()
const elapsed = (start: number) => Math.round((performance.now() - start) * 1000) / 1000

const noPaths: ReadonlyArray<ResolvedPath> = []

/** A step of the pipeline, with every expected failure it can raise. */
type Step = Effect.Effect<unknown, ToolCallError | PathTraversalError>

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
  const { gates } = Option.getOrElse(
    yield* Effect.serviceOption(ToolGates),
    () => ({ gates: builtinGates({ modeGate, policy, confirmation, rateLimiter }) })
  )

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

  /** `resolvePaths`, its refusal (an escape included) recorded. */
  const resolveRecorded = (tool: RegisteredTool, call: BoundCall, record: Recorder) =>
    Effect.tapErrorCause(resolvePaths(tool, call), (cause) =>
      Effect.sync(() => {
        const traversal = pathTraversalOf(cause)
        const failure = Option.orElse(traversal, () => Cause.failureOption(cause))
        if (Option.isSome(failure)) record(refusedBy("paths", failure.value))
      }))

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
   * The steps of a call with paths: they are resolved first, so that the gates are asked about
   * resolved paths.
   */
  const withPaths = (
    tool: RegisteredTool,
    call: BoundCall,
    options: ExecuteOptions | undefined,
    span: Tracer.Span | undefined,
    restore: Restore,
    callerInterruptible: boolean,
    record: Recorder | undefined
  ): Step =>
    Effect.flatMap(
      restore(record === undefined ? resolvePaths(tool, call) : resolveRecorded(tool, call, record)),
      (paths) => {
        record?.(pathsPassed(paths.length))
        const run = runOf(tool, call, span, restore, callerInterruptible)
        const answers = ask(gates, gateCallOf(tool, call, options, paths, false), record)
        return answers === undefined ? run : behind(answers, restore, record, run)
      }
    )

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
      const built = options.memoryLimitMb === undefined ? startHandler?.() : undefined
      if (built !== undefined && isSettled(built)) return built
      return startGuarded(fiber, flags, built ?? handler, context, span, options)
    })
    // a settled handler's result is built at once (an exit is an effect too: `settle` would give the same by more steps)
    if (Exit.isExit(started)) {
      if (Exit.isSuccess(started)) return succeeded(tool, start, callSpan, started.value)
      const result = failed(tool, start, callSpan)(started.cause)
      // a traced failure's span ends in a region no interruption can enter (its steps do not wait)
      return callSpan === undefined ? result : Effect.uninterruptible(result)
    }
    // the handler waits (its wait's steps are paid), or runs on the caller's fiber
    return settle(tool, start, callSpan, Effect.isEffect(started) ? () => started : (restore) => waitGuarded(started, restore, interruptible))
  }

  /** What an audited `run` learns for the record: the tool, the call's span, and each decision. */
  interface Seen {
    tool?: RegisteredTool | undefined
    span?: Tracer.AnySpan | undefined
    readonly decisions: Array<GateDecision>
    readonly record: Recorder
  }

  /**
   * One call, made on `fiber` running with `flags`; `seen` (when audited) learns the tool, the
   * call's span and each decision.
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
    if (Either.isLeft(found)) {
      seen?.record(refusedBy("lookup", found.left))
      return Effect.succeed(Result.fromError(showName(name), null, found.left, elapsed(start)))
    }
    const tool = found.right
    if (seen !== undefined) {
      seen.tool = tool
      seen.record(lookupPassed(tool))
    }
    // a tool that asks for confirmation as it acts runs with the call's confirmation set
    if (tool.asksConfirmation !== undefined) {
      return withCallConfirmation(confirmation, tool, options, Effect.withFiberRuntime((inner, status) =>
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
    const record = seen?.record
    const prepared = prepare(tool, input, options)
    if (Either.isLeft(prepared)) {
      record?.(refusedBy("arguments", prepared.left))
      return settle(tool, start, callSpan, () => Effect.fail(prepared.left))
    }
    record?.(argumentsPassed)
    const call = prepared.right
    const span = callSpan?.span
    const interruptible = RuntimeFlags.interruptible(flags)
    // The two shortcuts below only skip steps: a call with no paths resolves none, and a call
    // whose gates all let it on at once is its handler alone.
    if (call.paths.length > 0) {
      return settle(tool, start, callSpan, (restore) => withPaths(tool, call, options, span, restore, interruptible, record))
    }
    record?.(pathsPassed(0))
    const answers = ask(gates, gateCallOf(tool, call, options, noPaths, false), record)
    if (answers === undefined) return direct(fiber, flags, tool, call, start, callSpan)
    return settle(tool, start, callSpan, (restore) => behind(answers, restore, record, runOf(tool, call, span, restore, interruptible)))
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
    const decisions: Array<GateDecision> = []
    // the caller's span, unless the call makes its own
    const seen: Seen = {
      span: Option.getOrUndefined(Context.getOption(fiber.currentContext, Tracer.ParentSpan)),
      decisions,
      record: (decision) => decisions.push(decision)
    }
    // `onExit` runs `run` with the caller's own flags restored
    return Effect.onExit(run(fiber, flags, name, input, options, seen), (exit) =>
      audit.write(auditRecordOfExit(exit, {
        startedAtMillis,
        name,
        input,
        options,
        tool: seen.tool,
        span: seen.span,
        decisions,
        gates,
        includeArguments: audit.includeArguments,
        elapsedMs: () => elapsed(start)
      })))
  }

  const execute = (name: string, input: unknown, options?: ExecuteOptions): Effect.Effect<Result.ToolExecutionResult> =>
    Effect.withFiberRuntime((fiber, status) =>
      audit.enabled
        ? audited(fiber, status.runtimeFlags, name, input, options)
        : run(fiber, status.runtimeFlags, name, input, options)
    )

  const explain = makeExplain({ registry, workspace, gates, prepare, resolvePaths })

  return { execute, explain } satisfies ToolExecutorService
})
