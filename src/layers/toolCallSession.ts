/**
 * One `ToolCallHandler` session: runs a turn's calls through the executor, asks the
 * `ConfirmationHandler` when a call waits for a confirmation, answers `ask_user` through the
 * `QuestionHandler`, and orders the calls so that nothing with side effects overlaps.
 *
 * @since 0.1.0
 */
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as HashSet from "effect/HashSet"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Semaphore from "effect/Semaphore"
import * as AgentMode from "../domain/AgentMode.js"
import { argumentsProblem, issuesOf } from "../domain/argumentLimits.js"
import { InvalidArguments } from "../domain/errors.js"
import { fromStrictArguments, toAnthropicTool, toOpenAIStrictTool, toOpenAITool } from "../domain/exports.js"
import { CallPathTraversal } from "../domain/callPathTraversal.js"
import { pathTraversalOf } from "../domain/errors.js"
import { readAnthropicCalls, readOpenAICalls } from "../domain/readCalls.js"
import { showName } from "../domain/shownText.js"
import { type ToolCall, type ToolCallOutcome, toAnthropicResult, toOpenAIMessage } from "../domain/toolCalls.js"
import type { ToolExecutionFailure, ToolExecutionResult } from "../domain/ToolExecutionResult.js"
import * as Text from "../domain/toolMessages.js"
import type { ConfirmationHandlerService } from "../services/ConfirmationHandler.js"
import type { QuestionHandlerService } from "../services/QuestionHandler.js"
import type { SessionOptions, ToolCallSession } from "../services/ToolCallHandler.js"
import type { ToolExecutorService } from "../services/ToolExecutor.js"
import type { ToolRegistryService } from "../services/ToolRegistry.js"
import { ASK_USER_TOOL_NAME, ASK_USER_TOOL_SPEC, AskUserParameters } from "../tools/builtin/askUser.js"

/** How many calls of one turn run at once unless the session says otherwise. */
export const DEFAULT_CONCURRENCY = 32

/** What a session runs on. */
export interface SessionDeps {
  readonly registry: ToolRegistryService
  readonly executor: ToolExecutorService
  /** The installed `ConfirmationHandler`, looked up at each use. */
  readonly confirmation: Effect.Effect<Option.Option<ConfirmationHandlerService>>
  /** The installed `QuestionHandler`, looked up at each use. */
  readonly questions: Effect.Effect<Option.Option<QuestionHandlerService>>
}

const decodeQuestion = Schema.decodeUnknownResult(AskUserParameters, { errors: "all", onExcessProperty: "error" })

const outcome = (
  call: ToolCall,
  content: string,
  isError: boolean,
  result: ToolExecutionResult | null
): ToolCallOutcome => ({ id: call.id, name: call.name, content, isError, result })

const fromResult = (call: ToolCall, result: ToolExecutionResult): ToolCallOutcome =>
  outcome(call, Text.resultText(result), !result.success, result)

/** Consecutive calls that run together (`exclusive`: one after another, alone). */
interface Group {
  readonly exclusive: boolean
  readonly calls: Array<ToolCall>
}

/** Splits a turn into groups, keeping the order: runs of shareable calls, and exclusive calls. */
const groupsOf = (calls: ReadonlyArray<ToolCall>, exclusive: (call: ToolCall) => boolean): ReadonlyArray<Group> => {
  const groups: Array<Group> = []
  for (const call of calls) {
    const alone = exclusive(call)
    const last = groups[groups.length - 1]
    if (last !== undefined && last.exclusive === alone) last.calls.push(call)
    else groups.push({ exclusive: alone, calls: [call] })
  }
  return groups
}

/** Builds a session. */
export const makeSession = (deps: SessionDeps, options: SessionOptions | undefined): Effect.Effect<ToolCallSession> =>
  Effect.gen(function*() {
    const { executor, registry } = deps
    const mode = options?.mode ?? AgentMode.Default
    const strict = options?.strict === true
    const answerEscapes = options?.pathTraversal === "answer"
    const requested = options?.concurrency
    const concurrency = requested !== undefined && Number.isFinite(requested)
      ? Math.max(1, Math.floor(requested))
      : DEFAULT_CONCURRENCY
    const approved = yield* Ref.make(HashSet.empty<string>())
    // shared calls take one permit, exclusive calls all of them: a read-write lock that also
    // holds across turns handled at the same time
    const lock = yield* Semaphore.make(concurrency)

    /** Calls that change something or involve a person run alone. */
    const isExclusive = (call: ToolCall): boolean =>
      call.malformed === undefined && (call.name === ASK_USER_TOOL_NAME || Result.match(registry.lookup(call.name), {
        onFailure: () => false,
        onSuccess: (tool) => !tool.spec.readOnly || tool.requiresConfirmation
      }))

    const execute = (call: ToolCall, args: unknown, confirm: boolean) =>
      executor.execute(call.name, args, { mode, confirm, strictArguments: call.strictArguments, callId: call.id })

    /** Asks the confirmation handler about a call that came back `CONFIRMATION_REQUIRED`. */
    const confirmAndRetry = (call: ToolCall, args: unknown, refused: ToolExecutionFailure) =>
      Effect.gen(function*() {
        const handler = yield* deps.confirmation
        if (Option.isNone(handler)) return fromResult(call, refused)
        const spec = Result.getOrUndefined(registry.lookup(call.name))?.spec
        const decision = yield* handler.value.confirm({
          tool: refused.tool,
          version: refused.version,
          arguments: call.strictArguments && spec !== undefined ? fromStrictArguments(spec.parameters, args) : args,
          reason: `"${refused.tool}" runs only after a person confirms it` +
            (spec?.readOnly === false ? " (it has side effects)" : ""),
          mode
        })
        if (!decision.approved) return outcome(call, Text.declinedText(refused, decision.reason), true, refused)
        if (decision.remember === true) yield* Ref.update(approved, HashSet.add(call.name))
        return fromResult(call, yield* execute(call, args, true))
      })

    const runTool = (call: ToolCall): Effect.Effect<ToolCallOutcome> => {
      if (Result.isFailure(call.input)) {
        return Effect.succeed(outcome(call, Text.malformedText(call.name, call.input.failure), true, null))
      }
      const args = call.input.success
      return Effect.flatMap(Ref.get(approved), (remembered) =>
        Effect.flatMap(execute(call, args, HashSet.has(remembered, call.name)), (result) =>
          !result.success && result.errorCode === "CONFIRMATION_REQUIRED"
            ? confirmAndRetry(call, args, result)
            : Effect.succeed(fromResult(call, result))))
    }

    const askUser = (call: ToolCall): Effect.Effect<ToolCallOutcome> =>
      Effect.gen(function*() {
        const handler = yield* deps.questions
        if (Option.isNone(handler)) return outcome(call, Text.askUserUnavailableText, true, null)
        if (Result.isFailure(call.input)) {
          return outcome(call, Text.malformedText(call.name, call.input.failure), true, null)
        }
        const input = call.strictArguments
          ? fromStrictArguments(ASK_USER_TOOL_SPEC.parameters, call.input.success)
          : call.input.success
        const tooBig = argumentsProblem(input)
        const decoded = tooBig === undefined
          ? Result.mapError(decodeQuestion(input ?? {}), issuesOf)
          : Result.fail([tooBig])
        if (Result.isFailure(decoded)) {
          const invalid = new InvalidArguments({ tool: ASK_USER_TOOL_NAME, issues: decoded.failure })
          return outcome(call, Text.askUserInvalidText(invalid.message), true, null)
        }
        const answer = yield* handler.value.ask(decoded.success)
        return outcome(call, Text.answerText(answer), false, null)
      })

    /**
     * A call's workspace escape: the defect, naming the call (the default), or an answer the
     * model reads, with a warning (`pathTraversal: "answer"`; the executor's audit record of
     * the call carries its id). Any other failure is the call's own and goes on as it is.
     */
    const onEscape = (call: ToolCall) => (cause: Cause.Cause<never>): Effect.Effect<ToolCallOutcome> => {
      const escape = pathTraversalOf(cause)
      if (Option.isNone(escape)) return Effect.failCause(cause)
      if (!answerEscapes) return Effect.die(new CallPathTraversal(escape.value, { tool: call.name, callId: call.id }))
      return Effect.as(
        Effect.logWarning(
          `A path of the call "${showName(call.id)}" of "${showName(call.name)}" leads out of the workspace; ` +
            "the call is answered (pathTraversal: answer)",
          escape.value.message
        ),
        outcome(call, Text.pathTraversalText(escape.value), true, null)
      )
    }

    const runOne = (call: ToolCall): Effect.Effect<ToolCallOutcome> =>
      call.malformed !== undefined
        ? Effect.succeed(outcome(call, Text.malformedCallText(call.malformed), true, null))
        : Effect.catchCause(call.name === ASK_USER_TOOL_NAME ? askUser(call) : runTool(call), onEscape(call))

    const handle = (calls: ReadonlyArray<ToolCall>): Effect.Effect<ReadonlyArray<ToolCallOutcome>> =>
      Effect.map(
        Effect.forEach(groupsOf(calls, isExclusive), (group) =>
          group.exclusive
            ? Effect.forEach(group.calls, (call) => lock.withPermits(concurrency)(runOne(call)))
            : Effect.forEach(group.calls, (call) => lock.withPermits(1)(runOne(call)), { concurrency })),
        (groups) => groups.flat()
      )

    const specs = Effect.gen(function*() {
      const listed = yield* registry.specs({ mode, tags: options?.tags })
      const questions = yield* deps.questions
      return Option.isSome(questions)
        ? [...listed.filter((spec) => spec.name !== ASK_USER_TOOL_NAME), ASK_USER_TOOL_SPEC]
        : listed
    })

    const addendum = mode.systemPromptAddendum
    const session: ToolCallSession = {
      mode,
      strict,
      systemPromptAddendum: addendum,
      systemPrompt: (system) => addendum === "" ? system : system === "" ? addendum : `${system}\n\n${addendum}`,
      specs,
      openAITools: Effect.map(specs, (list) => list.map(strict ? toOpenAIStrictTool : toOpenAITool)),
      anthropicTools: Effect.map(specs, (list) => list.map(toAnthropicTool)),
      handle,
      handleOpenAI: (calls) =>
        Effect.suspend(() =>
          Effect.map(handle(readOpenAICalls(calls, strict)), (outcomes) => outcomes.map(toOpenAIMessage))
        ),
      handleAnthropic: (content) =>
        Effect.suspend(() =>
          Effect.map(handle(readAnthropicCalls(content)), (outcomes) => outcomes.map(toAnthropicResult))
        ),
      approvedTools: Effect.map(Ref.get(approved), (set) => [...set].sort())
    }
    return session
  })
