/**
 * A bridged server's questions to the person (elicitation, form mode), answered through the
 * application's `McpElicitation` service: one desk per connection.
 *
 * Both eras come here. A 2025-11-25 server sends `elicitation/create` requests (over stdio, or
 * on the HTTP stream of a call); a 2026-07-28 server answers a call `input_required` with the
 * question inside, and the SDK client's multi-round-trip driver hands each embedded
 * `elicitation/create` to the same handler, then sends the call again with the answers and the
 * server's `requestState` echoed byte for byte, on a fresh request id, at most
 * `MAX_INPUT_ROUNDS` times a call (past it the call fails, saying so).
 *
 * The questions reach the desk as they came, not through the SDK's own check of them
 * (`AnsweringClient`): that check runs the SDK's schemas over the whole form, twice, and on a
 * hostile server's 8.8 MB form of 100,000 fields it held the event loop about 1 s each time
 * (measured, on a loaded machine); the desk reads the form itself, bounded, in a few
 * milliseconds, and declines what it refuses, saying why. URL-mode questions are not supported:
 * the capability declared is `elicitation: { form: {} }`, and one that comes anyway is declined.
 *
 * What the desk adds, in this order:
 * - a question comes only within a call of ours: one that comes while no call to that server is
 *   in flight (a server pestering the person between calls) is declined;
 * - the form is read and bounded (`elicitationSchema.ts`): one past a bound is declined, and the
 *   reason logged;
 * - one question at a time per connection, with at most `MAX_WAITING_QUESTIONS` waiting: more
 *   are declined (a server cannot flood the person);
 * - the question is put (`McpElicitation.elicit`) with the server's name, and the tool when the
 *   calls in flight are all of one; no answer within the timeout is `cancel`;
 * - an accepted answer takes the form's defaults for the fields left out (SEP-1034), and is sent
 *   only when it matches the form; otherwise the desk declines, logging why.
 *
 * A question belongs to the calls in flight when it came: when the last of them ends (answered,
 * failed, timed out, or interrupted), the question is withdrawn (its fiber interrupted) and
 * `cancel` answered, so an interrupted call leaves no question pending. Closing the connection's
 * scope withdraws every question.
 *
 * @since 1.0.0
 */
import {
  Client,
  type ClientContext,
  type ClientOptions,
  type ElicitResult,
  type Implementation,
  type JSONRPCRequest,
  type RequestId,
  type Result as McpResult,
  SdkError,
  SdkErrorCode
} from "@modelcontextprotocol/client"
import type * as Context from "effect/Context"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Semaphore from "effect/Semaphore"
import { showName } from "../../domain/shownText.js"
import type { McpElicitationService } from "../../services/McpElicitation.js"
import type { CallAnswer, ToolCalls } from "./directCalls.js"
import type { McpElicitationAnswer, McpElicitationRequest, McpElicitationValue } from "./elicitationModels.js"
import { checkContent, screenQuestion, withDefaults } from "./elicitationSchema.js"
import { liveClock } from "./process.js"

/**
 * Most rounds of `input_required` one call may go through (2026-07-28): each round is a
 * question and the call sent again; a server that asks without end fails the call.
 *
 * @internal
 */
export const MAX_INPUT_ROUNDS = 8
/**
 * Most questions of one connection waiting behind the one being answered; more are declined.
 *
 * @internal
 */
export const MAX_WAITING_QUESTIONS = 4
/**
 * How long a person has to answer, by default.
 *
 * @internal
 */
export const DEFAULT_ELICITATION_TIMEOUT = Duration.minutes(5)

/**
 * What the bridge needs to answer questions: the application's service and how long to wait.
 *
 * @internal
 */
export interface ElicitationOptions {
  readonly service: McpElicitationService
  readonly timeout: Duration.Duration
}

/**
 * The capability the bridge declares when it answers questions: form mode (URL mode is not
 * supported).
 *
 * @internal
 */
export const ELICITATION_CAPABILITIES = { elicitation: { form: {} } }

/**
 * One connection's questions.
 *
 * @internal
 */
export interface ElicitationDesk {
  /** `calls`, with each call's life known to the desk (a question belongs to the calls in flight). */
  readonly track: (calls: ToolCalls) => ToolCalls
  /** A client that answers `elicitation/create` (2025 requests, 2026 embedded ones) at this desk. */
  readonly client: (info: Implementation, options: ClientOptions) => Client
  /** Withdraws every question (the connection's scope closed). */
  readonly close: () => void
}

interface Question {
  /** The calls in flight when it came (keys of `inFlight`); withdrawn when none is left. */
  readonly calls: Set<number>
  readonly withdraw: AbortController
}

type RequestHandler = (request: JSONRPCRequest, ctx: ClientContext) => Promise<McpResult>

/**
 * SDK v2's `Client`, its `elicitation/create` handler the desk's `answer`, given the request's
 * parameters as they came: the SDK's `_wrapHandler` (a hook it keeps for subclasses) is where
 * the base class puts its own check of the question (its schemas over the whole form, twice)
 * around the handler; this one puts the desk there instead, and leaves every other method's
 * handler as it is (the base class wraps only `elicitation/create` and `sampling/createMessage`,
 * and the bridge answers no sampling). The 2026 driver dispatches an embedded question through
 * the same stored handler, so both eras come to the desk.
 */
class AnsweringClient extends Client {
  constructor(
    info: Implementation,
    options: ClientOptions,
    private readonly answer: (params: unknown, signal: AbortSignal) => Promise<ElicitResult>
  ) {
    super(info, options)
  }

  protected override _wrapHandler(method: string, handler: RequestHandler): RequestHandler {
    // (called by the base constructor too, for `ping`, before `answer` is set)
    if (method !== "elicitation/create") return handler
    return (request, ctx) => this.answer(request.params, ctx.mcpReq.signal)
  }
}

const CANCEL: ElicitResult = { action: "cancel" }
const DECLINE: ElicitResult = { action: "decline" }

/** A value as the SDK's answer types it. */
const wireValue = (value: McpElicitationValue): string | number | boolean | Array<string> =>
  typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? value : [...value]

/** The answer as the SDK sends it (`content` only with `accept`). */
const toResult = (answer: McpElicitationAnswer): ElicitResult =>
  answer.action === "accept" && answer.content !== undefined
    ? { action: "accept", content: Object.fromEntries(Object.entries(answer.content).map(([key, value]) => [key, wireValue(value)])) }
    : { action: answer.action }

/**
 * The desk of `server`'s connection. Its work runs in `context` (the connecting fiber's: the
 * log lines go where the bridge's go).
 *
 * @internal
 */
export const makeElicitationDesk = (
  server: string,
  options: ElicitationOptions,
  context: Context.Context<never>
): ElicitationDesk => {
  const inFlight = new Map<number, string>()
  const questions = new Set<Question>()
  const turn = Semaphore.makeUnsafe(1)
  let nextCall = 0
  let closed = false
  const who = `MCP server "${showName(server)}"`

  const ended = (key: number) => {
    inFlight.delete(key)
    for (const question of questions) {
      if (question.calls.delete(key) && question.calls.size === 0) question.withdraw.abort()
    }
  }

  /**
   * `calls`, each call known to the desk while it is in flight, and held to its `timeoutMs` as a
   * whole: on a 2026 connection the SDK's driver times each leg of an `input_required` flow, not
   * the flow, so a call that asks could outlive its deadline by the person's time and the
   * rounds'. Past it the call is cancelled (its question withdrawn) and fails with the request
   * timeout the SDK gives a leg, which the proxy reports as the call's own (`TIMEOUT`).
   */
  const track = (calls: ToolCalls): ToolCalls => {
    const keys = new Map<RequestId, { readonly key: number; readonly timer: ReturnType<typeof setTimeout> }>()
    return {
      // (what comes after `answer`, the call's headers, its progress, goes through as it is)
      call: (params, timeoutMs, answer, ...rest) => {
        const key = ++nextCall
        inFlight.set(key, params.name)
        let id: RequestId | undefined
        let done = false
        const finish = (result: CallAnswer) => {
          if (done) return
          done = true
          const entry = id === undefined ? undefined : keys.get(id)
          if (id !== undefined) keys.delete(id)
          if (entry !== undefined) clearTimeout(entry.timer)
          ended(key)
          answer(result)
        }
        id = calls.call(params, timeoutMs, finish, ...rest)
        if (id !== undefined && !done) {
          const sent = id
          const timer = setTimeout(() => {
            calls.cancel(sent, "Request timed out")
            finish({ ok: false, error: new SdkError(SdkErrorCode.RequestTimeout, "Request timed out", { timeout: timeoutMs }) })
          }, timeoutMs)
          keys.set(sent, { key, timer })
        }
        return id
      },
      cancel: (id, reason) => {
        const entry = keys.get(id)
        keys.delete(id)
        calls.cancel(id, reason)
        if (entry === undefined) return
        clearTimeout(entry.timer)
        ended(entry.key)
      }
    }
  }

  /** Declines, logging why. */
  const decline = (reason: string) => Effect.as(Effect.logWarning(`${who}: its question is declined: ${reason}`), DECLINE)

  /** What the person answers to the question `params`, as the server is to get it. */
  const decide = (params: unknown, calls: ReadonlySet<number>): Effect.Effect<ElicitResult> =>
    Effect.gen(function*() {
      if (closed) return CANCEL
      if (calls.size === 0) return yield* decline("no call of ours to it is in flight")
      if (questions.size > MAX_WAITING_QUESTIONS + 1) {
        return yield* decline(`more than ${MAX_WAITING_QUESTIONS} questions wait already`)
      }
      const screened = screenQuestion(params)
      if (Result.isFailure(screened)) return yield* decline(screened.failure)
      const { fields, message, requestedSchema } = screened.success
      const tools = new Set([...calls].map((key) => inFlight.get(key)))
      const [tool] = tools
      const request: McpElicitationRequest = {
        server,
        ...(tools.size === 1 && tool !== undefined ? { tool } : {}),
        message,
        requestedSchema,
        fields
      }
      const answer = yield* turn.withPermits(1)(options.service.elicit(request)).pipe(
        Effect.timeoutOrElse({
          duration: options.timeout,
          orElse: () =>
            Effect.as(
              Effect.logWarning(`${who}: its question was not answered within ${Duration.format(options.timeout)} (cancelled)`),
              undefined
            )
        }),
        Effect.provideService(Clock.Clock, liveClock),
        Effect.catchDefect((defect) =>
          Effect.as(Effect.logError(`${who}: answering its question failed (cancelled)`, defect), undefined)
        )
      )
      if (answer === undefined) return CANCEL
      if (answer.action !== "accept") return toResult(answer)
      const checked = checkContent(fields, withDefaults(fields, answer.content ?? {}))
      if (Result.isFailure(checked)) return yield* decline(`the answer does not match its form: ${checked.failure}`)
      return toResult({ action: "accept", content: checked.success })
    })

  const answer = async (params: unknown, signal: AbortSignal): Promise<ElicitResult> => {
    const question: Question = { calls: new Set(inFlight.keys()), withdraw: new AbortController() }
    const withdraw = () => question.withdraw.abort()
    signal.addEventListener("abort", withdraw, { once: true })
    if (signal.aborted) withdraw()
    questions.add(question)
    try {
      return await Effect.runPromiseWith(context)(decide(params, question.calls), { signal: question.withdraw.signal })
    } catch (error) {
      // withdrawn (its calls ended, the server cancelled it, the scope closed): the fiber was interrupted
      if (question.withdraw.signal.aborted) return CANCEL
      throw error
    } finally {
      questions.delete(question)
      signal.removeEventListener("abort", withdraw)
    }
  }

  return {
    track,
    client: (info, options) => {
      const made = new AnsweringClient(info, options, answer)
      // the handler given here is never called: AnsweringClient puts the desk in its place
      made.setRequestHandler("elicitation/create", () => Promise.resolve(CANCEL))
      return made
    },
    close: () => {
      closed = true
      for (const question of questions) question.withdraw.abort()
    }
  }
}
