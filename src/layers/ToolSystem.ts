/**
 * Wiring of the whole tool system: which layers make the graph, and the facade itself.
 *
 * @since 0.1.0
 */
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as Path from "@effect/platform/Path"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Effect, Layer } from "effect"
import type { Tool } from "../domain/Tool.js"
import { ConfirmationGate } from "../services/ConfirmationGate.js"
import { ModeGate } from "../services/ModeGate.js"
import { PdfWorkers } from "../services/PdfWorkers.js"
import { RateLimiter } from "../services/RateLimiter.js"
import { SandboxPool } from "../services/SandboxPool.js"
import { ToolExecutor } from "../services/ToolExecutor.js"
import { ToolPolicy } from "../services/ToolPolicy.js"
import { ToolRegistry } from "../services/ToolRegistry.js"
import type { ToolSystemService } from "../services/ToolSystem.js"
import { Workspace } from "../services/Workspace.js"
import { builtinTools } from "../tools/builtin/index.js"

/** The services a tool handler may ask for; `ToolSystem.layer` provides them all. */
export type ToolServices =
  | Workspace
  | FileSystem.FileSystem
  | Path.Path
  | CommandExecutor.CommandExecutor
  | HttpClient.HttpClient
  | SandboxPool
  | PdfWorkers

/** What the facade registers. */
export interface CoreOptions {
  /** Register the builtin tools. Default `true`. */
  readonly builtins?: boolean
  /** More tools to register. */
  readonly tools?: ReadonlyArray<Tool<ToolServices>>
}

/** The facade's options plus the layers that replace the defaults. */
export interface GraphOptions extends CoreOptions {
  /** Default `Workspace.layer` (override, `WORKSPACE_ROOT`, cwd). */
  readonly workspace?: Layer.Layer<Workspace, never, FileSystem.FileSystem>
  /** Default `ToolPolicy.layerAllowAll`. */
  readonly policy?: Layer.Layer<ToolPolicy>
  /** Default `ConfirmationGate.layer`. */
  readonly confirmation?: Layer.Layer<ConfirmationGate>
  /** Default `RateLimiter.layerMemory`. */
  readonly rateLimiter?: Layer.Layer<RateLimiter>
  /** Default `FetchHttpClient.layer` (the web tools' client). */
  readonly httpClient?: Layer.Layer<HttpClient.HttpClient>
  /** Default `SandboxPool.layer()` (the Workers of `execute_javascript`). */
  readonly sandbox?: Layer.Layer<SandboxPool>
  /** Default `PdfWorkers.layer` (the workers of `read_pdf`). */
  readonly pdfWorkers?: Layer.Layer<PdfWorkers>
  /** Default `ModeGate.layer`. */
  readonly modeGate?: Layer.Layer<ModeGate, never, Workspace>
}

export const makeToolSystem = (
  options: CoreOptions
): Effect.Effect<ToolSystemService, never, ToolRegistry | ToolExecutor | ToolServices> =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry
    const executor = yield* ToolExecutor
    const tools = [...(options.builtins === false ? [] : builtinTools), ...(options.tools ?? [])]
    yield* Effect.forEach(tools, (tool) => registry.register(tool), { discard: true }).pipe(Effect.orDie)
    return {
      registry,
      execute: executor.execute,
      register: registry.register,
      openAITools: (listOptions) => Effect.map(registry.specs(listOptions), (specs) => specs.map((s) => s.toOpenAITool()))
    }
  })

/** Builds the graph under a facade layer. */
export const makeGraph = <A, E>(
  facade: Layer.Layer<A, E, ToolRegistry | ToolExecutor | ToolServices>,
  options: GraphOptions
) => {
  const workspace = (options.workspace ?? Workspace.layer).pipe(Layer.provide(NodeContext.layer))
  const gates = Layer.mergeAll(
    options.modeGate ?? ModeGate.layer,
    options.policy ?? ToolPolicy.layerAllowAll,
    options.confirmation ?? ConfirmationGate.layer,
    options.rateLimiter ?? RateLimiter.layerMemory,
    ToolRegistry.layerEmpty
  )
  const executor = ToolExecutor.layer.pipe(Layer.provideMerge(gates))
  return facade.pipe(
    Layer.provideMerge(executor),
    Layer.provideMerge(workspace),
    Layer.provideMerge(
      Layer.mergeAll(
        NodeContext.layer,
        options.httpClient ?? FetchHttpClient.layer,
        options.sandbox ?? SandboxPool.layer(),
        options.pdfWorkers ?? PdfWorkers.layer.pipe(Layer.provide(NodeContext.layer))
      )
    )
  )
}
