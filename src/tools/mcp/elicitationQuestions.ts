/**
 * A bridged server's question put to the person through the application's `QuestionHandler`
 * (the service `ask_user` uses): first whether to answer at all (answer, decline or cancel),
 * naming the server (and the tool) that asks and showing its message, then one question per
 * field: a choice as its options, a yes/no as two, a multiple choice as options to pick several
 * of, a text or a number as free text.
 *
 * Everything a server wrote is shown escaped (`showText`: bidi overrides and control characters
 * as visible escapes), so what the person reads is what the server sent. An optional field
 * answered with nothing is left out (its default then applies); an answer that is no value of
 * its field (a word for a number, a choice not offered) is asked again, up to
 * `MAX_FIELD_TRIES` times, after which the question is cancelled.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import { showText } from "../../domain/shownText.js"
import type { Answer, QuestionHandlerService } from "../../services/QuestionHandler.js"
import type {
  McpElicitationAnswer,
  McpElicitationField,
  McpElicitationRequest,
  McpElicitationValue
} from "./elicitationModels.js"
import { MAX_ELICITATION_MESSAGE_CHARS, MAX_ELICITATION_TEXT_CHARS } from "./elicitationSchema.js"

/** How many times one field is asked before the question is cancelled. */
const MAX_FIELD_TRIES = 3

const ANSWER = "answer"
const ACCEPT = "accept"
const DECLINE = "decline"
const CANCEL = "cancel"
const YES = "yes"
const NO = "no"
const SKIP = "(leave it out)"

/** A field's value read from the person's answer: the value, `undefined` (left out), or why it is none. */
type Read = { readonly _tag: "Value"; readonly value: McpElicitationValue } | { readonly _tag: "Empty" } | { readonly _tag: "Wrong"; readonly why: string }

const text = (answer: Answer): string => (typeof answer === "string" ? answer : answer.join(", ")).trim()

/** The option of `field` whose title (or value) the person picked. */
const optionValue = (field: McpElicitationField & { readonly _tag: "Choice" | "Choices" }, picked: string): string | undefined =>
  (field.options.find((option) => option.title === picked) ?? field.options.find((option) => option.value === picked))?.value

/** The question for `field` and how its answer is read. */
const fieldQuestion = (
  field: McpElicitationField,
  who: string
): { readonly question: string; readonly choices?: ReadonlyArray<string>; readonly multi: boolean; readonly read: (answer: Answer) => Read } => {
  const shown = showText(field.title, MAX_ELICITATION_TEXT_CHARS)
  const about = field.description === undefined ? "" : ` (${showText(field.description, MAX_ELICITATION_TEXT_CHARS)})`
  const fallback = field.default === undefined ? "" : `; left out, it is ${showText(JSON.stringify(field.default), 200)}`
  const optional = field.required ? "" : `; you may leave it out${fallback}`
  const question = `${who} asks for "${shown}"${about}${optional}`
  const empty = (): Read => (field.required ? { _tag: "Wrong", why: "it is required" } : { _tag: "Empty" })
  switch (field._tag) {
    case "Boolean":
      return {
        question,
        choices: field.required ? [YES, NO] : [YES, NO, SKIP],
        multi: false,
        read: (answer) => {
          const picked = text(answer)
          return picked === YES ? { _tag: "Value", value: true } : picked === NO ? { _tag: "Value", value: false } : empty()
        }
      }
    case "Choice":
      return {
        question,
        choices: [...field.options.map((option) => option.title), ...(field.required ? [] : [SKIP])],
        multi: false,
        read: (answer) => {
          const picked = text(answer)
          const value = optionValue(field, picked)
          return value !== undefined ? { _tag: "Value", value } : picked === "" || picked === SKIP ? empty() : { _tag: "Wrong", why: "it is not one of the options" }
        }
      }
    case "Choices":
      return {
        question,
        choices: field.options.map((option) => option.title),
        multi: true,
        read: (answer) => {
          const picks = typeof answer === "string" ? (answer.trim() === "" ? [] : [answer.trim()]) : answer
          if (picks.length === 0) return field.required ? { _tag: "Value", value: [] } : { _tag: "Empty" }
          const values: Array<string> = []
          for (const picked of picks) {
            const value = optionValue(field, picked)
            if (value === undefined) return { _tag: "Wrong", why: `"${showText(picked, 100)}" is not one of the options` }
            values.push(value)
          }
          return { _tag: "Value", value: values }
        }
      }
    case "Number":
      return {
        question,
        multi: false,
        read: (answer) => {
          const written = text(answer)
          if (written === "") return empty()
          const value = Number(written)
          return Number.isFinite(value) && (!field.integer || Number.isInteger(value))
            ? { _tag: "Value", value }
            : { _tag: "Wrong", why: field.integer ? "it is not a whole number" : "it is not a number" }
        }
      }
    case "Text":
      return {
        question,
        multi: false,
        read: (answer) => {
          const written = typeof answer === "string" ? answer : answer.join(", ")
          return written === "" ? empty() : { _tag: "Value", value: written }
        }
      }
  }
}

/**
 * Puts `request` to the person through `handler`.
 *
 * @internal
 */
export const askThroughQuestions = (handler: QuestionHandlerService) => (request: McpElicitationRequest): Effect.Effect<McpElicitationAnswer> =>
  Effect.gen(function*() {
    const tool = request.tool === undefined ? "" : ` (for its tool "${showText(request.tool, 100)}")`
    const who = `The MCP server "${showText(request.server, 100)}"${tool}`
    const first = yield* handler.ask({
      question: `${who} asks: ${showText(request.message, MAX_ELICITATION_MESSAGE_CHARS)}`,
      choices: [request.fields.length === 0 ? ACCEPT : ANSWER, DECLINE, CANCEL],
      multi: false
    })
    const chosen = text(first)
    if (chosen === DECLINE) return { action: "decline" }
    if (chosen !== ANSWER && chosen !== ACCEPT) return { action: "cancel" }
    const content: Array<[string, McpElicitationValue]> = []
    for (const field of request.fields) {
      const { read, ...question } = fieldQuestion(field, who)
      let why = ""
      let tries = 0
      for (;;) {
        if (tries === MAX_FIELD_TRIES) return { action: "cancel" }
        tries += 1
        const got = read(yield* handler.ask(why === "" ? question : { ...question, question: `${question.question} (again: ${why})` }))
        if (got._tag === "Wrong") {
          why = got.why
          continue
        }
        if (got._tag === "Value") content.push([field.key, got.value])
        break
      }
    }
    // (fromEntries makes own properties: a field named "__proto__" stays a field)
    return { action: "accept", content: Object.fromEntries(content) }
  })
