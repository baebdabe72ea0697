/**
 * `ToolSystem`: the facade an agent talks to. Registry, executor and exports behind one
 * service. `ToolSystem.layer(options)` builds the whole graph over the platform services
 * the application provides; `ToolSystem.layerNode(options)` provides Node's.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { InvalidToolDefinition } from "../domain/errors.js"
import type { CallExplanation } from "../domain/GateDecision.js"
import type { Tool } from "../domain/Tool.js"
import type { ToolExecutionResult } from "../domain/ToolExecutionResult.js"
import type { OpenAITool } from "../domain/ToolSpec.js"
import {
  type CoreOptions,
  type GraphOptions,
  makeGraph,
  makeToolSystem,
  mcpBridge,
  nodePlatform,
  type PlatformServices,
  type RequirementsOf,
  type ToolServices
} from "../layers/ToolSystem.js"
import type { ExecuteOptions } from "./ToolExecutor.js"
import type { ToolExecutor } from "./ToolExecutor.js"
import type { ListOptions, ToolRegistry, ToolRegistryService } from "./ToolRegistry.js"
import type { Workspace } from "./Workspace.js"

export type {
  CoreOptions,
  GraphOptions,
  LibraryServices,
  PlatformServices,
  RequirementsOf,
  ToolServices
} from "../layers/ToolSystem.js"

/**
 * The `ToolSystem` service interface.
 *
 * @since 0.1.0
 * @category services
 */
export interface ToolSystemService {
  readonly registry: ToolRegistryService
  /** Runs one call through every gate; see `ToolExecutor`. */
  readonly execute: (name: string, args: unknown, options?: ExecuteOptions) => Effect.Effect<ToolExecutionResult>
  /**
   * A dry run of the gates: what `execute` would decide for this call, gate by gate, with
   * each gate's reason, without running the handler or taking a rate-limit token.
   *
   * @example
   * ```ts
   * import { Effect } from "effect"
   * import { AgentMode, ToolSystem } from "effect-tool-system"
   *
   * const why = Effect.flatMap(ToolSystem, (tools) =>
   *   tools.explain("write_file", { filepath: "a.txt", content: "" }, { mode: AgentMode.Explore }))
   * // wouldRun: false, errorCode: "MODE_BLOCKED", and each gate's decision in `gates`
   * ```
   */
  readonly explain: (name: string, args: unknown, options?: ExecuteOptions) => Effect.Effect<CallExplanation>
  /** Registers a tool (its requirements are captured from the registering context). */
  readonly register: <R>(tool: Tool<R>) => Effect.Effect<void, InvalidToolDefinition, R>
  /** The tools in OpenAI's function-calling shape, for the model. */
  readonly openAITools: (options?: ListOptions) => Effect.Effect<ReadonlyArray<OpenAITool>>
}

/**
 * What `ToolSystem.layer` outputs: the library's services, nothing of the platform's.
 *
 * @since 0.1.0
 * @category models
 */
export type SystemServices = ToolSystem | ToolRegistry | ToolExecutor | Workspace

/**
 * The tool system.
 *
 * @since 0.1.0
 * @category services
 *
 * @example
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { ToolSystem } from "effect-tool-system"
 *
 * const program = Effect.gen(function*() {
 *   const tools = yield* ToolSystem
 *   return yield* tools.execute("read_file", { filepath: "README.md", max_lines: 5 })
 * })
 * Effect.runPromise(program.pipe(Effect.tap(Effect.log), Effect.provide(ToolSystem.layerNode())))
 * ```
 */
export class ToolSystem extends Context.Service<ToolSystem, ToolSystemService>()("effect-tool-system/ToolSystem") {
  /**
   * The facade over services you provide (registry, executor, workspace, workers, platform):
   * registers the builtin tools (unless `builtins: false`) and `tools`.
   */
  static readonly layerWith = <const Tools extends ReadonlyArray<Tool<unknown>> = readonly []>(
    options: CoreOptions<Tools> = {}
  ): Layer.Layer<
    ToolSystem,
    InvalidToolDefinition,
    ToolRegistry | ToolExecutor | ToolServices | RequirementsOf<Tools>
  > => Layer.effect(ToolSystem, makeToolSystem(options))

  /**
   * The whole graph: live workspace (or `options.workspace`), in-memory registry, the gates
   * (each replaceable through `options`), executor and worker pools. Outputs `ToolSystem`,
   * `ToolRegistry`, `ToolExecutor` and `Workspace`; requires the platform services
   * (`FileSystem`, `Path`, `CommandExecutor`, `HttpClient`) and what `tools` need. A tool
   * defined twice (same name and version) fails the layer with `InvalidToolDefinition`.
   *
   * @example
   * ```ts
   * import * as NodeServices from "@effect/platform-node/NodeServices"
   * import { Context, Effect, Layer, Schema } from "effect"
   * import * as FetchHttpClient from "effect/http/FetchHttpClient"
   * import { Tool, ToolSystem } from "effect-tool-system"
   *
   * class Greeter extends Context.Service<Greeter, { readonly greet: (name: string) => string }>()("app/Greeter") {}
   *
   * const greet = Tool.make("greet", {
   *   description: "Greets someone",
   *   parameters: Schema.Struct({ name: Schema.String }),
   *   readOnly: true,
   *   handler: ({ name }) => Effect.map(Greeter, (greeter) => greeter.greet(name))
   * })
   *
   * const AppTools = ToolSystem.layer({ tools: [greet] }).pipe(
   *   Layer.provide(Layer.succeed(Greeter, { greet: (name) => `Hello, ${name}!` })),
   *   Layer.provide(NodeServices.layer),
   *   Layer.provide(FetchHttpClient.layer)
   * )
   * ```
   */
  static readonly layer = <const Tools extends ReadonlyArray<Tool<unknown>> = readonly []>(
    options: GraphOptions<Tools> = {}
  ): Layer.Layer<SystemServices, InvalidToolDefinition, PlatformServices | RequirementsOf<Tools>> =>
    makeGraph(Layer.merge(ToolSystem.layerWith(options), mcpBridge(options)), options)

  /**
   * `layer` with Node's platform services provided (file system, path, child processes,
   * a fetch-based HTTP client): the one-line start. Requires only what `tools` need.
   *
   * @example
   * ```ts
   * import { Effect } from "effect"
   * import { ToolSystem } from "effect-tool-system"
   *
   * const program = Effect.flatMap(ToolSystem, (tools) => tools.execute("read_file", { filepath: "README.md" }))
   * const main = () => Effect.runPromise(program.pipe(Effect.provide(ToolSystem.layerNode())))
   * ```
   */
  static readonly layerNode = <const Tools extends ReadonlyArray<Tool<unknown>> = readonly []>(
    options: GraphOptions<Tools> = {}
  ): Layer.Layer<SystemServices, InvalidToolDefinition, Exclude<RequirementsOf<Tools>, PlatformServices>> =>
    ToolSystem.layer(options).pipe(Layer.provide(nodePlatform))
}
