/**
 * `McpElicitation`: an optional service through which the MCP bridge lets a bridged server's
 * tool ask the person a question during a call (elicitation, form mode: 2025-11-25's
 * `elicitation/create`, and 2026-07-28's `input_required` results that embed one).
 *
 * Without it the bridge declares no elicitation capability, and a server that asks anyway is
 * answered as today: a 2025 `elicitation/create` gets Method not found, a 2026 `input_required`
 * result fails the call, saying so. With it the bridge declares `elicitation: { form: {} }`
 * (URL mode is not supported), bounds each question before the application sees it, and checks
 * each answer before the server sees it (`src/tools/mcp/elicitation.ts` says how).
 *
 * @since 1.0.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { McpElicitationAnswer, McpElicitationRequest } from "../tools/mcp/elicitationModels.js"
import { askThroughQuestions } from "../tools/mcp/elicitationQuestions.js"
import { QuestionHandler } from "./QuestionHandler.js"

export type {
  McpElicitationAnswer,
  McpElicitationField,
  McpElicitationFieldBase,
  McpElicitationOption,
  McpElicitationRequest,
  McpElicitationSchema,
  McpElicitationValue
} from "../tools/mcp/elicitationModels.js"

/**
 * The `McpElicitation` service interface.
 *
 * @since 1.0.0
 * @category services
 */
export interface McpElicitationService {
  /**
   * Puts a server's question to the person and answers with what they chose: `accept` with the
   * fields they filled in (leave out the ones they left empty: the form's defaults apply),
   * `decline`, or `cancel`. Show `server` (and `tool`) so the person knows who asks. The bridge
   * interrupts this effect when the call that led to the question ends, and answers `cancel`
   * when it takes longer than the bridge's `elicitationTimeout`.
   */
  readonly elicit: (request: McpElicitationRequest) => Effect.Effect<McpElicitationAnswer>
}

/**
 * Lets bridged MCP servers ask the person questions during a call.
 *
 * @since 1.0.0
 * @category services
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { ToolSystem } from "effect-tool-system"
 * import { McpElicitation } from "effect-tool-system/mcp"
 *
 * // says yes to every question with the form's defaults (a test, or a trusted server)
 * const Yes = McpElicitation.layer(() => Effect.succeed({ action: "accept", content: {} }))
 *
 * const Tools = ToolSystem.layerNode({
 *   mcpServers: { remote: { url: "https://example.com/mcp" } }
 * }).pipe(Layer.provide(Yes))
 * ```
 */
export class McpElicitation extends Context.Service<McpElicitation, McpElicitationService>()(
  "effect-tool-system/McpElicitation"
) {
  /** Answers with `elicit`. */
  static readonly layer = (elicit: McpElicitationService["elicit"]): Layer.Layer<McpElicitation> =>
    Layer.succeed(McpElicitation, { elicit })

  /**
   * Asks through the application's `QuestionHandler` (the service the `ask_user` tool uses):
   * whether to answer (naming the server and showing its message), then one question per field
   * (options as choices, yes/no as two); an optional field answered with nothing is left out.
   */
  static readonly layerFromQuestions: Layer.Layer<McpElicitation, never, QuestionHandler> = Layer.effect(
    McpElicitation,
    Effect.gen(function*() {
      const handler = yield* QuestionHandler
      return { elicit: askThroughQuestions(handler) }
    })
  )
}
