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
 * Names a model API accepts: 1 to 64 of `[a-zA-Z0-9_-]`.
 *
 * @internal
 */
export const NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/
