/**
 * The schema side of a tool: what a model sees.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"

/**
 * A JSON Schema object, as produced by `JSONSchema.make` and consumed by model APIs.
 *
 * @since 0.1.0
 * @category models
 */
export interface JsonSchema {
  readonly [key: string]: unknown
}

/**
 * The OpenAI function-calling shape of a tool.
 *
 * @since 0.1.0
 * @category models
 */
export interface OpenAITool {
  readonly type: "function"
  readonly function: {
    readonly name: string
    readonly description: string
    readonly parameters: JsonSchema
    readonly strict?: boolean
  }
}

/**
 * A tool's spec: name, description, parameter JSON Schema, required fields and the
 * `readOnly` flag that read-only agent modes check.
 *
 * @since 0.1.0
 * @category models
 *
 * @example
 * ```ts
 * import { readFile } from "effect-tool-system"
 *
 * readFile.spec.toOpenAITool() // { type: "function", function: { name: "read_file", description, parameters } }
 * ```
 */
export class ToolSpec extends Data.Class<{
  readonly name: string
  readonly description: string
  readonly parameters: JsonSchema
  readonly required: ReadonlyArray<string>
  readonly readOnly: boolean
}> {
  /** The OpenAI function-calling shape: `{ type: "function", function: { ... } }`. */
  toOpenAITool(): OpenAITool {
    return {
      type: "function",
      function: { name: this.name, description: this.description, parameters: this.parameters }
    }
  }
}

/**
 * The names a parameter JSON Schema lists as `required` (its strings; none when it lists none).
 *
 * @internal
 */
export const requiredOf = (parameters: JsonSchema): ReadonlyArray<string> =>
  Array.isArray(parameters.required) ? parameters.required.filter((r): r is string => typeof r === "string") : []

/**
 * A spec whose parameter JSON Schema (and so `required`) is made when first read, once, then
 * kept. For the library's own tools: the command line's `list` starts without making any of the
 * 52 (about 6 ms of its start), and their schemas are pinned by a snapshot test, so the error a
 * bad one would raise is found there rather than when the module loads. The two fields are own,
 * enumerable properties as on any spec (a spread, `JSON.stringify` or a comparison reads them).
 *
 * @internal
 */
export const lazyToolSpec = (
  fields: { readonly name: string; readonly description: string; readonly readOnly: boolean },
  makeParameters: () => JsonSchema
): ToolSpec => {
  let made: { readonly parameters: JsonSchema; readonly required: ReadonlyArray<string> } | undefined
  const read = () => {
    if (made === undefined) {
      const parameters = makeParameters()
      made = { parameters, required: requiredOf(parameters) }
    }
    return made
  }
  const spec = new ToolSpec({ ...fields, parameters: {}, required: [] })
  Object.defineProperties(spec, {
    parameters: { enumerable: true, get: () => read().parameters },
    required: { enumerable: true, get: () => read().required }
  })
  return spec
}

/**
 * Names a model API accepts: 1 to 64 of `[a-zA-Z0-9_-]`.
 *
 * @internal
 */
export const NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/
