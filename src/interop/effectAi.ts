/**
 * `effect/ai` interop (entry point `effect-tool-system/effect-ai`): the registry as an
 * `effect/ai` `Toolkit` with its handler layer, so that `LanguageModel.generateText({ toolkit })`
 * runs every call through our gates. Each tool is a `Tool.dynamic` carrying its own JSON Schema
 * (the model sees exactly what `ToolSystem` exports); its parameters are checked by our
 * executor, not by `effect/ai`, so bad arguments come back to the model as a message instead of
 * failing the request. A tool call's result is the text `ToolCallHandler` would put in the
 * conversation; refusals and failures are returned as failures (`isFailure`), never raised; a
 * workspace escape is the `PathTraversalError` defect (or an answer, with the session's
 * `pathTraversal: "answer"`). `withHandler.handle` answers a call of a tool the toolkit does not
 * hold (unknown, or blocked in the mode) as `ToolCallHandler` does, a failure the model reads.
 * (`LanguageModel.generateText` decodes the model's response against the toolkit's own tools
 * before any call is handled: a response calling such a tool fails the request there, which
 * this toolkit cannot reach.)
 *
 * Approval. A tool that requires confirmation in our registry (`requiresConfirmation`) is a
 * tool that needs approval (`needsApproval`) in `effect/ai`: when the model calls it,
 * `generateText` answers with a `tool-approval-request` instead of running it, the application
 * asks a person and sends a `tool-approval-response` in the next request, and `effect/ai` then
 * calls the handler. Our gates stay the one source of truth on both sides:
 * - whether a call needs approval is the executor's own answer (`explain` of the call, with the
 *   session's remembered approvals): approval is asked exactly when the confirmation gate is
 *   what stops the call (so `ConfirmationGate.layerAutoConfirm` asks for none, and a call that
 *   another gate refuses is not put to a person);
 * - an approval reaches our confirmation gate as the session's confirmation of that one call:
 *   the call runs through `ToolCallHandler`'s session, which asks its confirmation and runs it
 *   again with `confirm: true`, through every gate (mode, policy, paths, rate limit, the
 *   application's gates) as every confirmed call.
 * An approval is honoured only for a call this toolkit asked `effect/ai` to approve: the same
 * tool-call id, the same tool and the same arguments, and once. A call of such a tool that
 * reaches the handler otherwise (an approval in a forged history, a tool-call id used again, an
 * approval whose tool call names another tool or other arguments) is declined, with the
 * `CONFIRMATION_REQUIRED` answer, and does not run; a denied call is never handed to the
 * handler by `effect/ai`, and its approval is closed as soon as a later call is asked about in
 * a conversation holding the denial. (`effect/ai` hands an approved call over through
 * `withHandler.handle(name, params, toolCallId)`, which the application may call too: until
 * then, application code handing over a call awaiting approval, with its id, approves it.)
 * The application's `ConfirmationHandler` still answers the
 * confirmations asked at the moment of an effect (`asksConfirmation` tools, which `effect/ai`
 * cannot ask about before the call), as in `ToolCallHandler`.
 *
 * A separate entry point: importing `effect-tool-system` never loads `effect/ai`.
 *
 * @module effect-tool-system/effect-ai
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as JsonSchema from "effect/JsonSchema"
import type * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type * as Prompt from "effect/ai/Prompt"
import * as AiTool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import equal from "fast-deep-equal"
import type { ToolCall } from "../domain/toolCalls.js"
import type { ToolSpec } from "../domain/ToolSpec.js"
import { ConfirmationHandler, type ConfirmationHandlerService } from "../services/ConfirmationHandler.js"
import { type SessionOptions, ToolCallHandler, type ToolCallSession } from "../services/ToolCallHandler.js"
import { ToolExecutor, type ToolExecutorService } from "../services/ToolExecutor.js"
import { ToolRegistry } from "../services/ToolRegistry.js"

/**
 * A registry tool as an `effect/ai` tool: parameters as the model sent them (the tool's JSON
 * Schema is what the model is given; the executor validates), the result (or the refusal) as
 * the text for the model.
 *
 * @since 0.1.0
 * @category models
 */
export type RegistryTool = AiTool.Dynamic<string, {
  readonly parameters: JsonSchema.JsonSchema
  readonly success: typeof Schema.String
  readonly failure: typeof Schema.String
  readonly failureMode: "return"
}>

/**
 * The tools of an `EffectAiToolkit`, by name.
 *
 * @since 0.1.0
 * @category models
 */
export type RegistryTools = { readonly [name: string]: RegistryTool }

/**
 * The registry on the `effect/ai` side.
 *
 * @since 0.1.0
 * @category models
 */
export interface EffectAiToolkit {
  /** The toolkit: `generateText({ toolkit })` with `layer` provided. */
  readonly toolkit: Toolkit.Toolkit<RegistryTools>
  /** The handlers of every tool of `toolkit`, each call through the session's gates. */
  readonly layer: Layer.Layer<AiTool.HandlersFor<RegistryTools>>
  /** `toolkit` with its handlers: `generateText({ toolkit: withHandler })` needs nothing more. */
  readonly withHandler: Toolkit.WithHandler<RegistryTools>
  /** The session the calls run in (its mode, its remembered approvals, its system prompt addendum). */
  readonly session: ToolCallSession
}

/** How many tool-call ids the approval ledger keeps (the oldest are forgotten first: never approved). */
const LEDGER_SIZE = 4096

/** A call this toolkit asked `effect/ai` to approve, or an id that no approval opens any more. */
type LedgerEntry =
  | { readonly state: "asked"; readonly tool: string; readonly args: unknown }
  | { readonly state: "closed" }

const closed: LedgerEntry = { state: "closed" }

/**
 * The approvals this toolkit asked for, by tool-call id: `effect/ai` hands an approved call to
 * the handler, and the ledger says whether the approval is one we asked for, for this call.
 */
const makeLedger = () => {
  const entries = new Map<string, LedgerEntry>()
  const put = (id: string, entry: LedgerEntry) => {
    entries.delete(id)
    entries.set(id, entry)
    if (entries.size > LEDGER_SIZE) {
      const oldest = entries.keys().next()
      if (oldest.done !== true) entries.delete(oldest.value)
    }
  }
  return {
    /**
     * Closes the calls a conversation already answered (a `tool-result` under their id, such as
     * `effect/ai`'s `execution-denied` answer to a denied call): their approval is over.
     */
    settle: (messages: ReadonlyArray<Prompt.Message>): Effect.Effect<void> =>
      Effect.sync(() => {
        for (const message of messages) {
          if (message.role !== "tool") continue
          for (const part of message.content) {
            if (part.type === "tool-result" && entries.get(part.id)?.state === "asked") put(part.id, closed)
          }
        }
      }),
    /** Records the approval asked for a call; an id asked about twice is closed (never honoured). */
    ask: (id: string, tool: string, args: unknown): Effect.Effect<void> =>
      Effect.sync(() => put(id, entries.has(id) ? closed : { state: "asked", tool, args })),
    /**
     * Whether `effect/ai` hands over the call we asked approval for: same id, tool and
     * arguments. The id's approval is spent by its first use, whether it matches or not.
     */
    redeem: (id: string | undefined, tool: string, args: unknown): Effect.Effect<boolean> =>
      Effect.sync(() => {
        if (id === undefined) return false
        const entry = entries.get(id)
        if (entry === undefined) return false
        put(id, closed)
        return entry.state === "asked" && entry.tool === tool && equal(entry.args, args)
      })
  }
}

/** Why an unapproved call of a tool that needs approval is declined. */
const notApproved = (tool: string) =>
  `no approval of this call of "${tool}" came through the tool approval of effect/ai ` +
  "(an approval counts once, for the call it was asked for: same tool-call id, tool and arguments)"

/**
 * The confirmation of one call of a tool that needs approval, as the session asks it: yes once,
 * when `effect/ai` handed over the call it approved, and no otherwise (the application's own
 * `ConfirmationHandler` is not asked for these: their approval is `effect/ai`'s).
 */
const confirmationOf = (tool: string, approved: boolean): ConfirmationHandlerService => {
  let spent = false
  return {
    confirm: (request) =>
      Effect.sync(() => {
        if (!approved || spent || request.tool !== tool) return { approved: false, reason: notApproved(tool) }
        spent = true
        return { approved: true }
      })
  }
}

/** The text of a call's outcome as a handler result. */
const handlerResult = (content: string, isFailure: boolean): AiTool.HandlerResult<RegistryTool> => ({
  result: content,
  encodedResult: content,
  isFailure,
  preliminary: false
})

/**
 * The toolkit of an existing session: its mode's tools (plus `ask_user` when a `QuestionHandler`
 * is installed), each needing approval when our registry says it requires confirmation. The
 * flags are read from the `ToolRegistry` and the need for approval asked of the `ToolExecutor`
 * found in the context: the ones the session runs on (a `ToolSystem` layer merged under
 * `ToolCallHandler.layer` with `Layer.provideMerge` gives both).
 *
 * @since 0.1.0
 * @category constructors
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { LanguageModel } from "effect/ai"
 * import { AgentMode, ToolCallHandler } from "effect-tool-system"
 * import { fromSession } from "effect-tool-system/effect-ai"
 *
 * const program = Effect.gen(function*() {
 *   const handler = yield* ToolCallHandler
 *   const session = yield* handler.session({ mode: AgentMode.Plan })
 *   const { withHandler } = yield* fromSession(session)
 *   return yield* LanguageModel.generateText({ prompt: "Plan the change.", toolkit: withHandler })
 * })
 * ```
 */
export const fromSession = (
  session: ToolCallSession
): Effect.Effect<EffectAiToolkit, never, ToolRegistry | ToolExecutor> =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry
    const executor: ToolExecutorService = yield* ToolExecutor
    const specs = yield* session.specs
    const ledger = makeLedger()

    /** Whether our registry says the tool requires confirmation (the flag behind `needsApproval`). */
    const requiresConfirmation = (name: string): boolean =>
      Result.match(registry.lookup(name), { onFailure: () => false, onSuccess: (tool) => tool.requiresConfirmation })

    /**
     * `needsApproval` of a tool that requires confirmation: the executor's answer for this call
     * (with the session's remembered approvals) is that the confirmation gate stops it. The
     * approval asked for is recorded for this call; the calls the conversation has answered
     * since (denied ones among them) are closed.
     */
    const needsApproval = (name: string): AiTool.NeedsApprovalFunction<typeof Schema.Unknown> => (params, context) =>
      Effect.gen(function*() {
        yield* ledger.settle(context.messages)
        const remembered = yield* session.approvedTools
        const explanation = yield* executor.explain(name, params, {
          mode: session.mode,
          confirm: remembered.includes(name),
          strictArguments: session.strict,
          callId: context.toolCallId
        })
        if (explanation.errorCode !== "CONFIRMATION_REQUIRED") return false
        yield* ledger.ask(context.toolCallId, name, params)
        return true
      })

    const toAiTool = (spec: ToolSpec): RegistryTool =>
      AiTool.dynamic(spec.name, {
        description: spec.description,
        parameters: spec.parameters,
        success: Schema.String,
        failure: Schema.String,
        failureMode: "return",
        needsApproval: requiresConfirmation(spec.name) ? needsApproval(spec.name) : undefined
      })

    /**
     * One call through the session: a tool that needs approval is confirmed only when
     * `effect/ai` hands over the very call it was asked to approve.
     */
    const runCall = (name: string, params: unknown, toolCallId: string | undefined) =>
      Effect.gen(function*() {
        const call: ToolCall = {
          id: toolCallId ?? name,
          name,
          input: Result.succeed(params),
          strictArguments: session.strict
        }
        const handled = requiresConfirmation(name)
          ? Effect.provideService(
            session.handle([call]),
            ConfirmationHandler,
            confirmationOf(name, yield* ledger.redeem(toolCallId, name, params))
          )
          : session.handle([call])
        const [outcome] = yield* handled
        if (outcome === undefined) return yield* Effect.die(new Error(`no outcome for the call of "${name}"`))
        return outcome
      })

    const toolkit: Toolkit.Toolkit<RegistryTools> = Toolkit.make(...specs.map(toAiTool))
    const handlers: Toolkit.HandlersFrom<RegistryTools> = Object.fromEntries(specs.map((spec) => [
      spec.name,
      (params: unknown, context: Toolkit.HandlerContext<RegistryTool>) =>
        Effect.flatMap(
          runCall(spec.name, params, context.toolCallId),
          (outcome) => outcome.isError ? Effect.fail(outcome.content) : Effect.succeed(outcome.content)
        )
    ]))
    const layer = toolkit.toLayer(handlers)
    const held = yield* Effect.provide(toolkit, layer)
    // a call of a tool the toolkit does not hold (unknown, or blocked in the mode) is answered
    // as ToolCallHandler answers it, a failure the model reads, instead of `ToolNotFoundError`
    const answerUnheld = (name: string, params: unknown, toolCallId: string | undefined) =>
      Effect.map(
        runCall(name, params, toolCallId),
        (outcome) => Stream.succeed(handlerResult(outcome.content, outcome.isError))
      )
    const withHandler: Toolkit.WithHandler<RegistryTools> = {
      tools: held.tools,
      handle: (name, params, toolCallId, options) =>
        Object.hasOwn(held.tools, name)
          ? held.handle(name, params, toolCallId, options)
          : answerUnheld(String(name), params, toolCallId)
    }
    return { toolkit, layer, withHandler, session }
  })

/**
 * The registry as an `effect/ai` toolkit, in a new `ToolCallHandler` session. A tool that
 * requires confirmation needs approval: `generateText` returns a `tool-approval-request` for
 * its call, and the call runs (through every gate) when the next request carries the
 * approving `tool-approval-response`.
 *
 * @since 0.1.0
 * @category constructors
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { LanguageModel, Prompt } from "effect/ai"
 * import { AgentMode } from "effect-tool-system"
 * import { toEffectAiToolkit } from "effect-tool-system/effect-ai"
 *
 * // `ask` shows a person the call awaiting approval and returns their answer
 * const program = (ask: (toolCallId: string) => Effect.Effect<boolean>) =>
 *   Effect.gen(function*() {
 *     const { session, withHandler } = yield* toEffectAiToolkit({ mode: AgentMode.Default })
 *     const prompt = Prompt.make([
 *       { role: "system", content: session.systemPrompt("You help with this repository.") },
 *       { role: "user", content: "Write a summary to NOTES.md." }
 *     ])
 *     const first = yield* LanguageModel.generateText({ prompt, toolkit: withHandler })
 *     const answers = yield* Effect.forEach(
 *       first.content.filter((part) => part.type === "tool-approval-request"),
 *       (request) =>
 *         Effect.map(ask(request.toolCallId), (approved) => ({
 *           type: "tool-approval-response" as const,
 *           approvalId: request.approvalId,
 *           approved
 *         }))
 *     )
 *     // the approved calls run through every gate of the tool system, then the model goes on
 *     return yield* LanguageModel.generateText({
 *       prompt: Prompt.concat(
 *         Prompt.concat(prompt, Prompt.fromResponseParts(first.content)),
 *         [{ role: "tool", content: answers }]
 *       ),
 *       toolkit: withHandler
 *     })
 *   })
 * ```
 */
export const toEffectAiToolkit = (
  options?: SessionOptions
): Effect.Effect<EffectAiToolkit, never, ToolCallHandler | ToolRegistry | ToolExecutor> =>
  Effect.flatMap(ToolCallHandler, (handler) => Effect.flatMap(handler.session(options), fromSession))
