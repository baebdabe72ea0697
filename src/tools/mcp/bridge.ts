/**
 * The bridge: every configured server connected in the layer's scope (a stdio server's process
 * started, an HTTP server's endpoint reached), its tools registered as proxies, and every server
 * process ended (every HTTP connection closed) when the scope closes.
 *
 * Fail-open: a server that will not start, exits at once, cannot be reached, or does not answer
 * `initialize` (or the 2026 probe) in time is logged with the reason and skipped; the others
 * come up. A tool whose schema
 * cannot be compiled, or whose proxy name is taken, is logged and skipped the same way.
 *
 * After the start, each server's `notifications/tools/list_changed` (and each restart) lists
 * its tools again: new tools are registered, removed ones unregistered, and changed ones held
 * until the application approves them (`pending`, `approve`, `events`; see `catalog.ts`).
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type { AuthProvider, OAuthClientProvider } from "@modelcontextprotocol/client"
import type { InvalidToolDefinition } from "../../domain/errors.js"
import { McpElicitation } from "../../services/McpElicitation.js"
import { McpOAuth } from "../../services/McpOAuth.js"
import type { ToolRegistry } from "../../services/ToolRegistry.js"
import { makeCatalog } from "./catalog.js"
import type { McpNotPending, McpToolChange, McpToolEvent } from "./changes.js"
import { isHttpServer, type McpServersConfig } from "./config.js"
import { DEFAULT_ELICITATION_TIMEOUT } from "./elicitation.js"
import { yieldToEventLoop } from "./listingLimits.js"
import type { ProxyTarget } from "./names.js"
import { openServer, type ServerHandle, type ServerStatus } from "./serverHandle.js"
import { DEFAULT_SERVER_LIMITS } from "./serverLimits.js"

/**
 * How the bridge connects, restarts and bounds its servers.
 *
 * @since 0.1.0
 * @category models
 */
export interface McpBridgeOptions {
  /** How long a server may take to answer `initialize` (and each `tools/list` page). Default 10 s. */
  readonly initTimeout?: Duration.Input
  /** The first restart's delay after a crash; it doubles with each crash. Default 1 s. */
  readonly restartBackoff?: Duration.Input
  /** Most restarts of one server in the bridge's life. Default 3. */
  readonly maxRestarts?: number
  /** How long a server has to exit after its stdin closes, and again after SIGTERM. Default 2 s. */
  readonly stopGrace?: Duration.Input
  /** Longest output of one proxied call, in characters. Default 100,000. */
  readonly maxOutputChars?: number
  /**
   * Most bytes waiting to be written to one server (it does not read them): past it the server
   * is stopped. Default 64 MiB (above the largest arguments of one call).
   */
  readonly maxQueuedBytes?: number
  /**
   * Most messages a server may send in a second besides the answers to our requests (its
   * requests, notifications, lines that are not messages, answers to nothing): past it the
   * server is stopped. Default 1,000.
   */
  readonly maxPushedPerSecond?: number
  /**
   * Most bytes of those a server may send in a second: past it the server is stopped. Default
   * 16 MiB. An HTTP server is held to it over every response body it sends (an event stream
   * included), and to `MAX_MESSAGE_BYTES` (10 MB) for one message or event-stream line.
   */
  readonly maxPushedBytesPerSecond?: number
  /**
   * The OAuth seam of HTTP servers (`url` entries): the SDK v2 `AuthProvider` (a bearer token
   * source) or `OAuthClientProvider` to use for a server, by its name; `undefined` for none. The
   * bridge runs no OAuth flow of its own: a server that answers 401 without a provider fails to
   * connect (skipped, fail-open). Static credentials can go in the entry's `headers`. An entry
   * with `oauth` uses the `McpOAuth` service instead (this option is not asked for it).
   */
  readonly authProvider?: (server: string) => AuthProvider | OAuthClientProvider | undefined
  /**
   * How long the person has to answer a server's question (with the `McpElicitation` service):
   * past it the server gets `cancel`. Default 5 minutes. The call's own timeout runs meanwhile:
   * a call that times out withdraws its question.
   */
  readonly elicitationTimeout?: Duration.Input
}

/**
 * A server left out, and why.
 *
 * @since 0.1.0
 * @category models
 */
export interface SkippedServer {
  readonly server: string
  readonly reason: string
}

/**
 * The bridge, as a service.
 *
 * @since 0.1.0
 * @category models
 */
export interface McpBridgeService {
  /** How each server that came up stands now (up, or down after failed restarts). */
  readonly servers: Effect.Effect<ReadonlyArray<ServerStatus>>
  /** The servers left out at start, with the reason. */
  readonly skipped: ReadonlyArray<SkippedServer>
  /** Every registered proxy's name and where it leads (live: it follows the servers' changes). */
  readonly proxies: ReadonlyMap<string, ProxyTarget>
  /** Where a proxy leads (`None` for a name that is not a proxy). */
  readonly target: (name: string) => Option.Option<ProxyTarget>
  /**
   * The tools held because their server changed them after they were first seen: each call
   * of one ends with `MCP_TOOL_CHANGED` until its change is approved.
   */
  readonly pending: Effect.Effect<ReadonlyArray<McpToolChange>>
  /**
   * Approves the held change of the proxy `name`: its new version is the one that runs from
   * now on (the old one stays registered, deprecated, and refused). With `version`, only that
   * held version is approved: if the server changed the tool again since it was shown to
   * someone, this fails with `McpNotPending` naming the version held now.
   */
  readonly approve: (
    name: string,
    version?: string
  ) => Effect.Effect<McpToolChange, McpNotPending | InvalidToolDefinition>
  /** What happens to the bridged tools from now on: added, removed, held, approved, restored. */
  readonly events: Stream.Stream<McpToolEvent>
}

/**
 * Starts the servers in the current scope and registers their proxies in the registry;
 * when the scope closes, the proxies are unregistered and every server process ended.
 *
 * @internal
 */
export const makeBridge = (
  servers: McpServersConfig,
  options: McpBridgeOptions = {}
): Effect.Effect<McpBridgeService, never, ToolRegistry | Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    // optional: only the entries with `oauth` need it (without it they are skipped, saying so)
    const oauth = yield* Effect.serviceOption(McpOAuth)
    // optional: with it the servers may ask the person questions (elicitation); without it, none is declared
    const elicitation = yield* Effect.serviceOption(McpElicitation)
    const handleOptions = {
      initTimeout: Duration.fromInputUnsafe(options.initTimeout ?? Duration.seconds(10)),
      stopGrace: Duration.fromInputUnsafe(options.stopGrace ?? Duration.seconds(2)),
      restartBackoff: Duration.fromInputUnsafe(options.restartBackoff ?? Duration.seconds(1)),
      maxRestarts: options.maxRestarts ?? 3,
      authProvider: options.authProvider,
      oauth: Option.getOrUndefined(oauth),
      elicitation: Option.isNone(elicitation) ? undefined : {
        service: elicitation.value,
        timeout: Duration.fromInputUnsafe(options.elicitationTimeout ?? DEFAULT_ELICITATION_TIMEOUT)
      },
      limits: {
        maxQueuedBytes: options.maxQueuedBytes ?? DEFAULT_SERVER_LIMITS.maxQueuedBytes,
        maxPushedPerSecond: options.maxPushedPerSecond ?? DEFAULT_SERVER_LIMITS.maxPushedPerSecond,
        maxPushedBytesPerSecond: options.maxPushedBytesPerSecond ?? DEFAULT_SERVER_LIMITS.maxPushedBytesPerSecond
      }
    }
    const maxOutputChars = options.maxOutputChars ?? 100_000

    // the layers built before this one ran in the same turn of the event loop: starting the
    // servers (spawning, the SDK clients) is a turn of its own, so the two blocks do not add up
    yield* yieldToEventLoop
    // side by side: a server that is slow to answer holds no other up
    const opened = yield* Effect.forEach(
      Object.entries(servers),
      ([name, config]) => Effect.result(openServer(name, config, handleOptions, scope)),
      { concurrency: "unbounded" }
    )
    const handles: Array<ServerHandle> = []
    const skipped: Array<SkippedServer> = []
    for (const result of opened) {
      if (Result.isSuccess(result)) {
        handles.push(result.success)
        continue
      }
      const { reason, server } = result.failure
      skipped.push({ server, reason })
      yield* Effect.logWarning(`MCP server "${server}" skipped: ${reason}`)
    }

    const catalog = yield* makeCatalog({ maxOutputChars })
    for (const handle of handles) {
      yield* catalog.apply(handle, handle.tools)
      yield* handle.listen((tools) => catalog.apply(handle, tools))
      const status = yield* handle.status
      const where = isHttpServer(handle.config) ? handle.config.url : `pid ${status.pid}`
      yield* Effect.logInfo(`MCP server "${handle.name}" is up (${where}, ${handle.tools.length} tools)`)
    }

    return {
      servers: Effect.forEach(handles, (handle) => handle.status),
      skipped,
      proxies: catalog.proxies,
      target: (name) => Option.fromNullishOr(catalog.proxies.get(name)),
      pending: catalog.pending,
      approve: catalog.approve,
      events: catalog.events
    }
  })
