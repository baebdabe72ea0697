/**
 * Wiring of the tool system: which layers make the graph, and the facade itself.
 *
 * The graph outputs the library's services only (`ToolSystem`, `ToolRegistry`, `ToolExecutor`,
 * `Workspace`). The platform's services (`FileSystem`, `Path`, `ChildProcessSpawner`,
 * `HttpClient`) and whatever the given tools' handlers need are its requirements: the
 * application provides them, or uses `ToolSystem.layerNode`, which provides Node's. (Effect 4 tree: the builtin and ported tools, the MCP bridge and the worker pools of
 * the main tree are still to be ported; this graph registers the given tools only.)
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
import { AuditLog } from "../services/AuditLog.js"
import { ConfirmationGate } from "../services/ConfirmationGate.js"
import { ModeGate } from "../services/ModeGate.js"
import { RateLimiter } from "../services/RateLimiter.js"
import { ToolExecutor } from "../services/ToolExecutor.js"
import { type BuiltinGateServices, ToolGates } from "../services/ToolGates.js"
import { ToolPolicy } from "../services/ToolPolicy.js"
import { ToolRegistry } from "../services/ToolRegistry.js"
import type { ToolSystemService } from "../services/ToolSystem.js"
import { UrlPolicy } from "../services/UrlPolicy.js"
import { Workspace } from "../services/Workspace.js"

/**
 * The platform services the graph requires (the file system; path and child processes for the
 * tools that run programs; an HTTP client); `ToolSystem.layerNode` provides Node's.
 */
export type PlatformServices = FileSystem.FileSystem | Path.Path | ChildProcessSpawner | HttpClient.HttpClient

/** The library's services that tool handlers may ask for; the graph provides them. */
export type LibraryServices = Workspace | UrlPolicy

/** The services a tool handler may ask for without the application providing them. */
export type ToolServices = LibraryServices | PlatformServices

/** What a tool's handler needs (distributes over a union of tools; `never` for none). */
export type ToolRequirements<T> = T extends Tool<infer R> ? R : never

/** What the given tools need beyond what the graph provides: the graph's extra requirements. */
export type RequirementsOf<Tools extends ReadonlyArray<Tool<unknown>>> = Exclude<
  ToolRequirements<Tools[number]>,
  LibraryServices | ToolRegistry | ToolExecutor
>

/** What the facade registers. */
export interface CoreOptions<Tools extends ReadonlyArray<Tool<unknown>> = ReadonlyArray<Tool<unknown>>> {
  /** The builtin tools are not in the Effect 4 tree yet: `false` is the only value it takes. */
  readonly builtins?: false
  /** Tools of the application's own. */
  readonly tools?: Tools
}

/** The layers the graph is built from. */
export interface GraphOptions<Tools extends ReadonlyArray<Tool<unknown>> = ReadonlyArray<Tool<unknown>>>
  extends CoreOptions<Tools>
{
  /** Default `Workspace.layer` (the working directory, or `WORKSPACE_ROOT`). */
  readonly workspace?: Layer.Layer<Workspace, never, FileSystem.FileSystem>
  /** Default `ToolPolicy.layerAllowAll`. */
  readonly policy?: Layer.Layer<ToolPolicy>
  /** Default `ConfirmationGate.layer`. */
  readonly confirmation?: Layer.Layer<ConfirmationGate>
  /** Default `RateLimiter.layerMemory`. */
  readonly rateLimiter?: Layer.Layer<RateLimiter>
  /** Default `AuditLog.layerNoop`. */
  readonly audit?: Layer.Layer<AuditLog>
  /** Default `ModeGate.layer`. */
  readonly modeGate?: Layer.Layer<ModeGate, never, Workspace>
  /**
   * The executor's list of gates. Default `ToolGates.layer` (mode, policy, confirmation, rate
   * limit); `ToolGates.layerWith(...)` adds an application's own after them.
   */
  readonly gates?: Layer.Layer<ToolGates, never, BuiltinGateServices>
  /** Default `UrlPolicy.layer` (public addresses only); `TestUrlPolicy.layerAllowLoopback` in tests. */
  readonly urlPolicy?: Layer.Layer<UrlPolicy>
}

/** The facade: registers the given tools with the services of the context. */
export const makeToolSystem = <Tools extends ReadonlyArray<Tool<unknown>>>(
  options: CoreOptions<Tools>
): Effect.Effect<ToolSystemService, InvalidToolDefinition, ToolRegistry | ToolExecutor | ToolServices | RequirementsOf<Tools>> =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry
    const executor = yield* ToolExecutor
    // Each tool's requirements are captured from this context (the registry keeps them).
    // `RequirementsOf<Tools>` in this effect's type makes the application provide every one
    // of them; the list is typed `Tool<unknown>`, so the context is handed over untyped.
    const context = yield* Effect.context<ToolServices | RequirementsOf<Tools>>()
    const untyped = Context.makeUnsafe<unknown>(context.mapUnsafe)
    yield* Effect.forEach(options.tools ?? [], (tool) => Effect.provideContext(registry.register(tool), untyped), { discard: true })
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
  const core = executor.pipe(Layer.provideMerge(workspace))
  // the URL policy is provided to the tools, not merged: only the library's services come out
  return facade.pipe(Layer.provide(options.urlPolicy ?? UrlPolicy.layer), Layer.provideMerge(core))
}

/**
 * Node's platform services: file system, path, child processes and a fetch-based HTTP client,
 * loaded when the layer is built, not when the library is imported.
 */
export const nodePlatform: Layer.Layer<PlatformServices> = Layer.unwrap(
  Effect.map(
    Effect.promise(() =>
      Promise.all([
        import("@effect/platform-node/NodeFileSystem"),
        import("@effect/platform-node/NodePath"),
        import("@effect/platform-node/NodeChildProcessSpawner"),
        import("effect/http/FetchHttpClient")
      ])
    ),
    ([NodeFileSystem, NodePath, NodeChildProcessSpawner, FetchHttpClient]) =>
      Layer.mergeAll(
        NodeChildProcessSpawner.layer.pipe(Layer.provideMerge(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer))),
        FetchHttpClient.layer
      )
  )
)
