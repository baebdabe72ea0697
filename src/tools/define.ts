/**
 * `Tool.make`: a Schema-typed tool definition. The parameter JSON Schema is generated from
 * the Schema, path arguments are the fields typed `WorkspacePath`, and the handler is an
 * Effect whose requirements are services the system's layer provides.
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { argumentParseOptions, argumentsProblem, issuesOf } from "../domain/argumentLimits.js"
import { InvalidArguments, InvalidToolDefinition, PathTraversalError, ToolError } from "../domain/errors.js"
import { outputJsonSchema, parametersJsonSchema } from "../domain/parametersSchema.js"
import type { HandlerFailure, PreparedCall, Tool } from "../domain/Tool.js"
import { ToolSpec } from "../domain/ToolSpec.js"
import { compilePathLocator, type PathSlot, pathFieldsOf } from "../domain/WorkspacePath.js"
import { DEFAULT_TIMEOUT, definitionBasics, detailsOf, isOwnFailure, messageOf } from "./definition.js"

export type { PreparedCall, Tool } from "../domain/Tool.js"

export { DEFAULT_TIMEOUT }

/**
 * What `Tool.make` takes. `A` is the decoded arguments, `O` the handler's output.
 *
 * @since 0.1.0
 * @category models
 */
export interface MakeOptions<A, I, O, E, R, OI = O> {
  readonly description: string
  /**
   * A struct schema; its encoded side is what the model sends. Fields typed `WorkspacePath`
   * (at any depth) reach the handler resolved: absolute, real, inside the workspace.
   * Properties the schema does not name are refused.
   */
  readonly parameters: Schema.Codec<A, I, never, never>
  /**
   * When given, the output is encoded with it (e.g. to turn a `Date` into a string). When its
   * encoded side is an object, its JSON Schema is the tool's `outputSchema` (the MCP server
   * lists it, and answers each successful call with the output as `structuredContent`).
   */
  readonly success?: Schema.Codec<O, OI, never, never>
  /** No side effects: allowed in read-only modes. Default `false`. */
  readonly readOnly?: boolean
  /** The executor pauses the call until it is made with `confirm: true`. Default `false`. */
  readonly requiresConfirmation?: boolean
  /**
   * When the tool asks for confirmation as it is about to act, e.g. "when it would create a
   * file": its handler calls `confirmEffect` there (see `CallConfirmation`), and an unconfirmed
   * call ends `CONFIRMATION_REQUIRED` as one stopped by the gate does.
   */
  readonly asksConfirmation?: string
  /**
   * Vetted scoped-write tool: its only side effects are writes to its `WorkspacePath`
   * arguments, so a read-only mode may allow it inside its `scopedWriteDirs`.
   */
  readonly scopedWrite?: boolean
  readonly tags?: ReadonlyArray<string>
  /** A semver version. Default `1.0.0`. */
  readonly version?: string
  /** Run timeout; default 60 s; `"none"` for no timeout. */
  readonly timeout?: Duration.Input | "none"
  readonly rateLimitRpm?: number
  readonly memoryLimitMb?: number
  /** Marks the version deprecated, with the reason or replacement. */
  readonly deprecated?: string
  readonly handler: (args: A) => Effect.Effect<O, E, R>
}

/**
 * Defines a tool. Throws `InvalidToolDefinition` for a bad name, version or parameter schema
 * (a programming error, found when the module defining the tool loads).
 *
 * The handler's failures become `TOOL_ERROR` results: a `ToolError` as it is, any other
 * error with its message (or its tag and fields when it has none) and its fields as
 * `details`; except a `ToolTimeout`, `MemoryLimitExceeded` or `ConfirmationRequired` naming this tool
 * (a tool that keeps its own deadline, a worker-based tool's own memory cap, a tool that asks for
 * confirmation as it acts), which stay `TIMEOUT` / `MEMORY_LIMIT` / `CONFIRMATION_REQUIRED`. A `WorkspacePath` argument arrives as a `ResolvedPath`.
 *
 * @since 0.1.0
 * @category constructors
 *
 * @example
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import { Tool } from "effect-tool-system"
 *
 * const greet = Tool.make("greet", {
 *   description: "Greets someone",
 *   parameters: Schema.Struct({ name: Schema.String.annotate({ description: "Who" }) }),
 *   readOnly: true,
 *   handler: ({ name }) => Effect.succeed(`Hello, ${name}!`)
 * })
 * ```
 */
export const make = <A, I, O, E, R, OI = O>(name: string, options: MakeOptions<A, I, O, E, R, OI>): Tool<R> => {
  const { timeoutMs, version } = definitionBasics(name, options)

  let parameters
  try {
    parameters = parametersJsonSchema(options.parameters)
  } catch (cause) {
    throw new InvalidToolDefinition({ name, reason: `parameters: ${messageOf(cause)}` })
  }
  const spec = new ToolSpec({
    name,
    description: options.description,
    parameters,
    required: Array.isArray(parameters.required) ? parameters.required.filter((r) => typeof r === "string") : [],
    readOnly: options.readOnly ?? false
  })
  const outputSchema = options.success === undefined ? undefined : outputJsonSchema(options.success)
  const pathFields = pathFieldsOf(options.parameters.ast)
  let locatePaths: ((args: unknown) => Array<PathSlot>) | undefined
  try {
    locatePaths = compilePathLocator(options.parameters)
  } catch (cause) {
    throw new InvalidToolDefinition({ name, reason: `parameters: ${messageOf(cause)}` })
  }
  const decode = Schema.decodeUnknownResult(options.parameters, argumentParseOptions)
  const encode = options.success === undefined ? undefined : Schema.encodeEffect(options.success)
  const toFailure = (error: unknown): HandlerFailure => {
    if (error instanceof PathTraversalError || isOwnFailure(name, error)) return error
    const details = detailsOf(error)
    return new ToolError(
      details === undefined
        ? { tool: name, message: messageOf(error), cause: error }
        : { tool: name, message: messageOf(error), cause: error, details }
    )
  }
  const noPaths: ReadonlyArray<PathSlot> = []
  // `Schema.Struct({})` lets any property through, even with `onExcessProperty: "error"`
  const noParameters = Object.keys(parameters.properties ?? {}).length === 0 && parameters.additionalProperties === false

  /**
   * The handler's run of decoded arguments, read when it runs (the executor writes the resolved
   * paths into `args` first); a handler that throws as it builds its effect dies, as
   * `Effect.suspend` has it.
   */
  const runOf = (args: A): Effect.Effect<unknown, HandlerFailure, R> =>
    Effect.suspend((): Effect.Effect<unknown, HandlerFailure, R> => {
      const built = options.handler(args)
      return encode === undefined
        ? Effect.mapError(built, toFailure)
        : Effect.mapError(Effect.flatMap(built, encode), toFailure)
    })

  const prepare = (input: unknown): Result.Result<PreparedCall<R>, InvalidArguments> => {
    const tooBig = argumentsProblem(input)
    if (tooBig !== undefined) return Result.fail(new InvalidArguments({ tool: name, issues: [tooBig] }))
    if (noParameters && typeof input === "object" && input !== null && !Array.isArray(input)) {
      const extra = Object.keys(input)
      if (extra.length > 0) {
        return Result.fail(
          new InvalidArguments({
            tool: name,
            issues: extra.slice(0, 20).map((key) => ({ path: [key], message: "unknown property; this tool takes no arguments" }))
          })
        )
      }
    }
    const decoded = decode(input ?? {})
    if (Result.isFailure(decoded)) return Result.fail(new InvalidArguments({ tool: name, issues: issuesOf(decoded.failure) }))
    const args = decoded.success
    return Result.succeed({
      args,
      paths: locatePaths === undefined ? noPaths : locatePaths(args),
      run: runOf(args)
    })
  }

  return {
    spec,
    name,
    version,
    tags: options.tags ?? [],
    timeoutMs,
    rateLimitRpm: options.rateLimitRpm,
    requiresConfirmation: options.requiresConfirmation ?? false,
    asksConfirmation: options.asksConfirmation,
    memoryLimitMb: options.memoryLimitMb,
    scopedWrite: options.scopedWrite ?? false,
    pathFields,
    deprecated: options.deprecated,
    ...(outputSchema === undefined ? {} : { outputSchema }),
    prepare
  }
}
