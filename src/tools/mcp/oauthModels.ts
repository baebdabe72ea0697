/**
 * The models of OAuth as a client of remote MCP servers (the `McpOAuth` service's): the
 * authorization asked for and given, what is kept for a server, the token store, the error.
 *
 * @since 1.0.0
 */
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"

/**
 * The authorization the bridge asks the application for: the person should open
 * `authorizationUrl`, and the application answers with what came back to `redirectUrl`.
 *
 * @since 1.0.0
 * @category models
 */
export interface McpAuthorizationRequest {
  /** The server's name in the configuration. */
  readonly server: string
  /** The server's MCP endpoint. */
  readonly url: string
  /** Where the person authorizes the bridge (PKCE and `state` included). */
  readonly authorizationUrl: URL
  /** Where the authorization server sends the person back, with `code` (and `iss`, `state`). */
  readonly redirectUrl: string
}

/**
 * The authorization response (the query of the redirect): `code`, and `iss` and `state` when
 * they came with it. `iss` is checked against the authorization server (RFC 9207) and `state`
 * against the request's.
 *
 * @since 1.0.0
 * @category models
 */
export interface McpAuthorizationGrant {
  readonly code: string
  readonly iss?: string | undefined
  readonly state?: string | undefined
}

/**
 * A server's tokens, as kept (`expires_at`: when the access token expires, in ms since the epoch).
 *
 * @since 1.0.0
 * @category models
 */
export interface McpOAuthTokens {
  readonly access_token: string
  readonly token_type: string
  readonly refresh_token?: string | undefined
  readonly scope?: string | undefined
  readonly id_token?: string | undefined
  readonly expires_at?: number | undefined
  /** The authorization server that issued them. */
  readonly issuer?: string | undefined
}

/**
 * The bridge's registration with a server's authorization server, as kept.
 *
 * @since 1.0.0
 * @category models
 */
export interface McpOAuthClient {
  readonly client_id: string
  readonly client_secret?: string | undefined
  readonly client_id_issued_at?: number | undefined
  readonly client_secret_expires_at?: number | undefined
  readonly token_endpoint_auth_method?: string | undefined
  readonly issuer?: string | undefined
}

/**
 * What is kept for one server: its tokens and registration, bound to the server's URL (kept
 * credentials of another URL are not used).
 *
 * @since 1.0.0
 * @category models
 */
export interface McpOAuthCredentials {
  /** The MCP endpoint they were obtained for. */
  readonly resource: string
  readonly tokens?: McpOAuthTokens | undefined
  readonly client?: McpOAuthClient | undefined
}

/**
 * Which server's credentials: its name, and the entry's `oauth.tokenFile` (a hint for a file
 * store; another store may ignore it).
 *
 * @since 1.0.0
 * @category models
 */
export interface McpTokenStoreKey {
  readonly server: string
  readonly tokenFile?: string | undefined
}

/**
 * Where the credentials of each server are kept. Secrets: a store must keep them from other
 * users, and never log them.
 *
 * @since 1.0.0
 * @category models
 */
export interface McpTokenStore {
  readonly load: (key: McpTokenStoreKey) => Effect.Effect<Option.Option<McpOAuthCredentials>, McpOAuthError>
  readonly save: (key: McpTokenStoreKey, credentials: McpOAuthCredentials) => Effect.Effect<void, McpOAuthError>
  readonly clear: (key: McpTokenStoreKey) => Effect.Effect<void, McpOAuthError>
}

/**
 * An OAuth step of a server failed: the authorization declined or impossible, a token store
 * that cannot be used. `reason` never holds a token or a secret.
 *
 * @since 1.0.0
 * @category errors
 */
export class McpOAuthError extends Data.TaggedError("McpOAuthError")<{
  readonly server: string
  readonly reason: string
}> {
  override get message(): string {
    return `OAuth for MCP server "${this.server}": ${this.reason}`
  }
}
