/**
 * The MCP bridge's configuration, in the format MCP users already write:
 * `{ "mcpServers": { "name": { "command", "args", "env" } } }` for a stdio server, and
 * `{ "mcpServers": { "name": { "url", "headers" } } }` for a Streamable HTTP one (Claude Desktop,
 * Cursor, VS Code, ...), with a few optional keys of our own per server (`trusted`,
 * `requiresConfirmation`, `toolsWithoutConfirmation`, `cwd`, `initTimeoutMs`, `callTimeoutMs`,
 * `disabled`, `protocol`, `allowInsecureHttp`, `oauth`).
 *
 * A server's annotations are hints (the MCP specification says so): an untrusted server's
 * `readOnlyHint` waives nothing. Its proxies need confirmation unless this configuration says
 * otherwise: `trusted: true` (its `readOnlyHint: true` tools then need none),
 * `toolsWithoutConfirmation` (these tools need none), or `requiresConfirmation: false`.
 *
 * An entry with a `url` (or a `type` of `http`, `streamable-http` or `streamableHttp`) is an HTTP
 * server (`McpHttpServerConfig`: `https:`, or plain `http:` to loopback only unless
 * `allowInsecureHttp`); any other is a stdio one. The old HTTP+SSE transport (`"type": "sse"`) is
 * logged and skipped; keys we do not know are ignored, so a file written for another client
 * loads as it is. `protocol` chooses the protocol era (`McpProtocolMode`: 2025's `initialize`, the
 * 2026-07-28 revision, or a probe for it).
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
 * Which MCP protocol era a server is spoken to in (SDK v2's version negotiation):
 *
 * - `"legacy"`: the 2025 `initialize` handshake (up to 2025-11-25), as every MCP client did
 *   before 2026; no probe. The default of a stdio server: a 2025-era stdio server that ignores
 *   the 2026 probe would hold every start (and restart) until the probe's timeout.
 * - `"auto"`: probe with `server/discover` (2026-07-28) and fall back to `initialize` when the
 *   server shows no 2026 support. The default of an HTTP server, where the probe is one POST a
 *   2025-era server refuses at once. On stdio the probe is answered within 2 s or taken as a
 *   2025-era server.
 * - `"2026-07-28"`: that revision only (pinned): a server that does not offer it is skipped.
 *
 * @since 1.0.0
 * @category schemas
 */
export const McpProtocolMode = Schema.Literals(["legacy", "auto", "2026-07-28"])

/**
 * The protocol era a server is spoken to in: `"legacy"`, `"auto"` or `"2026-07-28"`.
 *
 * @since 1.0.0
 * @category models
 */
export type McpProtocolMode = typeof McpProtocolMode.Type

/** The keys of our own that every entry may have, stdio or HTTP. */
const common = {
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
  /** How long `initialize` (or the 2026 probe) and the listing may take (default: the bridge's, 10 s). */
  initTimeoutMs: Schema.optional(PositiveMs),
  /** The timeout of each proxied call (default 60 s). */
  callTimeoutMs: Schema.optional(PositiveMs),
  /** Leave the server out. */
  disabled: Schema.optional(Schema.Boolean),
  /** The protocol era to speak (`McpProtocolMode`); default `"legacy"` on stdio, `"auto"` over HTTP. */
  protocol: Schema.optional(McpProtocolMode)
}

/**
 * One stdio MCP server.
 *
 * @since 1.0.0
 * @category schemas
 */
export const McpStdioServerConfig = Schema.Struct({
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
  ...common,
  type: Schema.optional(Schema.Literal("stdio"))
})

/**
 * One stdio MCP server's configuration, as decoded.
 *
 * @since 1.0.0
 * @category models
 */
export type McpStdioServerConfig = typeof McpStdioServerConfig.Type

/**
 * OAuth as a client for one remote server (MCP authorization): on its first `401` the bridge
 * discovers the authorization server (Protected Resource Metadata, RFC 9728, then RFC 8414),
 * identifies itself (`clientId`, or a client ID metadata document at `clientMetadataUrl` when
 * the server supports them, else dynamic registration, RFC 7591), and runs the authorization
 * code flow with PKCE (S256). The person's part (opening the authorization URL, giving back the
 * code) is the application's `McpOAuth` service; the tokens are kept in its token store (by
 * default one file per server, mode `0600`). The authorization response's `iss` is checked
 * against the authorization server's (RFC 9207); an expired access token is refreshed, and a
 * refused refresh authorizes again.
 *
 * @since 1.0.0
 * @category schemas
 */
export const McpOAuthConfig = Schema.Struct({
  /** Where the authorization server sends the person back (registered with it as a redirect URI). */
  redirectUrl: Schema.NonEmptyString,
  /** A client ID registered with the authorization server beforehand (no registration then). */
  clientId: Schema.optional(Schema.NonEmptyString),
  /** The secret of `clientId`, for a confidential client. Never logged. */
  clientSecret: Schema.optional(Schema.String),
  /**
   * The `https:` URL of this client's metadata document (a client ID metadata document), used as
   * its client ID when the authorization server supports them; else the bridge registers itself.
   */
  clientMetadataUrl: Schema.optional(Schema.NonEmptyString),
  /**
   * The scope to ask for when the server names none (its `WWW-Authenticate` challenge, then its
   * metadata's `scopes_supported`, come first).
   */
  scope: Schema.optional(Schema.String),
  /**
   * The file the default token store keeps the server's tokens in (default: one in its
   * directory); in a configuration file, relative to the file's directory.
   */
  tokenFile: Schema.optional(Schema.NonEmptyString)
})

/**
 * A remote server's OAuth configuration, as decoded.
 *
 * @since 1.0.0
 * @category models
 */
export type McpOAuthConfig = typeof McpOAuthConfig.Type

/**
 * One remote MCP server, over Streamable HTTP.
 *
 * `url` must be `https:`, or `http:` to a loopback host (`127.0.0.1`, `[::1]`, `localhost`):
 * plain HTTP to any other host would carry the calls and `headers` (a bearer token, say) in the
 * clear, and is refused unless `allowInsecureHttp` is `true`. Other schemes are refused. A URL
 * refused is a server skipped, with the reason (fail-open, as a server that does not start).
 *
 * @since 1.0.0
 * @category schemas
 */
export const McpHttpServerConfig = Schema.Struct({
  /** The server's MCP endpoint (e.g. `https://example.com/mcp`). */
  url: Schema.NonEmptyString,
  /** Headers sent with every request (e.g. a static `Authorization`). */
  headers: Schema.optional(Schema.Record(Schema.String, Schema.String)),
  /** OAuth as a client (`McpOAuthConfig`); needs the `McpOAuth` service. */
  oauth: Schema.optional(McpOAuthConfig),
  /** Allow plain `http:` to a host that is not loopback. Default `false`. */
  allowInsecureHttp: Schema.optional(Schema.Boolean),
  ...common,
  type: Schema.optional(Schema.Literals(["http", "streamable-http", "streamableHttp"]))
})

/**
 * One Streamable HTTP MCP server's configuration, as decoded.
 *
 * @since 1.0.0
 * @category models
 */
export type McpHttpServerConfig = typeof McpHttpServerConfig.Type

/**
 * One MCP server: stdio (`command`) or Streamable HTTP (`url`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const McpServerConfig = Schema.Union([McpStdioServerConfig, McpHttpServerConfig])

/**
 * One MCP server, decoded.
 *
 * @since 0.1.0
 * @category models
 */
export type McpServerConfig = typeof McpServerConfig.Type

/**
 * Whether an entry is a remote (HTTP) server.
 *
 * @since 0.6.0
 * @category guards
 */
export const isHttpServer = (config: McpServerConfig): config is McpHttpServerConfig => "url" in config

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

const decodeStdio = Schema.decodeUnknownResult(McpStdioServerConfig, { errors: "all", onExcessProperty: "ignore" })
const decodeHttp = Schema.decodeUnknownResult(McpHttpServerConfig, { errors: "all", onExcessProperty: "ignore" })

/** Why an entry is not bridged at all (the old HTTP+SSE transport), or `undefined`. */
const unsupported = (entry: unknown): string | undefined =>
  isRecord(entry) && entry.type === "sse"
    ? `the HTTP+SSE transport (protocol 2024-11-05) is not bridged; a Streamable HTTP endpoint is ("url" without "type": "sse")`
    : undefined

/** The entry decoded as an HTTP server when it has a `url` (or an HTTP `type`), else as a stdio one. */
const decodeServer = (entry: unknown): Result.Result<McpServerConfig, Schema.SchemaError> =>
  isRecord(entry) && ("url" in entry || (typeof entry.type === "string" && entry.type !== "stdio"))
    ? decodeHttp(entry)
    : decodeStdio(entry)

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
 * Reads a configuration object (`{ mcpServers: {...} }`). HTTP+SSE (`"type": "sse"`) and
 * disabled entries are left out with the reason; a malformed entry is an error naming it.
 *
 * @since 0.1.0
 * @category decoding
 */
export const parseMcpConfig = (value: unknown): Result.Result<ParsedMcpConfig, string> => {
  if (!isRecord(value) || !isRecord(value.mcpServers)) return Result.fail(`expected an object with an "mcpServers" object`)
  const servers: Record<string, McpServerConfig> = {}
  const skipped: Array<{ server: string; reason: string }> = []
  for (const [server, entry] of Object.entries(value.mcpServers)) {
    const why = unsupported(entry)
    if (why !== undefined) {
      skipped.push({ server, reason: why })
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
 * Loads a configuration file. A relative `cwd` (or `oauth.tokenFile`) is taken from the file's directory; HTTP+SSE and
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
      servers[name] = isHttpServer(server)
        ? server.oauth?.tokenFile === undefined
          ? server
          : { ...server, oauth: { ...server.oauth, tokenFile: NodePath.resolve(base, server.oauth.tokenFile) } }
        : server.cwd === undefined
        ? server
        : { ...server, cwd: NodePath.resolve(base, server.cwd) }
    }
    return servers
  })
