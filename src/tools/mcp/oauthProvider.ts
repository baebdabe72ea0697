/**
 * The OAuth seam of an HTTP server's transport for an entry with `oauth` (SDK v2's
 * `AuthProvider`: the bearer of each request, and what a 401 does), with **one OAuth flow at a
 * time per server**.
 *
 * Why not hand the SDK's `OAuthClientProvider` to the transport: the transport then runs a flow
 * of its own for each request the server refuses, so twenty calls that find the token expired
 * at once make twenty refreshes with the same refresh token. With refresh-token rotation the
 * second one presents a spent token, and an authorization server that detects reuse revokes
 * the whole grant: every call fails, and the person is asked to authorize again (once per
 * call). Here a flow (a refresh, or a new authorization when the refresh is refused, or a
 * step-up of scope) is single-flight:
 *
 * - The bearer read of a request waits for a flow in progress and takes its tokens. An access
 *   token known to be expired (`expires_at`, less a margin) is refreshed before the request is
 *   sent, by one flow that every request reading it meanwhile waits for.
 * - A 401 (the server refused the token, or none was sent) joins the flow in progress, or
 *   starts one; when it ends, the transport sends the request again with the new token.
 * - A flow that fails fails every request waiting for it, once, with the same error (an
 *   `McpOAuthError`: "authorization failed: …"); the next request starts a new one.
 * - A new authorization (no tokens, a refused refresh) is finished inside the flow: the
 *   application's answer is exchanged at once (`iss` checked), so the person is asked once for
 *   all the calls waiting.
 * - A 403 `insufficient_scope` (the transport's `InsufficientScopeError`) is stepped up the same
 *   way, by `reauthorize` (the connection sends the request again when it answers `true`).
 *
 * The SDK's `auth` runs each flow (`oauthClientProvider.ts`), its requests through
 * `oauthFetch.ts`: never the entry's headers or the bearer token, no redirect off the origin
 * for a metadata document, none at all for a token or registration request, a deadline and a
 * size cap. A request that started after a flow ended and was refused starts another one (with
 * the refresh token that flow got: not a reuse).
 *
 * @since 1.0.0
 */
import {
  auth,
  type AuthOptions,
  type AuthProvider,
  computeScopeUnion,
  extractWWWAuthenticateParams,
  InsufficientScopeError,
  isStrictScopeSuperset
} from "@modelcontextprotocol/client"
import * as Effect from "effect/Effect"
import type { McpHttpServerConfig, McpOAuthConfig } from "./config.js"
import { type ClientProvider, makeClientProvider, type OAuthService } from "./oauthClientProvider.js"
import { makeOAuthFetch } from "./oauthFetch.js"
import { McpOAuthError, type McpOAuthTokens } from "./oauthModels.js"

export type { OAuthService } from "./oauthClientProvider.js"

/**
 * The transport's auth provider for an entry with `oauth`, and the step-up the connection asks
 * for when a request was refused for want of scope.
 *
 * @internal
 */
export interface BridgeOAuthProvider extends AuthProvider {
  readonly token: () => Promise<string | undefined>
  readonly onUnauthorized: NonNullable<AuthProvider["onUnauthorized"]>
  /**
   * Whether a request that failed with `error` may be sent again: `true` once a step-up of
   * scope (a 403 `insufficient_scope`) is authorized; `false` for any other error.
   */
  readonly reauthorize: (error: unknown) => Promise<boolean>
}

/** An access token this close to its expiry is taken as expired. */
const EXPIRY_MARGIN_MS = 5_000

/** The longest reason taken from an error of a flow (an authorization server's text is untrusted). */
const MAX_REASON_CHARS = 500

const isExpired = (tokens: McpOAuthTokens): boolean =>
  tokens.expires_at !== undefined && tokens.expires_at - EXPIRY_MARGIN_MS <= Date.now()

/** What starts a flow. */
interface FlowHints {
  readonly scope?: string | undefined
  readonly forceReauthorization?: boolean | undefined
}

/**
 * The provider of `server` (its entry has `oauth`), with its kept credentials loaded. Fails
 * with the store's reason when they cannot be read.
 *
 * @internal
 */
export const makeOAuthProvider = (
  server: string,
  config: McpHttpServerConfig & { readonly oauth: McpOAuthConfig },
  service: OAuthService
): Effect.Effect<BridgeOAuthProvider, McpOAuthError> =>
  Effect.map(makeClientProvider(server, config, service), (client) => bridgeProvider(server, config.url, client))

/** The flow's failure as the error every waiting request fails with. */
const flowError = (server: string, error: unknown): McpOAuthError =>
  error instanceof McpOAuthError
    ? error
    : new McpOAuthError({ server, reason: (error instanceof Error ? error.message : String(error)).slice(0, MAX_REASON_CHARS) })

const bridgeProvider = (server: string, url: string, client: ClientProvider): BridgeOAuthProvider => {
  const serverUrl = new URL(url)
  const fetchFn = makeOAuthFetch()
  /** The `resource_metadata` of the server's last challenge (discovery starts there). */
  let resourceMetadataUrl: URL | undefined
  /** The scopes asked for so far (the union of the challenges' and step-ups'). */
  let scope: string | undefined
  let inFlight: Promise<void> | undefined

  /** One refresh or authorization, to the end (the code exchanged when the person was asked). */
  const flow = async (hints: FlowHints): Promise<void> => {
    const options: AuthOptions = {
      serverUrl,
      fetchFn,
      ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }),
      ...(hints.scope === undefined ? {} : { scope: hints.scope }),
      ...(hints.forceReauthorization === true ? { forceReauthorization: true } : {})
    }
    try {
      if ((await auth(client, options)) === "AUTHORIZED") return
      const grant = client.takeGrant()
      if (grant === undefined) throw new McpOAuthError({ server, reason: "the authorization was not completed" })
      const { forceReauthorization: _, ...exchange } = options
      const done = await client.onCallbackLeg(() => auth(client, {
        ...exchange,
        authorizationCode: grant.code,
        ...(grant.iss === undefined ? {} : { iss: grant.iss })
      }))
      if (done !== "AUTHORIZED") throw new McpOAuthError({ server, reason: "the authorization code was not exchanged" })
    } catch (error) {
      throw flowError(server, error)
    }
  }

  /** The flow in progress, or `start` as the one every caller meanwhile waits for. */
  const single = (start: () => Promise<void>): Promise<void> => {
    if (inFlight !== undefined) return inFlight
    const running: Promise<void> = start().finally(() => {
      if (inFlight === running) inFlight = undefined
    })
    inFlight = running
    return running
  }

  return {
    token: async () => {
      // a request sent meanwhile would carry the token being replaced (or none): it waits, and
      // fails with the flow when the flow fails
      if (inFlight !== undefined) await inFlight
      const held = client.current()
      if (held === undefined) return undefined
      if (!isExpired(held)) return held.access_token
      // known to be expired: refreshed before anything is sent (without a refresh token, the
      // server's 401 has the flow authorize again)
      if (held.refresh_token === undefined) return undefined
      await single(() => flow({ scope }))
      return client.current()?.access_token
    },
    onUnauthorized: async (context) => {
      const challenge = extractWWWAuthenticateParams(context.response)
      if (challenge.resourceMetadataUrl !== undefined) resourceMetadataUrl = challenge.resourceMetadataUrl
      scope = computeScopeUnion(scope, challenge.scope)
      await single(() => flow({ scope }))
    },
    reauthorize: async (error) => {
      if (!InsufficientScopeError.isInstance(error)) return false
      if (error.resourceMetadataUrl !== undefined) resourceMetadataUrl = error.resourceMetadataUrl
      // a refresh in progress ends first (its failure went to the requests waiting for it: the
      // step-up is a flow of its own); the step-ups refused meanwhile then share one
      if (inFlight !== undefined) await inFlight.catch(() => undefined)
      const held = client.current()?.scope
      scope = computeScopeUnion(scope, held, error.requiredScope)
      const wanted = scope
      await single(() => flow({ scope: wanted, forceReauthorization: isStrictScopeSuperset(wanted, held) }))
      return true
    }
  }
}
