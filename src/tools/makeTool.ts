/**
 * The body of `Tool.make`, and of the library's own tools' `make` (`defineBuiltin.ts`), which
 * differ only in when the parameter JSON Schema is made: as the tool is defined, so a bad schema
 * throws then; or when the spec's `parameters` are first read (see `lazyToolSpec`).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { argumentParseOptions, argumentsProblem, issuesOf } from "../domain/argumentLimits.js"
import { InvalidArguments, InvalidToolDefinition, PathTraversalError, ToolError } from "../domain/errors.js"
import { outputJsonSchema, parametersJsonSchema } from "../domain/parametersSchema.js"
import type { HandlerFailure, PreparedCall, Tool } from "../domain/Tool.js"
import { type JsonSchema, lazyToolSpec, requiredOf, ToolSpec } from "../domain/ToolSpec.js"
import { compilePathLocator, type PathSlot, pathFieldsOf } from "../domain/WorkspacePath.js"
import type { MakeOptions } from "./define.js"
import { definitionBasics, detailsOf, isOwnFailure, messageOf } from "./definition.js"

/** When the parameter JSON Schema is made: as the tool is defined, or when first read. */
export type SchemaTiming = "eager" | "onFirstRead"

/** The parameter JSON Schema of `options.parameters`; a schema that cannot be one is an `InvalidToolDefinition`. */
const parametersOf = (name: string, parameters: Schema.Top): JsonSchema => {
  try {
    return parametersJsonSchema(parameters)
  } catch (cause) {
    throw new InvalidToolDefinition({ name, reason: `parameters: ${messageOf(cause)}` })
  }
}

/** `Schema.Struct({})` lets any property through, even with `onExcessProperty: "error"`. */
const takesNoParameters = (parameters: JsonSchema): boolean =>
  Object.keys(parameters.properties ?? {}).length === 0 && parameters.additionalProperties === false

/** A tool from `options`, its parameter JSON Schema made as `timing` says. @internal */
export const makeTool = <A, I, O, E, R, OI = O>(
  name: string,
  options: MakeOptions<A, I, O, E, R, OI>,
  timing: SchemaTiming
): Tool<R> => {
  const { timeoutMs, version } = definitionBasics(name, options)

  const basics = { name, description: options.description, readOnly: options.readOnly ?? false }
  let spec: ToolSpec
  if (timing === "eager") {
    const parameters = parametersOf(name, options.parameters)
    spec = new ToolSpec({ ...basics, parameters, required: requiredOf(parameters) })
  } else {
    spec = lazyToolSpec(basics, () => parametersOf(name, options.parameters))
  }
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
  // read at the first call, not before (a spec made on first read is made then)
  let noParameters: boolean | undefined

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
    noParameters ??= takesNoParameters(spec.parameters)
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
