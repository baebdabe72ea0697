/**
 * The `McpBridge` service: its interface, its tag and its layers.
 *
 * Effect 4: a `Context.Service`, and its layer `Layer.effect` (scoped in Effect 4).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import { makeBridge, type McpBridgeOptions, type McpBridgeService } from "../tools/mcp/bridge.js"
import type { McpServersConfig } from "../tools/mcp/config.js"
import type { ToolRegistry } from "./ToolRegistry.js"

export type { McpBridgeOptions, McpBridgeService, SkippedServer } from "../tools/mcp/bridge.js"
export {
  type McpChangedPart,
  McpNotPending,
  type McpToolChange,
  type McpToolDefinition,
  McpToolEvent
} from "../tools/mcp/changes.js"
export type { McpServerConfig, McpServersConfig } from "../tools/mcp/config.js"
export type { ProxyTarget } from "../tools/mcp/names.js"
export type { ServerStatus as McpServerStatus } from "../tools/mcp/serverHandle.js"

/**
 * Stdio MCP servers' tools as proxies in the registry, for as long as a scope
 * lives. Each configured server is started, initialized and listed; each of its tools is
 * registered as `"{server}__{tool}"` (sanitized and shortened with a hash when needed, the
 * mapping kept in `proxies`). Servers that fail are logged and skipped. When the scope
 * closes, the proxies are unregistered and every server process is ended.
 *
 * A server's `notifications/tools/list_changed` (and each restart) lists its tools again:
 * new tools are registered, removed ones unregistered. A tool whose description, input
 * schema or `readOnlyHint` changed after it was first seen is held (the "rug-pull" attack on
 * MCP clients): its calls end with `MCP_TOOL_CHANGED`, nothing is sent, and listings keep
 * showing the definition that was trusted, until the application approves the change. The
 * registry keeps both: the new definition as the next major version, deprecated while held.
 *
 * @since 0.1.0
 * @category services
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { ToolSystem } from "effect-tool-system"
 * import { McpBridge } from "effect-tool-system/mcp"
 *
 * const Tools = McpBridge.layer({ files: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."] } })
 *   .pipe(Layer.provideMerge(ToolSystem.layerNode()))
 * ```
 *
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { McpBridge, type McpToolChange, McpToolEvent } from "effect-tool-system/mcp"
 *
 * declare const askAPerson: (change: McpToolChange) => Effect.Effect<boolean>
 *
 * // show each held change to a person, approve the ones they accept
 * const review = Effect.gen(function*() {
 *   const bridge = yield* McpBridge
 *   for (const change of yield* bridge.pending) {
 *     if (yield* askAPerson(change)) yield* bridge.approve(change.name, change.version)
 *   }
 * })
 *
 * // or react as it happens
 * const watch = Effect.flatMap(McpBridge, (bridge) =>
 *   bridge.events.pipe(
 *     Stream.filter(McpToolEvent.$is("ToolHeld")),
 *     Stream.runForEach(({ change }) => Effect.logWarning(`${change.name} changed: ${change.changed.join(", ")}`)),
 *     Effect.forkScoped
 *   ))
 * ```
 */
export class McpBridge extends Context.Service<McpBridge, McpBridgeService>()("effect-tool-system/McpBridge") {
  /**
   * Bridges `servers` into the `ToolRegistry` for the layer's lifetime. Never fails: a
   * server that cannot be used is logged and listed in `skipped`.
   */
  static readonly layer = (
    servers: McpServersConfig,
    options?: McpBridgeOptions
  ): Layer.Layer<McpBridge, never, ToolRegistry> =>
    Layer.effect(McpBridge, makeBridge(servers, options))
}
