/**
 * A bridged server's form, read and bounded before anyone sees it, and the person's answer
 * checked against it before the server does.
 *
 * The spec's form (`requestedSchema`, 2025-11-25 and 2026-07-28 alike) is an object schema of
 * primitive fields: text (length bounds, `format`), number or integer (bounds), boolean, one
 * choice (`enum`, `enum` + `enumNames`, `oneOf` of `const`/`title`) or several (an array of
 * `enum` or `anyOf` items). The SDK checks that shape before our handler runs; this reads it again
 * from `unknown` (it is a hostile server's data either way) and bounds it: the message's length,
 * the number of fields and of options, every text in it, and the whole form's size, each walked
 * at most once. A form past a bound, or that breaks the shape (a `required` key that is no field,
 * a default that is not one of its options), is refused: the bridge declines it, saying why.
 *
 * An accepted answer takes the form's defaults for the fields the person left out (SEP-1034),
 * then must match the form: no key that is no field, every required field, each value of its
 * field's kind and within its bounds. One that does not is never sent (the bridge declines).
 *
 * @since 1.0.0
 */
import * as Result from "effect/Result"
import type { McpElicitationField, McpElicitationOption, McpElicitationSchema, McpElicitationValue } from "./elicitationModels.js"

/**
 * Longest question message taken from a server, in characters.
 *
 * @internal
 */
export const MAX_ELICITATION_MESSAGE_CHARS = 4000
/**
 * Most fields in one form.
 *
 * @internal
 */
export const MAX_ELICITATION_FIELDS = 32
/**
 * Most options of one choice.
 *
 * @internal
 */
export const MAX_ELICITATION_OPTIONS = 100
/**
 * Longest text in a form (a key, a title, a description, an option, a default), in characters.
 *
 * @internal
 */
export const MAX_ELICITATION_TEXT_CHARS = 1000
/**
 * Most characters of text in one whole form (keys, titles, descriptions, options, defaults).
 *
 * @internal
 */
export const MAX_ELICITATION_SCHEMA_CHARS = 64_000
/**
 * Longest text the bridge sends in one field of an answer, in characters.
 *
 * @internal
 */
export const MAX_ELICITATION_ANSWER_CHARS = 10_000

/** A form read into fields, with its message. */
export interface ScreenedQuestion {
  readonly message: string
  readonly requestedSchema: McpElicitationSchema
  readonly fields: ReadonlyArray<McpElicitationField>
}

const FORMATS = ["email", "uri", "date", "date-time"] as const
type Format = typeof FORMATS[number]
const isFormat = (value: unknown): value is Format => FORMATS.some((format) => format === value)

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Why reading stopped: the first bound or rule a form broke. */
class Refused {
  constructor(readonly reason: string) {}
}

/** Reads one form in one walk, counting its text against `MAX_ELICITATION_SCHEMA_CHARS`. */
class FormReader {
  private chars = 0

  /** `value` as a text within the bounds, or `undefined` when absent. */
  text(value: unknown, what: string): string | undefined {
    if (value === undefined) return undefined
    if (typeof value !== "string") throw new Refused(`${what} is not a string`)
    if (value.length > MAX_ELICITATION_TEXT_CHARS) {
      throw new Refused(`${what} has ${value.length} characters (at most ${MAX_ELICITATION_TEXT_CHARS})`)
    }
    this.chars += value.length
    if (this.chars > MAX_ELICITATION_SCHEMA_CHARS) {
      throw new Refused(`the form has more than ${MAX_ELICITATION_SCHEMA_CHARS} characters of text`)
    }
    return value
  }

  /** `value` as a finite number (a non-negative whole one when `count`), or `undefined` when absent. */
  number(value: unknown, what: string, count = false): number | undefined {
    if (value === undefined) return undefined
    if (typeof value !== "number" || !Number.isFinite(value)) throw new Refused(`${what} is not a finite number`)
    if (count && (!Number.isInteger(value) || value < 0)) throw new Refused(`${what} is not a count`)
    return value
  }

  /** `value` as a text within the bounds; it must be there. */
  someText(value: unknown, what: string): string {
    const text = this.text(value, what)
    if (text === undefined) throw new Refused(`${what} is missing`)
    return text
  }

  /** The options of a choice: `enum` (named by `enumNames` when it has one per option) or `oneOf`/`anyOf` of `const`/`title`. */
  options(values: unknown, names: unknown, titled: unknown, what: string): ReadonlyArray<McpElicitationOption> {
    const list = values !== undefined ? values : titled
    if (!Array.isArray(list) || list.length === 0) throw new Refused(`${what} has no options`)
    if (list.length > MAX_ELICITATION_OPTIONS) {
      throw new Refused(`${what} has ${list.length} options (at most ${MAX_ELICITATION_OPTIONS})`)
    }
    const titles = Array.isArray(names) && names.length === list.length ? names : undefined
    const options: Array<McpElicitationOption> = []
    const seen = new Set<string>()
    for (let i = 0; i < list.length; i++) {
      const entry: unknown = list[i]
      const value = this.someText(values !== undefined ? entry : isRecord(entry) ? entry.const : undefined, `an option of ${what}`)
      if (seen.has(value)) throw new Refused(`${what} has the option "${value.slice(0, 100)}" twice`)
      seen.add(value)
      const title = titles !== undefined
        ? this.text(titles[i], `an option's name of ${what}`)
        : values === undefined && isRecord(entry)
        ? this.text(entry.title, `an option's title of ${what}`)
        : undefined
      options.push({ value, title: title === undefined || title === "" ? value : title })
    }
    return options
  }

  /** One property of the form as a field. */
  field(key: string, schema: unknown, required: boolean): McpElicitationField {
    const what = `the field "${key}"`
    if (!isRecord(schema)) throw new Refused(`${what} is not a schema`)
    const base = {
      key,
      title: this.text(schema.title, `the title of ${what}`) ?? key,
      description: this.text(schema.description, `the description of ${what}`),
      required
    }
    switch (schema.type) {
      case "string": {
        if (schema.enum !== undefined || schema.oneOf !== undefined) {
          const options = this.options(schema.enum, schema.enumNames, schema.oneOf, what)
          const fallback = this.text(schema.default, `the default of ${what}`)
          if (fallback !== undefined && !options.some((option) => option.value === fallback)) {
            throw new Refused(`the default of ${what} is not one of its options`)
          }
          return { _tag: "Choice", ...base, options, default: fallback }
        }
        const format = schema.format
        if (format !== undefined && !isFormat(format)) throw new Refused(`${what} has an unknown format`)
        return {
          _tag: "Text",
          ...base,
          minLength: this.number(schema.minLength, `the minLength of ${what}`, true),
          maxLength: this.number(schema.maxLength, `the maxLength of ${what}`, true),
          format,
          default: this.text(schema.default, `the default of ${what}`)
        }
      }
      case "number":
      case "integer":
        return {
          _tag: "Number",
          ...base,
          integer: schema.type === "integer",
          minimum: this.number(schema.minimum, `the minimum of ${what}`),
          maximum: this.number(schema.maximum, `the maximum of ${what}`),
          default: this.number(schema.default, `the default of ${what}`)
        }
      case "boolean":
        if (schema.default !== undefined && typeof schema.default !== "boolean") {
          throw new Refused(`the default of ${what} is not a boolean`)
        }
        return { _tag: "Boolean", ...base, default: schema.default }
      case "array": {
        const items = schema.items
        if (!isRecord(items)) throw new Refused(`${what} is an array without items`)
        const options = this.options(items.enum, undefined, items.anyOf, what)
        let fallback: Array<string> | undefined
        if (schema.default !== undefined) {
          if (!Array.isArray(schema.default) || schema.default.length > options.length) {
            throw new Refused(`the default of ${what} is not a list of its options`)
          }
          fallback = []
          for (const value of schema.default) {
            const text = this.someText(value, `the default of ${what}`)
            if (!options.some((option) => option.value === text)) {
              throw new Refused(`the default of ${what} is not a list of its options`)
            }
            fallback.push(text)
          }
        }
        return {
          _tag: "Choices",
          ...base,
          options,
          minItems: this.number(schema.minItems, `the minItems of ${what}`, true),
          maxItems: this.number(schema.maxItems, `the maxItems of ${what}`, true),
          default: fallback
        }
      }
      default:
        throw new Refused(`${what} is not a text, number, boolean or choice`)
    }
  }
}

/** Reads `params` (an `elicitation/create` request's, unchecked) as a form question. */
const read = (params: unknown): ScreenedQuestion => {
  if (!isRecord(params)) throw new Refused("the request has no parameters")
  if (params.mode !== undefined && params.mode !== "form") {
    throw new Refused(`it asks in "${String(params.mode).slice(0, 40)}" mode; the bridge takes form questions only`)
  }
  const message = params.message
  if (typeof message !== "string") throw new Refused("its message is not a string")
  if (message.length > MAX_ELICITATION_MESSAGE_CHARS) {
    throw new Refused(`its message has ${message.length} characters (at most ${MAX_ELICITATION_MESSAGE_CHARS})`)
  }
  const schema = params.requestedSchema
  if (!isRecord(schema) || schema.type !== "object" || !isRecord(schema.properties)) {
    throw new Refused("its requestedSchema is not an object schema with properties")
  }
  const declared = schema.properties
  const keys = Object.keys(declared)
  if (keys.length > MAX_ELICITATION_FIELDS) {
    throw new Refused(`its form has ${keys.length} fields (at most ${MAX_ELICITATION_FIELDS})`)
  }
  const reader = new FormReader()
  for (const key of keys) reader.someText(key, "a field's key")
  const required = new Set<string>()
  if (schema.required !== undefined) {
    if (!Array.isArray(schema.required) || schema.required.length > keys.length) {
      throw new Refused("its required list is not a list of its fields")
    }
    for (const key of schema.required) {
      if (typeof key !== "string" || !Object.hasOwn(declared, key)) {
        throw new Refused("its required list names a field the form does not have")
      }
      required.add(key)
    }
  }
  const fields = keys.map((key) => reader.field(key, declared[key], required.has(key)))
  const properties = Object.fromEntries(keys.map((key) => [key, toRecord(declared[key])]))
  return {
    message,
    requestedSchema: { type: "object", properties, ...(required.size === 0 ? {} : { required: [...required] }) },
    fields
  }
}

/** A field's schema (read as one already) as a record. */
const toRecord = (value: unknown): Readonly<Record<string, unknown>> => (isRecord(value) ? value : {})

/**
 * The question `params` asks (an `elicitation/create` request's parameters, unchecked), or why
 * the bridge refuses it.
 *
 * @internal
 */
export const screenQuestion = (params: unknown): Result.Result<ScreenedQuestion, string> => {
  try {
    return Result.succeed(read(params))
  } catch (error) {
    if (error instanceof Refused) return Result.fail(error.reason)
    throw error
  }
}

/**
 * `content` with the default of each field it leaves out (SEP-1034: a person who leaves a field
 * empty takes the value the server proposed).
 *
 * @internal
 */
export const withDefaults = (
  fields: ReadonlyArray<McpElicitationField>,
  content: Readonly<Record<string, unknown>>
): Record<string, unknown> => {
  const entries: Array<[string, unknown]> = Object.keys(content).map((key) => [key, content[key]])
  for (const field of fields) {
    if (!Object.hasOwn(content, field.key) && field.default !== undefined) entries.push([field.key, field.default])
  }
  // (fromEntries makes own properties: a field named "__proto__" stays a field)
  return Object.fromEntries(entries)
}

const EMAIL = /^[^\s@]+@[^\s@]+$/
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/

/** Whether `text` is a calendar date `YYYY-MM-DD`. */
const isDate = (text: string): boolean => {
  const parts = DATE.exec(text)
  if (parts === null) return false
  const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])]
  const date = new Date(Date.UTC(year, month - 1, day))
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

/** Whether `text` is written in `format`. */
const hasFormat = (text: string, format: Format): boolean => {
  switch (format) {
    case "email":
      return EMAIL.test(text)
    case "uri":
      return URL.canParse(text)
    case "date":
      return isDate(text)
    case "date-time":
      return DATE_TIME.test(text) && isDate(text.slice(0, 10)) && !Number.isNaN(Date.parse(text))
  }
}

/** `value` as a value of `field`, or why it is not one. */
const fieldValue = (field: McpElicitationField, value: unknown): McpElicitationValue | Refused => {
  switch (field._tag) {
    case "Text": {
      if (typeof value !== "string") return new Refused("is not a text")
      if (value.length > MAX_ELICITATION_ANSWER_CHARS) return new Refused(`has more than ${MAX_ELICITATION_ANSWER_CHARS} characters`)
      const length = [...value].length
      if (field.minLength !== undefined && length < field.minLength) return new Refused(`is shorter than ${field.minLength} characters`)
      if (field.maxLength !== undefined && length > field.maxLength) return new Refused(`is longer than ${field.maxLength} characters`)
      if (field.format !== undefined && !hasFormat(value, field.format)) return new Refused(`is not a valid ${field.format}`)
      return value
    }
    case "Number":
      if (typeof value !== "number" || !Number.isFinite(value)) return new Refused("is not a number")
      if (field.integer && !Number.isInteger(value)) return new Refused("is not a whole number")
      if (field.minimum !== undefined && value < field.minimum) return new Refused(`is below ${field.minimum}`)
      if (field.maximum !== undefined && value > field.maximum) return new Refused(`is above ${field.maximum}`)
      return value
    case "Boolean":
      return typeof value === "boolean" ? value : new Refused("is not a yes or no")
    case "Choice":
      return typeof value === "string" && field.options.some((option) => option.value === value)
        ? value
        : new Refused("is not one of its options")
    case "Choices": {
      if (!Array.isArray(value) || value.length > field.options.length) return new Refused("is not a list of its options")
      const picked: Array<string> = []
      for (const item of value) {
        if (typeof item !== "string" || !field.options.some((option) => option.value === item) || picked.includes(item)) {
          return new Refused("is not a list of its options")
        }
        picked.push(item)
      }
      if (field.minItems !== undefined && picked.length < field.minItems) return new Refused(`has fewer than ${field.minItems} picks`)
      if (field.maxItems !== undefined && picked.length > field.maxItems) return new Refused(`has more than ${field.maxItems} picks`)
      return picked
    }
  }
}

/**
 * `content` as the answer's content when it matches the form (every required field, no other
 * key, each value of its field's kind within its bounds), or why it does not.
 *
 * @internal
 */
export const checkContent = (
  fields: ReadonlyArray<McpElicitationField>,
  content: unknown
): Result.Result<Record<string, McpElicitationValue>, string> => {
  if (!isRecord(content)) return Result.fail("the content is not an object")
  const byKey = new Map(fields.map((field) => [field.key, field]))
  const entries: Array<[string, McpElicitationValue]> = []
  for (const key of Object.keys(content)) {
    const field = byKey.get(key)
    if (field === undefined) return Result.fail(`"${key.slice(0, 100)}" is not a field of the form`)
    const value = fieldValue(field, content[key])
    if (value instanceof Refused) return Result.fail(`the field "${key}" ${value.reason}`)
    entries.push([key, value])
  }
  for (const field of fields) {
    if (field.required && !Object.hasOwn(content, field.key)) return Result.fail(`the required field "${field.key}" is missing`)
  }
  return Result.succeed(Object.fromEntries(entries))
}
