/**
 * Serving the registry on this process's stdin and stdout, and the pieces the command line
 * needs: a system layer with the servers of an `--mcp-config` file bridged in, and the
 * `mcp` command itself.
 *
 * On stdio, stdout carries the protocol only: Effect's default logger (which writes to
 * stdout) is replaced by one on stderr for as long as the server runs.
 *
 * Effect 4: stdout is kept for the protocol with the `References.LogToStderr` reference, which
 * sends Effect's built-in console loggers (the default one included) to `console.error`; the main
 * tree replaced the default logger with a pretty one on stderr, so the lines' format differs (the
 * default logger's), not where they go.
 *
 * @since 0.1.0
 */
import type * as FileSystem from "effect/FileSystem"
import type * as Path from "effect/Path"
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as References from "effect/References"
import type { Readable, Writable } from "node:stream"
import type { AgentMode } from "../../domain/AgentMode.js"
import type { InvalidToolDefinition } from "../../domain/errors.js"
import type { AuditLog } from "../../services/AuditLog.js"
import type { Tool } from "../../domain/Tool.js"
import { McpBridge } from "../../services/McpBridge.js"
import { RateLimiter } from "../../services/RateLimiter.js"
import type { ToolRegistry } from "../../services/ToolRegistry.js"
import { ToolSystem } from "../../services/ToolSystem.js"
import { Workspace } from "../../services/Workspace.js"
import { builtinTools } from "../builtin/index.js"
import type { McpBridgeOptions } from "./bridge.js"
import { loadMcpConfig, type McpConfigError } from "./config.js"
import { serveMcpHttp } from "./http.js"
import type { McpHttpAuthOptions } from "./httpAuth.js"
import { serveMcp } from "./serve.js"
import { McpServeError, type McpServeOptions } from "./server.js"

/**
 * Effect's built-in console loggers (the default one included) on stderr instead of stdout
 * (other loggers are left alone): Effect 4's `LogToStderr` reference.
 */
const stderrLogger = Layer.succeed(References.LogToStderr, true)

/**
 * The two streams the protocol goes over: a client's messages in, the server's out.
 *
 * @since 0.1.0
 * @category models
 */
export interface McpStdioStreams {
  readonly stdin: Readable
  readonly stdout: Writable
}

/**
 * What `serveMcpStdio` takes: `serveMcp`'s options, and the streams to serve on.
 *
 * @since 0.1.0
 * @category models
 */
export interface McpStdioOptions extends McpServeOptions {
  /** Default: this process's stdin and stdout. */
  readonly streams?: McpStdioStreams | undefined
}

/**
 * Serves the registry over this process's stdin and stdout (or `options.streams`) until the
 * input ends (the client went away) or the fiber is interrupted.
 *
 * @since 0.1.0
 * @category running
 */
export const serveMcpStdio = (
  options: McpStdioOptions = {}
): Effect.Effect<void, McpServeError, ToolSystem | ToolRegistry> =>
  Effect.gen(function*() {
    const { stdin, stdout } = options.streams ?? process
    // SDK v2's stdio transport ends on the end (or close) of stdin, and stops listening when closed
    yield* serveMcp(new StdioServerTransport(stdin, stdout), options)
  }).pipe(Effect.provide(stderrLogger))

/**
 * `system` with the servers of a configuration file bridged into its registry (unchanged
 * when `file` is `undefined`). The servers live as long as the layer.
 *
 * @since 0.1.0
 * @category layers
 *
 * @example
 * ```ts
 * import { NodeFileSystem } from "@effect/platform-node"
 * import { Effect, Layer } from "effect"
 * import { ToolSystem } from "effect-tool-system"
 * import { withMcpConfigFile } from "effect-tool-system/mcp"
 *
 * const program = Effect.flatMap(ToolSystem, (tools) => tools.openAITools())
 * const withServers = Effect.provide(
 *   program,
 *   withMcpConfigFile(ToolSystem.layerNode(), "mcp.json").pipe(Layer.provide(NodeFileSystem.layer))
 * )
 * ```
 */
export const withMcpConfigFile = <A, E, R>(
  system: Layer.Layer<A | ToolRegistry, E, R>,
  file: string | undefined,
  options?: McpBridgeOptions
): Layer.Layer<A | ToolRegistry, E | McpConfigError, R | FileSystem.FileSystem> =>
  file === undefined ? system : Layer.unwrap(
    Effect.map(loadMcpConfig(file), (servers) => McpBridge.layer(servers, options).pipe(Layer.provideMerge(system)))
  )

/**
 * What `effect-tool-system mcp` takes.
 *
 * @since 0.1.0
 * @category models
 */
export interface McpCommandOptions {
  readonly mode?: AgentMode | undefined
  /** The workspace root (default: the live resolver: `WORKSPACE_ROOT`, else the cwd). */
  readonly workspace?: string | undefined
  /** `--yes`: every call is confirmed. */
  readonly yes?: boolean | undefined
  /** `--mcp-config FILE`: servers to bridge in (and serve on). */
  readonly mcpConfig?: string | undefined
  readonly tags?: ReadonlyArray<string> | undefined
  /** `--audit FILE`: the audit log of every served call. */
  readonly audit?: Layer.Layer<AuditLog, never, FileSystem.FileSystem | Path.Path> | undefined
  /** Where to serve. Default: this process's stdin and stdout. */
  readonly streams?: McpStdioStreams | undefined
  /**
   * `--http HOST:PORT`: serve over Streamable HTTP there instead of stdio, until interrupted
   * (loopback hosts only are accepted in `Host` and `Origin` headers unless `host` is another).
   */
  readonly http?: string | undefined
  /**
   * `--oauth-issuer URL --oauth-audience URL [--oauth-jwks URL]` (with `http` only): serve as an
   * OAuth 2.1 resource server, bearer JWTs of that issuer for that audience (see
   * `McpHttpAuthOptions`).
   */
  readonly oauth?: McpHttpAuthOptions | undefined
  /**
   * `--sessions` (with `http` only): 2025-11-25 clients get sessions, so a call that needs
   * confirmation asks them (`McpHttpOptions.sessions`, default caps).
   */
  readonly sessions?: boolean | undefined
  /**
   * `--session-route NAME` (with `sessions` only): this process's tag before its session ids, for
   * a load balancer to send each session to its process (`McpHttpSessionOptions.route`).
   */
  readonly sessionRoute?: string | undefined
  /**
   * `--rate-limit TOOL=RPM` (repeatable): served calls of these builtin or ported tools take a
   * token of a bucket of `RPM` calls a minute (in place of the tool's own `rateLimitRpm`). A name
   * that is neither fails the command.
   */
  readonly rateLimits?: Readonly<Record<string, number>> | undefined
  /**
   * `--rate-limit-redis URL`: the buckets are kept in this Redis (`RateLimiter.layerRedis`,
   * fail-closed), shared by every process pointed at it (several `mcp --http` behind a load
   * balancer); default: in this process's memory.
   */
  readonly rateLimitRedis?: string | undefined
}

/**
 * `HOST:PORT` (`[::1]:PORT` for IPv6) as a host and a port, or why not.
 *
 * @internal
 */
export const parseHostPort = (text: string): { readonly host: string; readonly port: number } | string => {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(text.trim())
  const port = Number(match?.[3])
  const host = match?.[1] ?? match?.[2]
  if (host === undefined || !Number.isInteger(port) || port > 65535) {
    return `--http wants HOST:PORT (e.g. 127.0.0.1:3000), not ${JSON.stringify(text)}`
  }
  return { host, port }
}

/**
 * The builtin and ported tools, with the rate limits of `--rate-limit` in place of their own, or
 * why not (a name that is not one of them).
 */
const rateLimited = (
  limits: Readonly<Record<string, number>>
): Effect.Effect<ReadonlyArray<Tool<unknown>>, McpServeError> =>
  Effect.flatMap(Effect.promise(() => import("../ported/index.js")), ({ portedTools }) => {
    const tools: ReadonlyArray<Tool<unknown>> = [...builtinTools, ...portedTools]
    const unknown = Object.keys(limits).filter((name) => !tools.some((tool) => tool.name === name))
    if (unknown.length > 0) {
      return Effect.fail(new McpServeError({ reason: `--rate-limit: no builtin or ported tool ${unknown.join(", ")}` }))
    }
    return Effect.succeed(tools.map((tool) => {
      const rpm = limits[tool.name]
      return rpm === undefined ? tool : { ...tool, rateLimitRpm: rpm }
    }))
  })

/** The hosts a server bound to `host` answers to: loopback, plus `host` itself when it is not. */
const hostsFor = (host: string): ReadonlyArray<string> | undefined =>
  ["127.0.0.1", "localhost", "::1"].includes(host) ? undefined : ["localhost", "127.0.0.1", "[::1]", host]

/**
 * `effect-tool-system mcp`: serves the whole registry (builtins, plus the bridged servers of
 * `--mcp-config`) over stdio until the client goes away. Logs, the bridge's included, go to
 * stderr.
 *
 * @since 0.1.0
 * @category running
 */
export const runMcpCommand = (
  options: McpCommandOptions
): Effect.Effect<void, McpServeError | McpConfigError | InvalidToolDefinition, FileSystem.FileSystem> => {
  const serveOptions = { mode: options.mode, confirmation: options.yes === true ? "auto" as const : "ask" as const, tags: options.tags }
  const http = options.http === undefined ? undefined : parseHostPort(options.http)
  const oauthProblem = options.oauth === undefined
    ? undefined
    : http === undefined
    ? "--oauth-issuer and --oauth-audience serve over HTTP only: add --http HOST:PORT"
    : options.oauth.issuer === "" || options.oauth.resource === ""
    ? "--oauth-issuer and --oauth-audience go together"
    : undefined
  const problem = oauthProblem ?? (options.sessions === true && http === undefined
    ? "--sessions serves over HTTP only: add --http HOST:PORT"
    : options.sessionRoute !== undefined && options.sessions !== true
    ? "--session-route names this process's sessions: add --sessions"
    : undefined)
  const serving: Effect.Effect<void, McpServeError, ToolSystem | ToolRegistry> = problem !== undefined
    ? Effect.fail(new McpServeError({ reason: problem }))
    : http === undefined
    ? serveMcpStdio({ ...serveOptions, streams: options.streams })
    : typeof http === "string"
    ? Effect.fail(new McpServeError({ reason: http }))
    : Effect.scoped(Effect.gen(function*() {
      const hosts = hostsFor(http.host)
      const { url } = yield* serveMcpHttp({
        ...serveOptions,
        ...http,
        allowedHosts: hosts,
        allowedOrigins: hosts,
        auth: options.oauth,
        sessions: options.sessions === true ? { route: options.sessionRoute } : undefined
      })
      yield* Effect.logInfo(`Serving MCP on ${url}`)
      return yield* Effect.never
    }))
  const limits = options.rateLimits
  const system = Layer.unwrap(Effect.map(
    limits === undefined || Object.keys(limits).length === 0
      ? Effect.succeed({})
      : Effect.map(rateLimited(limits), (tools) => ({ builtins: false, tools })),
    (tools) =>
      ToolSystem.layerNode({
        ...tools,
        ...(options.workspace === undefined ? {} : { workspace: Workspace.layerFixed(options.workspace) }),
        ...(options.audit === undefined ? {} : { audit: options.audit }),
        ...(options.rateLimitRedis === undefined ? {} : { rateLimiter: RateLimiter.layerRedis({ redis: options.rateLimitRedis }) })
      })
  ))
  return serving.pipe(
    Effect.provide(withMcpConfigFile(system, options.mcpConfig)),
    Effect.provide(stderrLogger)
  )
}
