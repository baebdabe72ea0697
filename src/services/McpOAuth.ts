/**
 * `McpOAuth`: what the MCP bridge needs from the application to be an OAuth client of remote
 * servers (`url` entries with `oauth`): someone to authorize it (the person opens the
 * authorization URL in a browser and the application gives back the code: the bridge never
 * opens a browser or prompts), and a place to keep each server's tokens and client
 * registration. Without this service an entry with `oauth` is skipped, saying so.
 *
 * The default token store (`McpOAuth.layer`) is one JSON file per server in a directory the
 * application chooses, written atomically with mode `0600`; a token file others may read or
 * write, or that belongs to another user, is refused (the server is skipped with the reason).
 *
 * @since 1.0.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { makeFileTokenStore } from "../layers/McpOAuthFileStore.js"
import type { McpAuthorizationGrant, McpAuthorizationRequest, McpOAuthError, McpTokenStore } from "../tools/mcp/oauthModels.js"

export {
  type McpAuthorizationGrant,
  type McpAuthorizationRequest,
  type McpOAuthClient,
  type McpOAuthCredentials,
  McpOAuthError,
  type McpOAuthTokens,
  type McpTokenStore,
  type McpTokenStoreKey
} from "../tools/mcp/oauthModels.js"

/**
 * The `McpOAuth` service interface.
 *
 * @since 1.0.0
 * @category services
 */
export interface McpOAuthService {
  /**
   * Has the person authorize the bridge: show or open `authorizationUrl`, and answer with the
   * code (and `iss`, `state`) that came back to `redirectUrl`. Fail (`McpOAuthError`) when the
   * person declines or does not come back: the server is then skipped, the others go on.
   */
  readonly authorize: (request: McpAuthorizationRequest) => Effect.Effect<McpAuthorizationGrant, McpOAuthError>
  /** Where each server's tokens and registration are kept. */
  readonly store: McpTokenStore
}

/**
 * OAuth as a client of remote MCP servers, for the bridge: the application's `authorize` and a
 * token store.
 *
 * @since 1.0.0
 * @category services
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { ToolSystem } from "effect-tool-system"
 * import { McpOAuth } from "effect-tool-system/mcp"
 *
 * declare const openBrowserAndWaitForRedirect: (url: URL) => Promise<URL>
 *
 * const OAuth = McpOAuth.layer({
 *   directory: ".mcp-tokens",
 *   authorize: ({ authorizationUrl }) =>
 *     Effect.map(
 *       Effect.promise(() => openBrowserAndWaitForRedirect(authorizationUrl)),
 *       (back) => ({
 *         code: back.searchParams.get("code") ?? "",
 *         iss: back.searchParams.get("iss") ?? undefined,
 *         state: back.searchParams.get("state") ?? undefined
 *       })
 *     )
 * })
 *
 * const Tools = ToolSystem.layerNode({
 *   mcpServers: { remote: { url: "https://example.com/mcp", oauth: { redirectUrl: "http://127.0.0.1:8976/callback" } } }
 * }).pipe(Layer.provide(OAuth))
 * ```
 */
export class McpOAuth extends Context.Service<McpOAuth, McpOAuthService>()("effect-tool-system/McpOAuth") {
  /**
   * `authorize`, with the default token store: one file per server in `directory` (made
   * `0700` when missing), each written atomically with mode `0600`. A file that others may
   * read or write, or that is not the user's own, is refused.
   */
  static readonly layer = (options: {
    readonly directory: string
    readonly authorize: McpOAuthService["authorize"]
  }): Layer.Layer<McpOAuth> => Layer.succeed(McpOAuth, { authorize: options.authorize, store: makeFileTokenStore(options.directory) })

  /** `authorize` with a token store of the application's (a keychain, a database). */
  static readonly layerWithStore = (service: McpOAuthService): Layer.Layer<McpOAuth> => Layer.succeed(McpOAuth, service)
}
