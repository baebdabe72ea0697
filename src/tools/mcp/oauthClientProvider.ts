/**
 * An entry's `oauth` as SDK v2's `OAuthClientProvider`, over the application's `McpOAuth`
 * service: the SDK's `auth` runs the protocol (discovery by RFC 9728 and RFC 8414, client ID
 * metadata documents or dynamic registration, PKCE, the token and refresh requests, the `iss`
 * check of RFC 9207 on the callback leg); this provider answers what it asks for. It is driven
 * by `oauthProvider.ts`, one flow at a time, never handed to a transport.
 *
 * - Tokens and registration are loaded from the store once (`makeClientProvider` fails with the
 *   store's reason: a token file with loose permissions skips the server) and saved on each
 *   change. Kept credentials of another URL than the entry's are not used (a token is sent to
 *   the resource it was obtained for only).
 * - `redirectToAuthorization` asks the application (`authorize`) and keeps its answer for the
 *   flow to finish with (`takeGrant`, then `auth` with the code, which checks `iss`). A `state`
 *   that came back is compared with the one sent.
 * - The PKCE verifier lives in memory. The discovery (the authorization server, its metadata)
 *   is kept only for the callback leg (`onCallbackLeg`: the code is exchanged with the
 *   authorization server that issued it); each flow discovers again, so a server that moved to
 *   another authorization server is followed (the client registers there anew: a registration
 *   and tokens are bound to their issuer).
 *
 * Nothing here logs or puts a token or secret in a message.
 *
 * @since 1.0.0
 */
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens
} from "@modelcontextprotocol/client"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { randomBytes } from "node:crypto"
import type { McpHttpServerConfig, McpOAuthConfig } from "./config.js"
import {
  type McpAuthorizationGrant,
  type McpOAuthClient,
  type McpOAuthCredentials,
  McpOAuthError,
  type McpOAuthTokens,
  type McpTokenStore,
  type McpTokenStoreKey
} from "./oauthModels.js"

/**
 * What the bridge needs of the `McpOAuth` service (its interface, without the tag).
 *
 * @internal
 */
export interface OAuthService {
  readonly authorize: (request: {
    readonly server: string
    readonly url: string
    readonly authorizationUrl: URL
    readonly redirectUrl: string
  }) => Effect.Effect<McpAuthorizationGrant, McpOAuthError>
  readonly store: McpTokenStore
}

/**
 * The provider, and the authorization response it is holding for the flow.
 *
 * @internal
 */
export interface ClientProvider extends OAuthClientProvider {
  /** The tokens held now (the store's, or the last saved). */
  readonly current: () => McpOAuthTokens | undefined
  /** The authorization response given by the application since the last call, once. */
  readonly takeGrant: () => McpAuthorizationGrant | undefined
  /** Runs `finish` (`auth` with the code) with the discovery that led to the authorization. */
  readonly onCallbackLeg: <A>(finish: () => Promise<A>) => Promise<A>
}

/** The metadata the bridge registers with (or publishes at `clientMetadataUrl`). */
const clientMetadataOf = (oauth: McpOAuthConfig): OAuthClientMetadata => ({
  client_name: "effect-tool-system",
  redirect_uris: [oauth.redirectUrl],
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  token_endpoint_auth_method: "none",
  ...(oauth.scope === undefined ? {} : { scope: oauth.scope })
})

const tokensOf = (tokens: StoredOAuthTokens, now: number): McpOAuthTokens => ({
  access_token: tokens.access_token,
  token_type: tokens.token_type,
  ...(tokens.refresh_token === undefined ? {} : { refresh_token: tokens.refresh_token }),
  ...(tokens.scope === undefined ? {} : { scope: tokens.scope }),
  ...(tokens.id_token === undefined ? {} : { id_token: tokens.id_token }),
  ...(tokens.expires_in === undefined ? {} : { expires_at: now + tokens.expires_in * 1000 }),
  ...(tokens.issuer === undefined ? {} : { issuer: tokens.issuer })
})

const storedTokens = (tokens: McpOAuthTokens, now: number): StoredOAuthTokens => ({
  access_token: tokens.access_token,
  token_type: tokens.token_type,
  ...(tokens.refresh_token === undefined ? {} : { refresh_token: tokens.refresh_token }),
  ...(tokens.scope === undefined ? {} : { scope: tokens.scope }),
  ...(tokens.id_token === undefined ? {} : { id_token: tokens.id_token }),
  ...(tokens.expires_at === undefined ? {} : { expires_in: Math.max(0, Math.floor((tokens.expires_at - now) / 1000)) }),
  ...(tokens.issuer === undefined ? {} : { issuer: tokens.issuer })
})

const clientOf = (info: StoredOAuthClientInformation): McpOAuthClient => ({
  client_id: info.client_id,
  ...(info.client_secret === undefined ? {} : { client_secret: info.client_secret }),
  ...(info.client_id_issued_at === undefined ? {} : { client_id_issued_at: info.client_id_issued_at }),
  ...(info.client_secret_expires_at === undefined ? {} : { client_secret_expires_at: info.client_secret_expires_at }),
  ...("token_endpoint_auth_method" in info && info.token_endpoint_auth_method !== undefined
    ? { token_endpoint_auth_method: info.token_endpoint_auth_method }
    : {}),
  ...(info.issuer === undefined ? {} : { issuer: info.issuer })
})

const storedClient = (client: McpOAuthClient): StoredOAuthClientInformation => ({
  client_id: client.client_id,
  ...(client.client_secret === undefined ? {} : { client_secret: client.client_secret }),
  ...(client.client_id_issued_at === undefined ? {} : { client_id_issued_at: client.client_id_issued_at }),
  ...(client.client_secret_expires_at === undefined ? {} : { client_secret_expires_at: client.client_secret_expires_at }),
  ...(client.token_endpoint_auth_method === undefined ? {} : { token_endpoint_auth_method: client.token_endpoint_auth_method }),
  ...(client.issuer === undefined ? {} : { issuer: client.issuer })
})

/**
 * The SDK provider of `server` (its entry has `oauth`), with its kept credentials loaded. Fails
 * with the store's reason when they cannot be read.
 *
 * @internal
 */
export const makeClientProvider = (
  server: string,
  config: McpHttpServerConfig & { readonly oauth: McpOAuthConfig },
  service: OAuthService
): Effect.Effect<ClientProvider, McpOAuthError> =>
  Effect.gen(function*() {
    const oauth = config.oauth
    const key: McpTokenStoreKey = { server, ...(oauth.tokenFile === undefined ? {} : { tokenFile: oauth.tokenFile }) }
    const loaded = yield* service.store.load(key)
    // credentials obtained for another URL are not sent here
    let current: McpOAuthCredentials = Option.isSome(loaded) && loaded.value.resource === config.url
      ? loaded.value
      : { resource: config.url }
    const context = yield* Effect.context<never>()
    const run = async <A>(effect: Effect.Effect<A, McpOAuthError>): Promise<A> => {
      const exit = await Effect.runPromiseExitWith(context)(effect)
      if (Exit.isSuccess(exit)) return exit.value
      const error = Option.getOrUndefined(Exit.findErrorOption(exit))
      throw error ?? new McpOAuthError({ server, reason: "the OAuth step was interrupted" })
    }
    const persist = (next: McpOAuthCredentials): Promise<void> => {
      current = next
      return next.tokens === undefined && next.client === undefined ? run(service.store.clear(key)) : run(service.store.save(key, next))
    }
    let verifier: string | undefined
    let discovery: OAuthDiscoveryState | undefined
    let sentState: string | undefined
    let grant: McpAuthorizationGrant | undefined
    let callbackLeg = false
    const staticClient: StoredOAuthClientInformation | undefined = oauth.clientId === undefined
      ? undefined
      : { client_id: oauth.clientId, ...(oauth.clientSecret === undefined ? {} : { client_secret: oauth.clientSecret }) }

    const provider: ClientProvider = {
      get redirectUrl() {
        return oauth.redirectUrl
      },
      ...(oauth.clientMetadataUrl === undefined ? {} : { clientMetadataUrl: oauth.clientMetadataUrl }),
      get clientMetadata() {
        return clientMetadataOf(oauth)
      },
      state: () => {
        sentState = randomBytes(16).toString("base64url")
        return sentState
      },
      clientInformation: () => staticClient ?? (current.client === undefined ? undefined : storedClient(current.client)),
      saveClientInformation: (info) => {
        // a client ID of the configuration is not kept (it is the configuration's)
        if (staticClient !== undefined) return
        return persist({ ...current, client: clientOf(info) })
      },
      // only `auth` reads these (the bearer of a request is `oauthProvider.ts`'s): expired ones too, to refresh them
      tokens: () => (current.tokens === undefined ? undefined : storedTokens(current.tokens, Date.now())),
      saveTokens: (tokens) => persist({ ...current, tokens: tokensOf(tokens, Date.now()) }),
      redirectToAuthorization: async (authorizationUrl) => {
        grant = undefined
        const given = await run(service.authorize({ server, url: config.url, authorizationUrl, redirectUrl: oauth.redirectUrl }))
        if (given.state !== undefined && sentState !== undefined && given.state !== sentState) {
          throw new McpOAuthError({ server, reason: "the authorization response's state is not the one sent; it is refused" })
        }
        if (given.code === "") throw new McpOAuthError({ server, reason: "the authorization response has no code" })
        grant = given
      },
      saveCodeVerifier: (codeVerifier) => {
        verifier = codeVerifier
      },
      codeVerifier: () => {
        if (verifier === undefined) throw new McpOAuthError({ server, reason: "no authorization was started (no PKCE verifier)" })
        return verifier
      },
      saveDiscoveryState: (state) => {
        discovery = state
      },
      discoveryState: () => (callbackLeg ? discovery : undefined),
      invalidateCredentials: (scope) => {
        if (scope === "verifier" || scope === "all") verifier = undefined
        if (scope === "discovery" || scope === "all") discovery = undefined
        if (scope === "discovery" || scope === "verifier") return
        return persist({
          resource: current.resource,
          ...(scope === "tokens" || scope === "all" || current.tokens === undefined ? {} : { tokens: current.tokens }),
          ...(scope === "client" || scope === "all" || current.client === undefined ? {} : { client: current.client })
        })
      },
      onCallbackLeg: async (finish) => {
        callbackLeg = true
        try {
          return await finish()
        } finally {
          callbackLeg = false
        }
      },
      current: () => current.tokens,
      takeGrant: () => {
        const taken = grant
        grant = undefined
        return taken
      }
    }
    return provider
  })
