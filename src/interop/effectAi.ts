/**
 * `@effect/ai` interop (entry point `effect-tool-system/effect-ai`): the registry as an
 * `@effect/ai` `Toolkit` with its handler layer, so that `LanguageModel.generateText({ toolkit })`
 * runs every call through our gates. Each tool keeps its own JSON Schema (the model sees
 * exactly what `ToolSystem` exports); its parameters are checked by our executor, not by
 * `@effect/ai`, so bad arguments come back to the model as a message instead of failing the
 * request. A tool call's result is the text `ToolCallHandler` would put in the conversation;
 * refusals and failures are returned as failures (`isFailure`), never raised; a workspace
 * escape is the `PathTraversalError` defect (or an answer, with the session's
 * `pathTraversal: "answer"`). `withHandler.handle` answers a call of a tool the toolkit does not
 * hold (unknown, or blocked in the mode) as `ToolCallHandler` does, a failure the model reads.
 * (`@effect/ai` 0.37's `generateText` also decodes the model's response against the toolkit's
 * own tools, after the calls are handled: a response calling such a tool still fails it with
 * `MalformedOutput` there, which this toolkit cannot reach.)
 *
 * A separate entry point: importing `effect-tool-system` never loads `@effect/ai`.
 *
 * @module effect-tool-system/effect-ai
 * @since 0.1.0
 */
import * as AiTool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type { ToolSpec } from "../domain/ToolSpec.js"
import { type SessionOptions, ToolCallHandler, type ToolCallSession } from "../services/ToolCallHandler.js"

/**
 * The parameters of every registry tool on the `@effect/ai` side: every JSON object passes. The
 * executor validates them against the tool's own schema.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AnyArguments = Schema.Struct({}, Schema.Record({ key: Schema.String, value: Schema.Unknown }))

/**
 * A registry tool as an `@effect/ai` tool: the result (or the refusal) is the text for the model.
 *
 * @since 0.1.0
 * @category models
 */
export type RegistryTool = AiTool.Tool<string, {
  readonly parameters: typeof AnyArguments
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
 * The registry on the `@effect/ai` side.
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

/** One spec as an `@effect/ai` tool carrying the spec's own JSON Schema. */
const toAiTool = (spec: ToolSpec): RegistryTool =>
  AiTool.make(spec.name, {
    description: spec.description,
    success: Schema.String,
    failure: Schema.String,
    failureMode: "return"
  }).setParameters(AnyArguments.annotations({ jsonSchema: spec.parameters }))

/**
 * The toolkit of an existing session: its mode's tools (plus `ask_user` when a `QuestionHandler` is installed).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromSession = (session: ToolCallSession): Effect.Effect<EffectAiToolkit> =>
  Effect.gen(function*() {
    const specs = yield* session.specs
    const toolkit: Toolkit.Toolkit<RegistryTools> = Toolkit.make(...specs.map(toAiTool))
    const run = (name: string) => (params: Schema.Schema.Type<typeof AnyArguments>) =>
      Effect.flatMap(
        session.handle([{ id: name, name, input: Either.right(params), strictArguments: session.strict }]),
        ([outcome]) => {
          if (outcome === undefined) return Effect.dieMessage(`no outcome for the call of "${name}"`)
          return outcome.isError ? Effect.fail(outcome.content) : Effect.succeed(outcome.content)
        }
      )
    const answerUnheld = (
      name: string,
      params: Schema.Schema.Type<typeof AnyArguments>
    ): Effect.Effect<AiTool.HandlerResult<RegistryTool>> =>
      Effect.map(Effect.either(run(name)(params)), (answer) => {
        const text = Either.merge(answer)
        return { isFailure: Either.isLeft(answer), result: text, encodedResult: text }
      })
    const handlers: Toolkit.HandlersFrom<RegistryTools> = Object.fromEntries(specs.map((spec) => [spec.name, run(spec.name)]))
    const layer = toolkit.toLayer(handlers)
    const held = yield* Effect.provide(toolkit, layer)
    // a call of a tool the toolkit does not hold (unknown, or blocked in the mode) is answered
    // as ToolCallHandler answers it, a failure the model reads, instead of `MalformedOutput`
    const withHandler: Toolkit.WithHandler<RegistryTools> = {
      tools: held.tools,
      handle: (name, params) => Object.hasOwn(held.tools, name) ? held.handle(name, params) : answerUnheld(String(name), params)
    }
    return { toolkit, layer, withHandler, session }
  })

/**
 * The registry as an `@effect/ai` toolkit, in a new `ToolCallHandler` session.
 *
 * @since 0.1.0
 * @category constructors
 *
 * @example
 * ```ts
 * import * as LanguageModel from "@effect/ai/LanguageModel"
 * import { Effect } from "effect"
 * import { AgentMode } from "effect-tool-system"
 * import { toEffectAiToolkit } from "effect-tool-system/effect-ai"
 *
 * const program = Effect.gen(function*() {
 *   const { session, withHandler } = yield* toEffectAiToolkit({ mode: AgentMode.Explore })
 *   const response = yield* LanguageModel.generateText({
 *     prompt: [
 *       { role: "system", content: session.systemPrompt("You help with this repository.") },
 *       { role: "user", content: "What does this project do?" }
 *     ],
 *     toolkit: withHandler
 *   })
 *   return response.toolResults
 * })
 * ```
 */
export const toEffectAiToolkit = (options?: SessionOptions): Effect.Effect<EffectAiToolkit, never, ToolCallHandler> =>
  Effect.flatMap(ToolCallHandler, (handler) => Effect.flatMap(handler.session(options), fromSession))
