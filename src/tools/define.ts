/**
 * `Tool.make`: a Schema-typed tool definition. The parameter JSON Schema is generated from
 * the Schema, path arguments are the fields typed `WorkspacePath`, and the handler is an
 * Effect whose requirements are services the system's layer provides.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import { argumentsProblem, issuesOf } from "../domain/argumentLimits.js"
import { InvalidArguments, InvalidToolDefinition, PathTraversalError, ToolError } from "../domain/errors.js"
import { parametersJsonSchema } from "../domain/parametersSchema.js"
import { isSettled } from "../domain/settled.js"
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
  readonly parameters: Schema.Schema<A, I, never>
  /** When given, the output is encoded with it (e.g. to turn a `Date` into a string). */
  readonly success?: Schema.Schema<O, OI, never>
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
  readonly timeout?: Duration.DurationInput | "none"
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
 *   parameters: Schema.Struct({ name: Schema.String.annotations({ description: "Who" }) }),
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
  const pathFields = pathFieldsOf(options.parameters.ast)
  let locatePaths: ((args: unknown) => Array<PathSlot>) | undefined
  try {
    locatePaths = compilePathLocator(options.parameters)
  } catch (cause) {
    throw new InvalidToolDefinition({ name, reason: `parameters: ${messageOf(cause)}` })
  }
  const decode = Schema.decodeUnknownEither(options.parameters, { errors: "all", onExcessProperty: "error" })
  const encode = options.success === undefined ? undefined : Schema.encode(options.success)
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

  const prepare = (input: unknown): Either.Either<PreparedCall<R>, InvalidArguments> => {
    const tooBig = argumentsProblem(input)
    if (tooBig !== undefined) return Either.left(new InvalidArguments({ tool: name, issues: [tooBig] }))
    if (noParameters && typeof input === "object" && input !== null && !Array.isArray(input)) {
      const extra = Object.keys(input)
      if (extra.length > 0) {
        return Either.left(
          new InvalidArguments({
            tool: name,
            issues: extra.slice(0, 20).map((key) => ({ path: [key], message: "unknown property; this tool takes no arguments" }))
          })
        )
      }
    }
    return Either.match(decode(input ?? {}), {
      onLeft: (error) => Either.left(new InvalidArguments({ tool: name, issues: issuesOf(error) })),
      onRight: (args) => {
        const start = (): Effect.Effect<unknown, HandlerFailure, R> => {
          let built: Effect.Effect<O, E, R>
          try {
            built = options.handler(args)
          } catch (defect) {
            return Exit.die(defect) // as `Effect.suspend` has it
          }
          // settled as built, nothing to encode: the exit itself, which needs no fiber to run
          if (encode === undefined && isSettled(built) && Exit.isSuccess(built)) return Exit.succeed(built.value)
          return encode === undefined
            ? Effect.mapError(built, toFailure)
            : Effect.mapError(Effect.flatMap(built, encode), toFailure)
        }
        return Either.right({
          args,
          paths: locatePaths === undefined ? noPaths : locatePaths(args),
          run: Effect.suspend(start),
          start
        })
      }
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
    prepare
  }
}
