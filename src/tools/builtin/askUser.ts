/**
 * `ask_user`: a schema-only tool. Its spec is offered to the model when the application
 * installs a `QuestionHandler`; it is never registered and never executed — `ToolCallHandler`
 * intercepts the call and routes it to the handler (or answers that it is unavailable).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { parametersJsonSchema } from "../../domain/parametersSchema.js"
import { ToolSpec } from "../../domain/ToolSpec.js"

/** The name models call; `ToolCallHandler` intercepts calls to it. */
export const ASK_USER_TOOL_NAME = "ask_user"

/** The arguments of an `ask_user` call, as the model sends them (decoding fills `multi`). */
export const AskUserParameters = Schema.Struct({
  question: Schema.String.check(Schema.isMinLength(1)).annotate({
    description: "The question to ask the user, in one or two sentences"
  }),
  choices: Schema.optional(
    Schema.Array(Schema.String).annotate({
      description: "Answers the user can pick from; omit for a free-text answer"
    })
  ),
  multi: Schema.Boolean.annotate({ description: "Whether the user may pick more than one of the choices" }).pipe(
    Schema.withDecodingDefaultType(Effect.succeed(false))
  )
})

const parameters = parametersJsonSchema(AskUserParameters)

/**
 * The `ask_user` spec (read-only: asking has no side effects). Spec only: never in the
 * registry, never executed.
 *
 * @since 0.1.0
 * @category tools
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ASK_USER_TOOL_SPEC, ToolSystem } from "effect-tool-system"
 *
 * // the registry's tools and ask_user, for an application that answers the model's questions itself
 * const toolsForTheModel = Effect.gen(function*() {
 *   const system = yield* ToolSystem
 *   return [...(yield* system.openAITools()), ASK_USER_TOOL_SPEC.toOpenAITool()]
 * })
 * ```
 */
export const ASK_USER_TOOL_SPEC: ToolSpec = new ToolSpec({
  name: ASK_USER_TOOL_NAME,
  description: "Ask the user a question and wait for the answer. Use it when a decision or a fact only the user " +
    "can provide blocks the task; offer choices when the possible answers are known.",
  parameters,
  required: Array.isArray(parameters.required) ? parameters.required.filter((r) => typeof r === "string") : [],
  readOnly: true
})
