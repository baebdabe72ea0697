/**
 * The MCP bridge's configuration, in the format MCP users already write:
 * `{ "mcpServers": { "name": { "command", "args", "env" } } }` (Claude Desktop, Cursor, ...),
 * with a few optional keys of our own per server (`trusted`, `requiresConfirmation`,
 * `toolsWithoutConfirmation`, `cwd`, `initTimeoutMs`, `callTimeoutMs`, `disabled`).
 *
 * A server's annotations are hints (the MCP specification says so): an untrusted server's
 * `readOnlyHint` waives nothing. Its proxies need confirmation unless this configuration says
 * otherwise: `trusted: true` (its `readOnlyHint: true` tools then need none),
 * `toolsWithoutConfirmation` (these tools need none), or `requiresConfirmation: false`.
 *
 * Only stdio servers are bridged: an entry with a `url` (or a `type` other than `stdio`) is
 * logged and skipped; keys we do not know are ignored, so a file written for another client
 * loads as it is.
 *
 * Effect 4: `parseMcpConfig` answers a `Result` (Effect 4 has no `Either`), and a malformed
 * entry is described by Effect 4's `SchemaError` message (the main tree's used `TreeFormatter`).
 *
 * @since 0.1.0
 */
import * as FileSystem from "effect/FileSystem"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as NodePath from "node:path"

const PositiveMs = Schema.Int.check(Schema.isGreaterThan(0))

/**
 * One stdio MCP server.
 *
 * @since 0.1.0
 * @category schemas
 */
export const McpServerConfig = Schema.Struct({
  /** The executable (looked up on the `PATH` given to the server). */
  command: Schema.NonEmptyString,
  args: Schema.optional(Schema.Array(Schema.String)),
  /**
   * Variables for the server. It gets only these plus a short safe list of ours (`HOME`,
   * `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER`), never our whole environment.
   */
  env: Schema.optional(Schema.Record(Schema.String, Schema.String)),
  /** The server's working directory (in a file: relative to the file's directory). */
  cwd: Schema.optional(Schema.String),
  /**
   * Believe the server's `readOnlyHint`: its read-only tools then run in read-only modes and
   * need no confirmation. Default `false`: the hint changes nothing.
   */
  trusted: Schema.optional(Schema.Boolean),
  /**
   * `false`: no proxy of this server asks for confirmation; `true`: every one does (this
   * list and `trusted` included). Default: a proxy asks, except for the tools in
   * `toolsWithoutConfirmation` and, when the server is `trusted`, those it marks
   * `readOnlyHint: true`.
   */
  requiresConfirmation: Schema.optional(Schema.Boolean),
  /** Tools of this server (by the server's own names) that need no confirmation. */
  toolsWithoutConfirmation: Schema.optional(Schema.Array(Schema.String)),
  /** How long `initialize` may take (default: the bridge's, 10 s). */
  initTimeoutMs: Schema.optional(PositiveMs),
  /** The timeout of each proxied call (default 60 s). */
  callTimeoutMs: Schema.optional(PositiveMs),
  /** Leave the server out. */
  disabled: Schema.optional(Schema.Boolean),
  type: Schema.optional(Schema.Literal("stdio"))
})

/**
 * One stdio MCP server, decoded.
 *
 * @since 0.1.0
 * @category models
 */
export type McpServerConfig = typeof McpServerConfig.Type

/**
 * The servers to bridge, by name (the `mcpServers` object of a configuration file).
 *
 * @since 0.1.0
 * @category models
 */
export type McpServersConfig = Readonly<Record<string, McpServerConfig>>

/**
 * A configuration file that cannot be read or is not an `mcpServers` configuration.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpConfigError extends Data.TaggedError("McpConfigError")<{
  readonly file: string
  readonly reason: string
}> {
  override get message(): string {
    return `MCP configuration ${this.file}: ${this.reason}`
  }
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const decodeServer = Schema.decodeUnknownResult(McpServerConfig, { errors: "all", onExcessProperty: "ignore" })

/** An entry for a remote (HTTP/SSE) server: not bridged. */
const isRemote = (entry: unknown): boolean =>
  isRecord(entry) && (typeof entry.url === "string" || (typeof entry.type === "string" && entry.type !== "stdio"))

/**
 * What parsing a configuration found: the servers, and the entries left out with the reason.
 *
 * @since 0.1.0
 * @category models
 */
export interface ParsedMcpConfig {
  readonly servers: McpServersConfig
  readonly skipped: ReadonlyArray<{ readonly server: string; readonly reason: string }>
}

/**
 * Reads a configuration object (`{ mcpServers: {...} }`). Remote and disabled entries are
 * left out with the reason; a malformed stdio entry is an error naming it.
 *
 * @since 0.1.0
 * @category decoding
 */
export const parseMcpConfig = (value: unknown): Result.Result<ParsedMcpConfig, string> => {
  if (!isRecord(value) || !isRecord(value.mcpServers)) return Result.fail(`expected an object with an "mcpServers" object`)
  const servers: Record<string, McpServerConfig> = {}
  const skipped: Array<{ server: string; reason: string }> = []
  for (const [server, entry] of Object.entries(value.mcpServers)) {
    if (isRemote(entry)) {
      skipped.push({ server, reason: "only stdio servers (with a command) are bridged" })
      continue
    }
    const decoded = decodeServer(entry)
    if (Result.isFailure(decoded)) {
      return Result.fail(`server "${server}": ${decoded.failure.message}`)
    }
    if (decoded.success.disabled === true) {
      skipped.push({ server, reason: "disabled" })
      continue
    }
    servers[server] = decoded.success
  }
  return Result.succeed({ servers, skipped })
}

/**
 * Loads a configuration file. A relative `cwd` is taken from the file's directory; remote and
 * disabled entries are logged and left out.
 *
 * @since 0.1.0
 * @category decoding
 *
 * @example
 * ```ts
 * import { ToolSystem } from "effect-tool-system"
 * import { loadMcpConfig } from "effect-tool-system/mcp"
 * import { Effect } from "effect"
 *
 * const servers = loadMcpConfig("mcp.json") // needs the platform's FileSystem
 * const system = Effect.map(servers, (mcpServers) => ToolSystem.layerNode({ mcpServers }))
 * ```
 */
export const loadMcpConfig = (
  file: string
): Effect.Effect<McpServersConfig, McpConfigError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(file).pipe(
      Effect.mapError((error) => new McpConfigError({ file, reason: error.message }))
    )
    const json = yield* Effect.try({
      try: (): unknown => JSON.parse(text),
      catch: (error) => new McpConfigError({ file, reason: `not JSON: ${error instanceof Error ? error.message : String(error)}` })
    })
    const parsed = parseMcpConfig(json)
    if (Result.isFailure(parsed)) return yield* new McpConfigError({ file, reason: parsed.failure })
    for (const { reason, server } of parsed.success.skipped) {
      yield* Effect.logWarning(`MCP server "${server}" in ${file} is skipped: ${reason}`)
    }
    const base = NodePath.dirname(NodePath.resolve(file))
    const servers: Record<string, McpServerConfig> = {}
    for (const [name, server] of Object.entries(parsed.success.servers)) {
      servers[name] = server.cwd === undefined ? server : { ...server, cwd: NodePath.resolve(base, server.cwd) }
    }
    return servers
  })
