/**
 * `Tool.make`: a Schema-typed tool definition. The parameter JSON Schema is generated from
 * the Schema, path arguments are the fields typed `WorkspacePath`, and the handler is an
 * Effect whose requirements are services the system's layer provides.
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Schema from "effect/Schema"
import type { Tool } from "../domain/Tool.js"
import { DEFAULT_TIMEOUT } from "./definition.js"
import { makeTool } from "./makeTool.js"

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
export const make = <A, I, O, E, R, OI = O>(name: string, options: MakeOptions<A, I, O, E, R, OI>): Tool<R> =>
  makeTool(name, options, "eager")
