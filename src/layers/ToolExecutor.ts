/**
 * The executor: one call as one pipeline that reads top to bottom, on Effect's public API only:
 *
 *   lookup → arguments → paths → gates → run (deadline, memory cap) → result
 *
 * Every expected failure of a step becomes the call's `ToolExecutionResult`; a workspace
 * escape stays a defect. `execute`, `explain` and the audit record ask the same list of gates
 * (`ToolGates`): an audited call records each decision as it is made, `explain` asks as a dry
 * run. A call is traced (an `execute_tool {tool}` span) when the application installs a tracer.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
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
import type { GateDecision } from "../domain/GateDecision.js"
import { showName } from "../domain/shownText.js"
import type { BoundCall, HandlerFailure, RegisteredTool } from "../domain/Tool.js"
import * as ToolResult from "../domain/ToolExecutionResult.js"
import type { ResolvedPath } from "../domain/WorkspacePath.js"
import { AuditLog, type AuditLogService } from "../services/AuditLog.js"
import { ConfirmationGate } from "../services/ConfirmationGate.js"
import { ModeGate } from "../services/ModeGate.js"
import { RateLimiter } from "../services/RateLimiter.js"
import type { ExecuteOptions, ToolExecutorService } from "../services/ToolExecutor.js"
import { ToolGates } from "../services/ToolGates.js"
import { ToolPolicy } from "../services/ToolPolicy.js"
import { ToolRegistry } from "../services/ToolRegistry.js"
import { Workspace } from "../services/Workspace.js"
import { auditRecordOf } from "./auditRecord.js"
import { builtinGates } from "./builtinGates.js"
import { argumentsPassed, completed, lookupPassed, pathsPassed, refusedBy, withLateRefusal } from "./callDecisions.js"
import { withCallConfirmation } from "./callConfirmation.js"
import { withCallProgress } from "./callProgress.js"
import { CallSpanAttributes, spanOptionsOf } from "./callSpan.js"
import { makeExplain } from "./explainCall.js"
import { ask, behind, gateCallOf, gatesOf, type Recorder } from "./gateRun.js"
import { withoutHostPathDetails, withoutHostPaths } from "./hostPaths.js"
import { refuseProtected } from "./protectedPaths.js"

const now = () => performance.now()
const elapsed = (start: number) => Math.round((performance.now() - start) * 1000) / 1000

const noPaths: ReadonlyArray<ResolvedPath> = []

/** A call span's trace options: no captured stack (`withSpan` makes an `Error` for one by default). */
const noStackTrace: Tracer.TraceOptions = { captureStackTrace: false }

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

/** How often the heap is sampled under a memory cap. */
const SAMPLE_EVERY_MS = 50

/**
 * What ends a call under a best-effort memory cap: the growth of the process heap from
 * `baseline` (taken before the handler starts, so what it allocates before its first wait
 * counts), sampled on a real timer (a cap is about memory, not time, so it does not follow the
 * Clock), past the cap.
 */
const memoryCapOf = (tool: RegisteredTool, limitMb: number, baseline: number): Effect.Effect<never, MemoryLimitExceeded> =>
  Effect.callback<never, MemoryLimitExceeded>((resume) => {
    const limit = limitMb * 1024 * 1024
    const sampler = setInterval(() => {
      if (process.memoryUsage().heapUsed - baseline > limit) {
        resume(Effect.fail(new MemoryLimitExceeded({ tool: tool.name, limitMb })))
      }
    }, SAMPLE_EVERY_MS)
    return Effect.sync(() => clearInterval(sampler))
  })

/** What ends a call past its deadline, on the fiber's Clock. */
const deadlineOf = (tool: RegisteredTool, timeoutMs: number): Effect.Effect<never, ToolTimeout> =>
  Effect.flatMap(Effect.sleep(Duration.millis(timeoutMs)), () => Effect.fail(new ToolTimeout({ tool: tool.name, timeoutMs })))

/**
 * A tool's handler run under its deadline (on the fiber's Clock) and memory cap, each a
 * contender that can only fail: the handler and whichever of them apply race in one race, so
 * the first to end names the result, and the race waits for the handler's finalizers with no
 * second deadline around it that could rename a cap hit first.
 */
const guarded = (tool: RegisteredTool, run: Effect.Effect<unknown, HandlerFailure>) => {
  // a tool that keeps its own deadline (an MCP proxy) ends itself with `ToolTimeout`
  const timeoutMs = tool.timeoutMs === undefined || tool.ownDeadline === true ? undefined : tool.timeoutMs
  const deadline = timeoutMs === undefined ? undefined : deadlineOf(tool, timeoutMs)
  const limitMb = tool.memoryLimitMb
  if (limitMb === undefined) return deadline === undefined ? run : Effect.raceFirst(run, deadline)
  // the heap's baseline is taken before the handler starts: what it allocates before its first wait counts
  return Effect.suspend(() => {
    const cap = memoryCapOf(tool, limitMb, process.memoryUsage().heapUsed)
    return Effect.raceAllFirst(deadline === undefined ? [run, cap] : [run, cap, deadline])
  })
}

export const makeExecutor = Effect.gen(function*() {
  const registry = yield* ToolRegistry
  const workspace = yield* Workspace
  const confirmation = yield* ConfirmationGate
  const audit = Option.getOrElse(yield* Effect.serviceOption(AuditLog), () => noAudit)
  const installed = yield* Effect.serviceOption(ToolGates)
  const gates = Option.isSome(installed)
    ? installed.value.gates
    : builtinGates({ modeGate: yield* ModeGate, policy: yield* ToolPolicy, confirmation, rateLimiter: yield* RateLimiter })

  /** A call's arguments, decoded (first converted back from the strict export's form). */
  const prepare = (tool: RegisteredTool, input: unknown, options: ExecuteOptions | undefined) =>
    tool.prepare(options?.strictArguments === true ? fromStrictArguments(tool.spec.parameters, input) : input)

  /**
   * Resolves every path argument through the `Workspace` (an escape dies with
   * `PathTraversalError`) and writes the resolved path back into the arguments, so the handler
   * only ever sees resolved paths. A tool with side effects is refused any path under a `.git`.
   */
  const resolvePaths = (tool: RegisteredTool, call: BoundCall): Effect.Effect<ReadonlyArray<ResolvedPath>, ProtectedPath> =>
    Effect.forEach(call.paths, (slot) =>
      Effect.flatMap(workspace.resolve(slot.raw), (resolved) =>
        Reflect.set(slot.holder, slot.key, resolved)
          ? Effect.succeed(resolved)
          : Effect.die(new Error(`cannot place the resolved path of "${slot.raw}" into the arguments`))
      )).pipe(
        Effect.flatMap((paths) =>
          tool.spec.readOnly ? Effect.succeed(paths) : Effect.flatMap(workspace.root, (root) => refuseProtected(tool.name, root, paths))
        )
      )

  /** `resolvePaths`, its refusal (an escape included) recorded. */
  const resolveRecorded = (tool: RegisteredTool, call: BoundCall, record: Recorder) =>
    Effect.tapCause(resolvePaths(tool, call), (cause) =>
      Effect.sync(() => {
        const refusal = Option.orElse(pathTraversalOf(cause), () => Cause.findErrorOption(cause))
        if (Option.isSome(refusal)) record(refusedBy("paths", refusal.value))
      }))

  /** The gates, then the run, of a call whose paths are resolved. */
  const gatedRun = (
    tool: RegisteredTool,
    call: BoundCall,
    options: ExecuteOptions | undefined,
    paths: ReadonlyArray<ResolvedPath>,
    record: Recorder | undefined
  ): Effect.Effect<unknown, ToolCallError | PathTraversalError> => {
    record?.(pathsPassed(paths.length))
    const listener = options?.onProgress
    // the progress channel is set for the handler's run only, and only when someone listens
    const run = guarded(tool, listener === undefined ? call.run : withCallProgress(listener, call.run))
    const answers = ask(gatesOf(gates, options), gateCallOf(tool, call, options, paths, false), record)
    return answers === undefined ? run : behind(answers, record, run)
  }

  /** The steps after lookup: arguments → paths → gates → run; the handler's output. */
  const steps = (
    tool: RegisteredTool,
    input: unknown,
    options: ExecuteOptions | undefined,
    record: Recorder | undefined
  ): Effect.Effect<unknown, ToolCallError | PathTraversalError> => {
    const prepared = prepare(tool, input, options)
    if (Result.isFailure(prepared)) {
      record?.(refusedBy("arguments", prepared.failure))
      return Effect.fail(prepared.failure)
    }
    record?.(argumentsPassed)
    const call = prepared.success
    if (call.paths.length === 0) return gatedRun(tool, call, options, noPaths, record)
    const resolved = record === undefined ? resolvePaths(tool, call) : resolveRecorded(tool, call, record)
    return Effect.flatMap(resolved, (paths) => gatedRun(tool, call, options, paths, record))
  }

  /** A failed call's result: a refusal or failure as its code; an escape and an interruption passed on. */
  const failedWith = (tool: RegisteredTool, start: number) =>
  (cause: Cause.Cause<ToolCallError | PathTraversalError>): Effect.Effect<ToolResult.ToolExecutionResult> => {
    const traversal = pathTraversalOf(cause)
    if (Option.isSome(traversal)) return Effect.die(traversal.value)
    const failure = Cause.findErrorOption(cause)
    if (Option.isSome(failure) && failure.value._tag !== "PathTraversalError") {
      const error = failure.value
      if (error._tag !== "ToolError") return Effect.succeed(ToolResult.fromError(tool.name, tool.version, error, elapsed(start)))
      return Effect.map(workspace.root, (root) =>
        ToolResult.fromError(tool.name, tool.version, withoutHostPathDetails(error, root), elapsed(start), withoutHostPaths(error.message, root)))
    }
    if (Cause.hasInterruptsOnly(cause)) return Effect.interrupt
    const error = new ToolError({ tool: tool.name, message: `the tool crashed: ${crashMessage(cause)}`, cause })
    return Effect.as(
      Effect.logError(`Tool "${tool.name}" died`, cause),
      ToolResult.fromError(tool.name, tool.version, error, elapsed(start))
    )
  }

  /**
   * One call of a found tool, as its result; traced when a tracer is installed: a refused or
   * failed call ends its span as a failure of its code, also set as `error.type`. `seen` (when
   * audited) learns the call's span.
   */
  const runFound = (
    tool: RegisteredTool,
    input: unknown,
    options: ExecuteOptions | undefined,
    start: number,
    record: Recorder | undefined,
    seen: Seen | undefined
  ): Effect.Effect<ToolResult.ToolExecutionResult> => {
    const call = Effect.matchCauseEffect(steps(tool, input, options, record), {
      onFailure: failedWith(tool, start),
      onSuccess: (output) => Effect.succeed(ToolResult.succeed(tool.name, tool.version, output, elapsed(start)))
    })
    // a tool that asks for confirmation as it acts runs with the call's confirmation set
    const confirmed = tool.asksConfirmation === undefined ? call : withCallConfirmation(confirmation, tool, options, call)
    return Effect.withFiber((fiber) => {
      if (fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer) return confirmed
      let refused: ToolResult.ToolExecutionFailure | undefined
      const traced = Effect.flatMap(Effect.currentSpan, (span) => {
        if (seen !== undefined) seen.span = span
        return Effect.flatMap(confirmed, (result) => {
          if (result.success) return Effect.succeed(result)
          refused = result
          span.attribute(CallSpanAttributes.errorType, result.errorCode)
          return Effect.fail(result.errorCode)
        })
      })
      return traced.pipe(
        Effect.withSpan(
          `execute_tool ${tool.name}`,
          spanOptionsOf(tool, (options?.mode ?? AgentMode.Default).name, options?.callId),
          // the stack of this line is the executor's, the same for every call: not worth an `Error` per call
          noStackTrace
        ),
        Effect.catch(() => refused === undefined ? Effect.die(new Error("a traced call failed without a result")) : Effect.succeed(refused))
      )
    })
  }

  /** What an audited call learns for its record: the tool it found and the call's span. */
  interface Seen {
    tool?: RegisteredTool
    span?: Tracer.AnySpan
  }

  /** One call, as its result; `record` and `seen` (when audited) learn each decision, the tool and the span. */
  const run = (
    name: string,
    input: unknown,
    options: ExecuteOptions | undefined,
    record: Recorder | undefined,
    seen?: Seen
  ): Effect.Effect<ToolResult.ToolExecutionResult> => {
    const start = now()
    const found = registry.lookup(name, options?.versionRange)
    // an unknown name is the caller's, of any length: the result names it as its message does
    if (Result.isFailure(found)) {
      record?.(refusedBy("lookup", found.failure))
      return Effect.succeed(ToolResult.fromError(showName(name), null, found.failure, elapsed(start)))
    }
    const tool = found.success
    if (seen !== undefined) seen.tool = tool
    record?.(lookupPassed(tool))
    return runFound(tool, input, options, start, record, seen)
  }

  /** `run`, then one audit record of what happened (an escape and an interruption included). */
  const audited = (name: string, input: unknown, options: ExecuteOptions | undefined) =>
    Effect.flatMap(Effect.all([Clock.currentTimeMillis, Effect.option(Effect.currentParentSpan)]), ([startedAtMillis, parent]) => {
      const start = now()
      const decisions: Array<GateDecision> = []
      // the caller's span, unless the call makes its own
      const seen: Seen = Option.isSome(parent) ? { span: parent.value } : {}
      return Effect.onExit(run(name, input, options, (decision) => decisions.push(decision), seen), (exit) => {
        const { span, tool } = seen
        const traversal = Exit.isFailure(exit) ? pathTraversalOf(exit.cause) : Option.none()
        const result = Exit.isSuccess(exit) ? exit.value : undefined
        const errorCode = result?.errorCode ?? (Option.isSome(traversal) ? "PATH_TRAVERSAL" : null)
        const message = result?.error ?? (Option.isSome(traversal) ? traversal.value.message : null)
        return audit.write(auditRecordOf({
          startedAtMillis,
          tool,
          name,
          version: result?.version ?? tool?.version ?? null,
          options,
          mode: (options?.mode ?? AgentMode.Default).name,
          args: input,
          includeArguments: audit.includeArguments,
          gates: completed(withLateRefusal(decisions, errorCode, message), gatesOf(gates, options)),
          success: result?.success === true,
          errorCode,
          durationMs: result?.durationMs ?? elapsed(start),
          traceId: span?.traceId ?? null,
          spanId: span?.spanId ?? null
        }))
      })
    })

  const execute = (name: string, input: unknown, options?: ExecuteOptions): Effect.Effect<ToolResult.ToolExecutionResult> =>
    audit.enabled ? audited(name, input, options) : run(name, input, options, undefined)

  const explain = makeExplain({ registry, gates, prepare, resolvePaths })

  return { execute, explain } satisfies ToolExecutorService
})
