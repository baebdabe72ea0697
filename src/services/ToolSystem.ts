/**
 * `ToolSystem`: the facade an agent talks to. Registry, executor and exports behind one
 * service; `ToolSystem.layer(options)` builds the whole graph over `NodeContext.layer`.
 *
 * @since 0.1.0
 */
import { Context, type Effect, Layer } from "effect"
import type { InvalidToolDefinition } from "../domain/errors.js"
import type { Tool } from "../domain/Tool.js"
import type { ToolExecutionResult } from "../domain/ToolExecutionResult.js"
import type { OpenAITool } from "../domain/ToolSpec.js"
import { type CoreOptions, type GraphOptions, makeGraph, makeToolSystem } from "../layers/ToolSystem.js"
import type { ExecuteOptions } from "./ToolExecutor.js"
import type { ListOptions, ToolRegistryService } from "./ToolRegistry.js"

export type { CoreOptions, GraphOptions, ToolServices } from "../layers/ToolSystem.js"

/** The `ToolSystem` service interface. */
export interface ToolSystemService {
  readonly registry: ToolRegistryService
  /** Runs one call through every gate; see `ToolExecutor`. */
  readonly execute: (name: string, args: unknown, options?: ExecuteOptions) => Effect.Effect<ToolExecutionResult>
  /** Registers a tool (its requirements are captured from the registering context). */
  readonly register: <R>(tool: Tool<R>) => Effect.Effect<void, InvalidToolDefinition, R>
  /** The tools in OpenAI's function-calling shape, for the model. */
  readonly openAITools: (options?: ListOptions) => Effect.Effect<ReadonlyArray<OpenAITool>>
}

/**
 * The tool system.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ToolSystem } from "effect-tool-system"
 *
 * const program = Effect.gen(function*() {
 *   const tools = yield* ToolSystem
 *   return yield* tools.execute("read_file", { filepath: "README.md", max_lines: 5 })
 * })
 * Effect.runPromise(program.pipe(Effect.provide(ToolSystem.layer()))).then(console.log)
 * ```
 */
export class ToolSystem extends Context.Tag("effect-tool-system/ToolSystem")<ToolSystem, ToolSystemService>() {
  /**
   * The facade over services you provide (registry, executor, workspace, platform):
   * registers the builtin tools (unless `builtins: false`) and `tools`.
   */
  static readonly layerWith = (options: CoreOptions = {}) => Layer.effect(ToolSystem, makeToolSystem(options))

  /**
   * The whole graph: live workspace (or `options.workspace`), in-memory registry, the gates
   * (each replaceable through `options`), executor, and the Node platform.
   * Also provides `ToolRegistry`, `ToolExecutor` and `Workspace`.
   */
  static readonly layer = (options: GraphOptions = {}) => makeGraph(ToolSystem.layerWith(options), options)
}
