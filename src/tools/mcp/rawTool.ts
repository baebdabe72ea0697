/**
 * A tool whose parameters are a raw JSON Schema (not an Effect Schema): what an MCP proxy
 * is. The arguments are checked with ajv (compiled once, here) before the handler runs; the
 * handler receives them as they came.
 *
 * Such a tool has no `WorkspacePath` fields: the executor resolves nothing, the mode gate
 * sees no paths, and it is never a scoped write. A read-only mode lets it through only when
 * it is `readOnly`.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { argumentsProblem } from "../../domain/argumentLimits.js"
import {
  InvalidArguments,
  InvalidToolDefinition,
  McpToolChanged,
  type PathTraversalError,
  ToolError,
  type ToolTimeout
} from "../../domain/errors.js"
import type { HandlerFailure, PreparedCall, Tool } from "../../domain/Tool.js"
import { type JsonSchema, requiredOf, ToolSpec } from "../../domain/ToolSpec.js"
import type { PathSlot } from "../../domain/WorkspacePath.js"
import { definitionBasics, isOwnFailure, messageOf } from "../definition.js"
import { compileArgumentsValidator } from "./jsonSchema.js"

/**
 * What `makeRawTool` takes.
 *
 * @since 0.1.0
 * @category models
 */
export interface RawToolOptions<R> {
  readonly description: string
  /** The parameters' JSON Schema (an object schema). */
  readonly parameters: JsonSchema
  readonly readOnly?: boolean
  readonly requiresConfirmation?: boolean
  readonly tags?: ReadonlyArray<string>
  /** A semver version. Default `1.0.0`. */
  readonly version?: string
  /** Run timeout; default 60 s; `"none"` for no timeout. */
  readonly timeout?: Duration.Input | "none"
  /**
   * The handler keeps the timeout itself: it ends with `ToolTimeout` (naming this tool) when
   * `timeout` has passed, and the executor sets no timer of its own (`ToolInfo.ownDeadline`).
   */
  readonly ownDeadline?: boolean
  readonly rateLimitRpm?: number
  /**
   * The handler gets the arguments as validated (an object). An `McpToolChanged` failure
   * (a held MCP proxy) reaches the result as `MCP_TOOL_CHANGED`, a `ToolTimeout` naming this
   * tool as `TIMEOUT`.
   */
  readonly handler: (
    args: Readonly<Record<string, unknown>>
  ) => Effect.Effect<unknown, ToolError | ToolTimeout | McpToolChanged, R>
}

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const noPaths: ReadonlyArray<PathSlot> = []

/**
 * Defines a tool from a raw JSON Schema. Throws `InvalidToolDefinition` for a bad name or
 * version, or a schema ajv cannot compile.
 *
 * @since 0.1.0
 * @category constructors
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { makeRawTool } from "effect-tool-system/mcp"
 *
 * const echo = makeRawTool("echo", {
 *   description: "Echoes its text",
 *   parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
 *   readOnly: true,
 *   handler: (args) => Effect.succeed(args.text)
 * })
 * ```
 */
export const makeRawTool = <R>(name: string, options: RawToolOptions<R>): Tool<R> => {
  const { timeoutMs, version } = definitionBasics(name, options)
  if (options.parameters.type !== undefined && options.parameters.type !== "object") {
    throw new InvalidToolDefinition({ name, reason: `parameters: the schema's type must be "object"` })
  }

  let compiled
  try {
    compiled = compileArgumentsValidator(options.parameters)
  } catch (cause) {
    throw new InvalidToolDefinition({ name, reason: `parameters: ${messageOf(cause)}` })
  }
  const { effective, validate } = compiled
  const spec = new ToolSpec({
    name,
    description: options.description,
    parameters: effective,
    required: requiredOf(effective),
    readOnly: options.readOnly ?? false
  })
  const toFailure = (error: unknown): HandlerFailure =>
    isOwnFailure(name, error) || error instanceof McpToolChanged
      ? error
      : new ToolError({ tool: name, message: messageOf(error), cause: error })

  const prepare = (input: unknown): Result.Result<PreparedCall<R>, InvalidArguments> => {
    const args = input ?? {}
    const tooBig = argumentsProblem(args)
    if (tooBig !== undefined) return Result.fail(new InvalidArguments({ tool: name, issues: [tooBig] }))
    if (!isRecord(args)) {
      return Result.fail(new InvalidArguments({ tool: name, issues: [{ path: [], message: "the arguments must be an object" }] }))
    }
    const issues = validate(args)
    if (issues !== undefined) return Result.fail(new InvalidArguments({ tool: name, issues }))
    const run: Effect.Effect<unknown, HandlerFailure, R> = Effect.mapError(
      Effect.suspend(() => options.handler(args)),
      toFailure
    )
    return Result.succeed({ args, paths: noPaths, run })
  }

  return {
    spec,
    name,
    version,
    tags: options.tags ?? [],
    timeoutMs,
    ownDeadline: options.ownDeadline === true && timeoutMs !== undefined,
    rateLimitRpm: options.rateLimitRpm,
    requiresConfirmation: options.requiresConfirmation ?? false,
    memoryLimitMb: undefined,
    scopedWrite: false,
    pathFields: [],
    deprecated: undefined,
    prepare
  }
}
