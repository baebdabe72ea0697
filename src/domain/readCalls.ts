/**
 * A model's tool calls read as they came, whatever their shape: OpenAI's `message.tool_calls`
 * and the content of an Anthropic assistant message, as `ToolCall`s. Nothing here throws. A
 * call with a wrong type at any field, a missing field or an id used twice is still a
 * `ToolCall`, with `malformed` saying what is wrong, so that it is answered under its id (a
 * stable id derived from its position when its own is not a string) and the transcript stays
 * valid.
 *
 * @since 0.3.0
 */
import * as Result from "effect/Result"
import { showText } from "./shownText.js"
import { parseArguments, type ToolCall } from "./toolCalls.js"

/** How much of an id is quoted in a message. */
const MAX_SHOWN_ID = 100

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** What a value is, for a message: `null`, `an array`, `a number`, ... */
const kindOf = (u: unknown): string =>
  u === undefined
    ? "missing"
    : u === null
    ? "null"
    : Array.isArray(u)
    ? "an array"
    : typeof u === "object"
    ? "an object"
    : `a ${typeof u}`

/** The id a call is answered under when its own is not a string: stable, from its position. */
export const derivedId = (index: number): string => `malformed_call_${index}`

/** Takes the derived id of the call at `index` (made unique among the turn's ids). */
const takeDerived = (index: number, seen: Set<string>): string => {
  let id = derivedId(index)
  while (seen.has(id)) id = `${id}_`
  seen.add(id)
  return id
}

/** A turn's calls as a list: none for nothing, one for a single call sent bare. */
const listOf = (value: unknown): ReadonlyArray<unknown> =>
  value === undefined || value === null ? [] : Array.isArray(value) ? value : [value]

/** The id of the call at `index` and what is wrong with it; `seen` holds the ids taken before it. */
const idOf = (value: unknown, index: number, seen: Set<string>): { readonly id: string; readonly problems: Array<string> } => {
  if (typeof value !== "string") {
    const id = takeDerived(index, seen)
    return { id, problems: [`its id is ${kindOf(value)}, not a string; it is answered under the id "${id}"`] }
  }
  if (seen.has(value)) {
    return {
      id: value,
      problems: [`another call of this turn has the same id "${showText(value, MAX_SHOWN_ID)}", and only the first one runs`]
    }
  }
  seen.add(value)
  return { id: value, problems: [] }
}

/** A call that is answered with `problems` instead of being run. */
const rejected = (id: string, name: unknown, problems: ReadonlyArray<string>, strictArguments: boolean): ToolCall => ({
  id,
  name: typeof name === "string" ? name : "",
  input: Result.succeed({}),
  strictArguments,
  malformed: problems.join("; ")
})

/**
 * OpenAI's `message.tool_calls`, as the model sent them (`undefined` or `null`: no calls; one
 * call outside a list: that call). `strictArguments`: the model saw the strict export.
 */
export const readOpenAICalls = (value: unknown, strictArguments: boolean): ReadonlyArray<ToolCall> => {
  const seen = new Set<string>()
  const list = Array.isArray(value) || isRecord(value) || value === undefined || value === null ? listOf(value) : undefined
  if (list === undefined) {
    return [rejected(derivedId(0), undefined, [`the tool calls are ${kindOf(value)}, not a list of calls`], strictArguments)]
  }
  return list.map((call, index): ToolCall => {
    if (!isRecord(call)) {
      const id = takeDerived(index, seen)
      return rejected(id, undefined, [`the call is ${kindOf(call)}, not an object; it is answered under the id "${id}"`], strictArguments)
    }
    const { id, problems } = idOf(call.id, index, seen)
    const fn = call.function
    if (!isRecord(fn)) {
      problems.push(`its "function" is ${kindOf(fn)}, not an object with a name and arguments`)
      return rejected(id, undefined, problems, strictArguments)
    }
    if (typeof fn.name !== "string") problems.push(`its function name is ${kindOf(fn.name)}, not a string`)
    if (typeof fn.arguments !== "string") problems.push(`its arguments are ${kindOf(fn.arguments)}, not JSON text`)
    if (problems.length > 0 || typeof fn.name !== "string" || typeof fn.arguments !== "string") {
      return rejected(id, fn.name, problems, strictArguments)
    }
    return { id, name: fn.name, input: parseArguments(fn.arguments), strictArguments }
  })
}

/**
 * The `tool_use` blocks of an Anthropic assistant message's content, as the model sent it
 * (other blocks, and a content that is text, hold no calls).
 */
export const readAnthropicCalls = (content: unknown): ReadonlyArray<ToolCall> => {
  const seen = new Set<string>()
  const calls: Array<ToolCall> = []
  listOf(content).forEach((block, index) => {
    if (!isRecord(block) || block.type !== "tool_use") return
    const { id, problems } = idOf(block.id, index, seen)
    if (typeof block.name !== "string") problems.push(`its name is ${kindOf(block.name)}, not a string`)
    if (block.input === undefined || block.input === null) problems.push(`its input is ${kindOf(block.input)}, not an object`)
    calls.push(
      problems.length > 0 || typeof block.name !== "string"
        ? rejected(id, block.name, problems, false)
        : { id, name: block.name, input: Result.succeed(block.input), strictArguments: false }
    )
  })
  return calls
}
