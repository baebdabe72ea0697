/**
 * Wiring of the tool system: which layers make the graph, and the facade itself.
 *
 * The graph outputs the library's services only (`ToolSystem`, `ToolRegistry`, `ToolExecutor`,
 * `Workspace`). The platform's services (`FileSystem`, `Path`, `ChildProcessSpawner`,
 * `HttpClient`) and whatever the given tools' handlers need are its requirements: the
 * application provides them, or uses `ToolSystem.layerNode`, which provides Node's.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type * as HttpClient from "effect/http/HttpClient"
import type * as Path from "effect/Path"
import type { ChildProcessSpawner } from "effect/process/ChildProcessSpawner"
import * as Layer from "effect/Layer"
import type { InvalidToolDefinition } from "../domain/errors.js"
import type { Tool } from "../domain/Tool.js"
import type { McpBridgeOptions } from "../tools/mcp/bridge.js"
import type { McpServersConfig } from "../tools/mcp/config.js"
import { AuditLog } from "../services/AuditLog.js"
import { ConfirmationGate } from "../services/ConfirmationGate.js"
import { ModeGate } from "../services/ModeGate.js"
import { PdfWorkers } from "../services/PdfWorkers.js"
import { RateLimiter } from "../services/RateLimiter.js"
import { SandboxPool } from "../services/SandboxPool.js"
import { ToolExecutor } from "../services/ToolExecutor.js"
import { type BuiltinGateServices, ToolGates } from "../services/ToolGates.js"
import { ToolPolicy } from "../services/ToolPolicy.js"
import { ToolRegistry } from "../services/ToolRegistry.js"
import type { ToolSystemService } from "../services/ToolSystem.js"
import { UrlPolicy } from "../services/UrlPolicy.js"
import { Workspace } from "../services/Workspace.js"
import { builtinTools } from "../tools/builtin/index.js"

/**
 * The platform services the graph requires (the file system; path and child processes for the
 * tools that run programs; an HTTP client); `ToolSystem.layerNode` provides Node's.
 *
 * @since 0.1.0
 * @category models
 */
export type PlatformServices = FileSystem.FileSystem | Path.Path | ChildProcessSpawner | HttpClient.HttpClient

/**
 * The library's services that tool handlers may ask for; the graph provides them.
 *
 * @since 0.1.0
 * @category models
 */
export type LibraryServices = Workspace | SandboxPool | PdfWorkers | UrlPolicy

/**
 * The services a tool handler may ask for without the application providing them.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolServices = LibraryServices | PlatformServices

/** What a tool's handler needs (distributes over a union of tools; `never` for none). */
export type ToolRequirements<T> = T extends Tool<infer R> ? R : never

/**
 * What the given tools need beyond what the graph provides: the graph's extra requirements.
 *
 * @since 0.1.0
 * @category models
 */
export type RequirementsOf<Tools extends ReadonlyArray<Tool<unknown>>> = Exclude<
  ToolRequirements<Tools[number]>,
  LibraryServices | ToolRegistry | ToolExecutor
>

/**
 * What the facade registers.
 *
 * @since 0.1.0
 * @category models
 */
export interface CoreOptions<Tools extends ReadonlyArray<Tool<unknown>> = ReadonlyArray<Tool<unknown>>> {
  /** Register the builtin tools. Default `true`. */
  readonly builtins?: boolean
  /** Register the 46 ported tools (files, data, text, git, shell, web, media). Default `builtins`. */
  readonly ported?: boolean
  /** More tools to register; their handlers may need the application's own services. */
  readonly tools?: Tools
}

/**
 * The layers the graph is built from.
 *
 * @since 0.1.0
 * @category models
 */
export interface GraphOptions<Tools extends ReadonlyArray<Tool<unknown>> = ReadonlyArray<Tool<unknown>>>
  extends CoreOptions<Tools>
{
  /** Default `Workspace.layer` (override, `WORKSPACE_ROOT`, cwd). */
  readonly workspace?: Layer.Layer<Workspace, never, FileSystem.FileSystem>
  /** Default `ToolPolicy.layerAllowAll`. */
  readonly policy?: Layer.Layer<ToolPolicy>
  /** Default `ConfirmationGate.layer`. */
  readonly confirmation?: Layer.Layer<ConfirmationGate>
  /**
   * Default `RateLimiter.layerMemory`; `RateLimiter.layerRedis` shares the limits of every
   * process that uses one Redis.
   */
  readonly rateLimiter?: Layer.Layer<RateLimiter>
  /**
   * Default `AuditLog.layerNoop` (no records, no cost); `AuditLog.layerJsonl(...)` writes one
   * JSON line per call, `AuditLog.layerLogger()` logs each call.
   */
  readonly audit?: Layer.Layer<AuditLog, never, FileSystem.FileSystem | Path.Path>
  /** Default `SandboxPool.layer()` (the Workers of `execute_javascript`). */
  readonly sandbox?: Layer.Layer<SandboxPool>
  /** Default `PdfWorkers.layer` (the workers of `read_pdf`). */
  readonly pdfWorkers?: Layer.Layer<PdfWorkers, never, FileSystem.FileSystem>
  /** Default `ModeGate.layer`. */
  readonly modeGate?: Layer.Layer<ModeGate, never, Workspace>
  /**
   * The executor's list of gates. Default `ToolGates.layer` (mode, policy, confirmation, rate
   * limit); `ToolGates.layerWith(...)` adds an application's own after them.
   */
  readonly gates?: Layer.Layer<ToolGates, never, BuiltinGateServices>
  /** Default `UrlPolicy.layer` (public addresses only); `TestUrlPolicy.layerAllowLoopback` in tests. */
  readonly urlPolicy?: Layer.Layer<UrlPolicy>
  /**
   * MCP servers (the `mcpServers` object of an MCP configuration) whose tools are bridged in
   * as proxies `"{server}__{tool}"` for the layer's lifetime; fail-open. The bridge stays
   * inside the layer: to approve a changed tool (`MCP_TOOL_CHANGED`), build
   * `McpBridge.layer(servers)` over this layer instead and use its `approve`.
   */
  readonly mcpServers?: McpServersConfig
  /** How the MCP bridge starts and calls its servers. */
  readonly mcp?: McpBridgeOptions
}

/**
 * The MCP bridge of `options.mcpServers`, or nothing. The MCP SDK is loaded only when servers
 * are configured (a dynamic import when the layer is built), so importing the library does not
 * load it. The bridge's service is not an output: it is built in the layer's scope (the servers
 * live as long as the layer) and dropped.
 *
 * @since 0.1.0
 * @category layers
 */
export const mcpBridge = (options: GraphOptions<ReadonlyArray<Tool<unknown>>>): Layer.Layer<never, never, ToolRegistry> => {
  const servers = options.mcpServers
  if (servers === undefined) return Layer.empty
  return Layer.unwrap(
    Effect.map(
      Effect.promise(() => import("../services/McpBridge.js")),
      ({ McpBridge }) => Layer.effectDiscard(Layer.build(McpBridge.layer(servers, options.mcp)))
    )
  )
}

/** The facade: registers the builtins and the given tools with the services of the context. */
export const makeToolSystem = <Tools extends ReadonlyArray<Tool<unknown>>>(
  options: CoreOptions<Tools>
): Effect.Effect<ToolSystemService, InvalidToolDefinition, ToolRegistry | ToolExecutor | ToolServices | RequirementsOf<Tools>> =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry
    const executor = yield* ToolExecutor
    const builtins = options.builtins !== false
    // the ported tools (and their parsers, diff, CSV, ...) load when the layer is built, not on import
    const ported: ReadonlyArray<Tool<unknown>> = (options.ported ?? builtins)
      ? (yield* Effect.promise(() => import("../tools/ported/index.js"))).portedTools
      : []
    const tools: ReadonlyArray<Tool<unknown>> = [...(builtins ? builtinTools : []), ...ported, ...(options.tools ?? [])]
    // Each tool's requirements are captured from this context (the registry keeps them).
    // `RequirementsOf<Tools>` in this effect's type makes the application provide every one
    // of them; the list is typed `Tool<unknown>`, so the context is handed over untyped.
    const context = yield* Effect.context<ToolServices | RequirementsOf<Tools>>()
    const untyped = Context.makeUnsafe<unknown>(context.mapUnsafe)
    yield* Effect.forEach(tools, (tool) => Effect.provideContext(registry.register(tool), untyped), { discard: true })
    return {
      registry,
      execute: executor.execute,
      explain: executor.explain,
      register: registry.register,
      openAITools: (listOptions) => Effect.map(registry.specs(listOptions), (specs) => specs.map((s) => s.toOpenAITool()))
    }
  })

/** Builds the graph under a facade layer; the platform services stay requirements. */
export const makeGraph = <A, E, Extra>(
  facade: Layer.Layer<A, E, ToolRegistry | ToolExecutor | ToolServices | Extra>,
  options: GraphOptions<ReadonlyArray<Tool<unknown>>>
): Layer.Layer<A | ToolRegistry | ToolExecutor | Workspace, E, PlatformServices | Extra> => {
  const workspace = options.workspace ?? Workspace.layer
  const gates = Layer.mergeAll(
    options.modeGate ?? ModeGate.layer,
    options.policy ?? ToolPolicy.layerAllowAll,
    options.confirmation ?? ConfirmationGate.layer,
    options.rateLimiter ?? RateLimiter.layerMemory,
    options.audit ?? AuditLog.layerNoop,
    ToolRegistry.layerEmpty
  )
  const executor = ToolExecutor.layer.pipe(
    Layer.provide(Layer.provide(options.gates ?? ToolGates.layer, gates)),
    Layer.provideMerge(gates)
  )
  const workers = Layer.mergeAll(
    options.sandbox ?? SandboxPool.layer(),
    options.pdfWorkers ?? PdfWorkers.layer,
    options.urlPolicy ?? UrlPolicy.layer
  )
  const core = executor.pipe(Layer.provideMerge(workspace))
  // only the library's services come out: the workers and gates are provided, not merged
  return facade.pipe(Layer.provide(workers), Layer.provideMerge(core))
}

/**
 * Node's platform services: file system, path, child processes and a fetch-based HTTP client,
 * loaded when the layer is built, not when the library is imported; the child-process
 * spawner's module only when the first command is spawned (`nodeSpawner.ts`).
 */
export const nodePlatform: Layer.Layer<PlatformServices> = Layer.unwrap(
  Effect.map(
    Effect.promise(() =>
      Promise.all([
        import("@effect/platform-node/NodeFileSystem"),
        import("@effect/platform-node/NodePath"),
        import("./nodeSpawner.js"),
        import("effect/http/FetchHttpClient")
      ])
    ),
    ([NodeFileSystem, NodePath, NodeSpawner, FetchHttpClient]) =>
      Layer.mergeAll(
        NodeSpawner.layerNodeLazy.pipe(Layer.provideMerge(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer))),
        FetchHttpClient.layer
      )
  )
)
