/**
 * `ToolRegistry`: the central catalog, `{ name: { version: Tool } }`. `get(name)` returns the
 * latest semver version; a range selects among versions.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Result from "effect/Result"
import * as Layer from "effect/Layer"
import type { AgentMode } from "../domain/AgentMode.js"
import type { InvalidToolDefinition, ToolNotFound } from "../domain/errors.js"
import type { ExportFormat } from "../domain/exports.js"
import type { RegisteredTool, Tool } from "../domain/Tool.js"
import type { ToolSpec } from "../domain/ToolSpec.js"
import { makeRegistry } from "../layers/ToolRegistry.js"

/**
 * Which tools `list`, `specs` and `export` return.
 *
 * @since 0.1.0
 * @category models
 */
export interface ListOptions {
  /** Keep tools with at least one of these tags. */
  readonly tags?: ReadonlyArray<string> | undefined
  /** Keep tools the mode allows (read-only modes: read-only and scoped-write tools). */
  readonly mode?: AgentMode | undefined
  /** Keep deprecated versions when they are the latest. Default `false`. */
  readonly includeDeprecated?: boolean | undefined
}

/**
 * The `ToolRegistry` service interface.
 *
 * @since 0.1.0
 * @category services
 */
export interface ToolRegistryService {
  /**
   * Registers a tool. Its requirements are captured from the registering context, so the
   * stored tool needs nothing more. Fails on a bad definition or an existing name@version.
   */
  readonly register: <R>(tool: Tool<R>) => Effect.Effect<void, InvalidToolDefinition, R>
  /** Removes one version, or every version of a name. */
  readonly unregister: (name: string, version?: string) => Effect.Effect<void>
  /** The latest version (or the latest in `versionRange`). */
  readonly get: (name: string, versionRange?: string) => Effect.Effect<RegisteredTool, ToolNotFound>
  /** `get`, synchronously, for hot paths. */
  readonly lookup: (name: string, versionRange?: string) => Result.Result<RegisteredTool, ToolNotFound>
  /** The latest version of each tool that passes the filters, sorted by name. */
  readonly list: (options?: ListOptions) => Effect.Effect<ReadonlyArray<RegisteredTool>>
  /** Every registered version of a name, newest first. */
  readonly versions: (name: string) => Effect.Effect<ReadonlyArray<string>>
  /** Marks a version deprecated; `get` then prefers other versions. */
  readonly deprecate: (name: string, version: string, reason: string) => Effect.Effect<void, ToolNotFound>
  readonly specs: (options?: ListOptions) => Effect.Effect<ReadonlyArray<ToolSpec>>
  /** The specs in a model API's shape. */
  readonly export: (format: ExportFormat, options?: ListOptions) => Effect.Effect<ReadonlyArray<unknown>>
}

/**
 * The central tool catalog.
 *
 * @since 0.1.0
 * @category services
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Tool, ToolRegistry } from "effect-tool-system"
 *
 * const shout = Tool.make("shout", {
 *   description: "Upper-cases a text",
 *   parameters: Schema.Struct({ text: Schema.String }),
 *   readOnly: true,
 *   tags: ["text"],
 *   handler: ({ text }) => Effect.succeed(text.toUpperCase())
 * })
 *
 * const textTools = Effect.gen(function*() {
 *   const registry = yield* ToolRegistry
 *   yield* registry.register(shout)
 *   return yield* registry.export("openai", { tags: ["text"] })
 * })
 * ```
 */
export class ToolRegistry extends Context.Service<ToolRegistry, ToolRegistryService>()("effect-tool-system/ToolRegistry") {
  /** An empty in-memory registry. */
  static readonly layerEmpty: Layer.Layer<ToolRegistry> = Layer.sync(ToolRegistry, makeRegistry)
}
