/**
 * How a served call that needs confirmation asks the client: the question (all of the call's
 * arguments, or plainly cut), its form (one boolean, `confirm`), the key of the answer in a
 * 2026-07-28 `input_required` result and its retried call's `inputResponses`, and whether a
 * client takes form elicitation at all (only such a client is asked; any other is refused).
 *
 * @since 1.0.0
 */
import type { ElicitRequestFormParams, Server } from "@modelcontextprotocol/server"
import { showName, showText } from "../../domain/shownText.js"

/**
 * Longest rendering of a call's arguments in a confirmation question: longer arguments are cut
 * and the question says so and how long they are (what a person approves is what runs).
 *
 * @internal
 */
export const MAX_QUESTION_ARGS = 20_000

/**
 * The confirmation question for a call: all of its arguments (or plainly cut, with their
 * length), bidi overrides and control characters shown as escapes.
 *
 * @internal
 */
export const confirmQuestion = (name: string, args: Readonly<Record<string, unknown>>): string =>
  // (arguments are an object parsed from JSON: their text is never undefined)
  `Run the tool "${showName(name)}" with ${showText(JSON.stringify(args), MAX_QUESTION_ARGS)}?`

/**
 * The question's form: one boolean, `confirm`.
 *
 * @internal
 */
export const confirmForm = (name: string, args: Readonly<Record<string, unknown>>): ElicitRequestFormParams => ({
  mode: "form",
  message: confirmQuestion(name, args),
  requestedSchema: {
    type: "object",
    properties: { confirm: { type: "boolean", title: "Run it", description: `Run "${name}" now` } },
    required: ["confirm"]
  }
})

/**
 * The key of the confirmation in an `input_required` result and in the retried call's
 * `inputResponses`.
 *
 * @internal
 */
export const CONFIRM_KEY = "confirm"

/**
 * Whether the client takes form elicitation: `elicitation: {}` means form (2025-11-25), as
 * does `elicitation: { form: {} }`.
 *
 * @internal
 */
export const asksInForms = (server: Server): boolean => {
  const elicitation = server.getClientCapabilities()?.elicitation
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined)
}
