/**
 * The MCP HTTP server as an OAuth 2.1 resource server (MCP authorization, 2025-11-25 and
 * 2026-07-28): every MCP request carries `Authorization: Bearer <JWT>`, checked here against the
 * issuer's keys (JWKS, with `jose`): its signature (an allow-list of asymmetric algorithms: no
 * `none`, no HMAC), `iss`, `aud` (must contain the server's canonical URL, RFC 8707), `exp` and
 * `nbf`. The server publishes its Protected Resource Metadata (RFC 9728) at
 * `/.well-known/oauth-protected-resource` and at its path-suffixed form.
 *
 * A request without a token is 401 with `WWW-Authenticate: Bearer resource_metadata="…",
 * scope="…"`; a refused token is 401 with `error="invalid_token"` too; a valid token with
 * neither MCP scope is 403 `error="insufficient_scope"`. When the keys cannot be had (the key
 * server hangs, floods, or is down) the request is 503 within the fetch's deadline: the token
 * is not at fault, and the server keeps serving. Keys are cached (`jwksCacheMaxAgeMs`); an
 * unknown key id makes one new fetch at most every `jwksCooldownMs` (key rotation).
 *
 * A token is checked once, when its request comes; a response that outlives it (a 2026
 * `subscriptions/listen` stream, a long call's event stream, a session's `GET` stream) is closed
 * when the token expires (`exp` plus the clock tolerance, the last moment a new request with it
 * would be taken): the connection is dropped, the request's work cancelled, and the client
 * comes back with a fresh token (`closeAtExpiry`).
 *
 * What the scopes admit (the read scope: read-only tools; the write scope: every tool) is
 * `scopeAccess.ts`.
 *
 * @since 1.0.0
 */
import type { AuthInfo } from "@modelcontextprotocol/server"
import * as Effect from "effect/Effect"
import type * as Http from "node:http"
import {
  createRemoteJWKSet,
  customFetch,
  type JWSHeaderParameters,
  type JWTPayload,
  jwtVerify,
  type FlattenedJWSInput
} from "jose"
import { boundedFetch, KeySourceError, readCapped } from "./jwksFetch.js"
import { McpServeError } from "./server.js"

/**
 * The OAuth resource-server side of `serveMcpHttp` (its `auth` option).
 *
 * @since 1.0.0
 * @category models
 */
export interface McpHttpAuthOptions {
  /** The authorization server's issuer identifier: tokens' `iss` must equal it. */
  readonly issuer: string
  /**
   * This server's canonical URL (e.g. `https://mcp.example.com/mcp`): the resource in its
   * metadata, and the audience a token's `aud` must contain.
   */
  readonly resource: string
  /**
   * The issuer's key set. Default: the `jwks_uri` of the issuer's metadata
   * (`/.well-known/oauth-authorization-server`, then `/.well-known/openid-configuration`).
   */
  readonly jwksUrl?: string | undefined
  /** The scope names. Default `mcp:read` (read-only tools) and `mcp:write` (every tool). */
  readonly scopes?: { readonly read?: string | undefined; readonly write?: string | undefined } | undefined
  /** Accepted signature algorithms (asymmetric only). Default RS, PS and ES 256/384/512 and EdDSA. */
  readonly algorithms?: ReadonlyArray<string> | undefined
  /** Clock skew allowed on `exp` and `nbf`, in seconds. Default 30. */
  readonly clockToleranceSeconds?: number | undefined
  /** The issuer and key URLs must be `https` (loopback hosts excepted). Default `true`. */
  readonly requireHttpsIssuer?: boolean | undefined
  /** Deadline of one key (or metadata) fetch. Default 5000 ms. */
  readonly jwksTimeoutMs?: number | undefined
  /** Largest key set (or metadata document) taken. Default 256 KiB. */
  readonly jwksMaxBytes?: number | undefined
  /** Least time between two fetches made for an unknown key id. Default 30 s. */
  readonly jwksCooldownMs?: number | undefined
  /** How long fetched keys are used before they are fetched again. Default 10 min. */
  readonly jwksCacheMaxAgeMs?: number | undefined
}

/** Asymmetric algorithms only: a public key can never be taken as an HMAC secret. */
const DEFAULT_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"])

/**
 * An HTTP answer of the auth layer (a refusal, or the metadata document).
 *
 * @internal
 */
export interface AuthAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/**
 * A checked token: what the MCP handler gets as `authInfo`, and the token's subject.
 *
 * @internal
 */
export interface Verified {
  readonly authInfo: AuthInfo
  readonly subject: string | undefined
}

/**
 * The resource server, ready: `metadataAt` answers the metadata paths, `authorize` a request's
 * `Authorization` header.
 *
 * @internal
 */
export interface BearerAuth {
  readonly readScope: string
  readonly writeScope: string
  /** The metadata document's answer for `pathname` and `method`, or `undefined` when not one of its paths. */
  readonly metadataAt: (pathname: string, method: string) => AuthAnswer | undefined
  /** The verified token, or the refusal to send. */
  readonly authorize: (header: string | undefined) => Promise<Verified | AuthAnswer>
  /** The 403 of a call the token's scopes do not admit. */
  readonly insufficientScope: (granted: ReadonlyArray<string>, description: string) => AuthAnswer
  /**
   * Closes `res` (drops its connection) when the token of `authInfo` expires, if it is still
   * open then: a stream must not outlive the token that opened it.
   */
  readonly closeAtExpiry: (authInfo: AuthInfo, res: Http.ServerResponse) => void
}

/** The longest delay a Node timer takes (about 24.8 days); a longer wait is made of several. */
const MAX_TIMER_MS = 2 ** 31 - 1

/** A quoted-string parameter value of a challenge (RFC 6750's character set: no `"` or `\`). */
const quoted = (value: string): string =>
  `"${value.replace(/["\\]/g, "'").replace(/[^\u0020-\u007e]/g, "?").slice(0, 300)}"`

const json = (status: number, body: unknown, headers: Record<string, string> = {}): AuthAnswer => ({
  status,
  headers: { "content-type": "application/json", "cache-control": "no-store", ...headers },
  body: JSON.stringify(body)
})

/** `url` parsed, and allowed only over https (loopback hosts excepted) when `https` is asked. */
const checkedUrl = (what: string, value: string, https: boolean): Effect.Effect<URL, McpServeError> => {
  const url = URL.canParse(value) ? new URL(value) : undefined
  if (url === undefined || (url.protocol !== "https:" && url.protocol !== "http:")) {
    return Effect.fail(new McpServeError({ reason: `the OAuth ${what} ${JSON.stringify(value)} is not an http(s) URL` }))
  }
  if (https && url.protocol !== "https:" && !LOOPBACK_HOSTS.has(url.hostname)) {
    return Effect.fail(new McpServeError({ reason: `the OAuth ${what} ${value} must be https (or on a loopback host)` }))
  }
  if (url.hash !== "") return Effect.fail(new McpServeError({ reason: `the OAuth ${what} ${value} must have no fragment` }))
  return Effect.succeed(url)
}

const withoutTrailingSlash = (path: string): string => (path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path)

/** The token's scopes: the `scope` claim (space-separated, RFC 9068) or an `scp` list. */
const scopesOf = (payload: JWTPayload): Array<string> => {
  const scope = payload["scope"]
  if (typeof scope === "string") return scope.split(" ").filter((s) => s.length > 0)
  const scp = payload["scp"]
  return Array.isArray(scp) ? scp.filter((s): s is string => typeof s === "string") : []
}

const claimString = (payload: JWTPayload, name: string): string | undefined => {
  const value = payload[name]
  return typeof value === "string" ? value : undefined
}

/** jose's errors that say the token is at fault (any other failure is the key source's). */
const TOKEN_ERRORS = new Set([
  "ERR_JWT_EXPIRED",
  "ERR_JWT_CLAIM_VALIDATION_FAILED",
  "ERR_JWT_INVALID",
  "ERR_JWS_INVALID",
  "ERR_JWS_SIGNATURE_VERIFICATION_FAILED",
  "ERR_JOSE_ALG_NOT_ALLOWED",
  "ERR_JOSE_NOT_SUPPORTED",
  "ERR_JWKS_NO_MATCHING_KEY",
  "ERR_JWKS_MULTIPLE_MATCHING_KEYS",
  "ERR_JWK_INVALID"
])

const codeOf = (error: unknown): string | undefined => {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined
  return typeof error.code === "string" ? error.code : undefined
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/**
 * The resource server for `options`, its URLs checked (a misconfiguration fails the serve).
 *
 * @internal
 */
export const makeBearerAuth = (options: McpHttpAuthOptions): Effect.Effect<BearerAuth, McpServeError> =>
  Effect.gen(function*() {
    const https = options.requireHttpsIssuer ?? true
    const issuer = yield* checkedUrl("issuer", options.issuer, https)
    const resource = yield* checkedUrl("resource", options.resource, false)
    const configuredJwks = options.jwksUrl === undefined ? undefined : yield* checkedUrl("JWKS URL", options.jwksUrl, https)
    const readScope = options.scopes?.read ?? "mcp:read"
    const writeScope = options.scopes?.write ?? "mcp:write"
    const algorithms = [...(options.algorithms ?? DEFAULT_ALGORITHMS)]
    if (algorithms.some((alg) => alg === "none" || alg.startsWith("HS"))) {
      return yield* new McpServeError({ reason: "OAuth algorithms must be asymmetric (no none, no HS*)" })
    }
    const timeoutMs = options.jwksTimeoutMs ?? 5000
    const maxBytes = options.jwksMaxBytes ?? 256 * 1024
    const cooldownMs = options.jwksCooldownMs ?? 30_000

    const resourcePath = withoutTrailingSlash(resource.pathname)
    const metadataPath = `/.well-known/oauth-protected-resource${resourcePath === "/" ? "" : resourcePath}`
    const metadataUrl = new URL(metadataPath, resource.origin).href
    const metadataPaths = new Set(["/.well-known/oauth-protected-resource", metadataPath])
    const metadata = {
      resource: options.resource,
      authorization_servers: [options.issuer],
      scopes_supported: [readScope, writeScope],
      bearer_methods_supported: ["header"]
    }

    /** The key set of `url`, fetched through the bounded fetch. */
    const keySetOf = (url: URL) =>
      createRemoteJWKSet(url, {
        timeoutDuration: timeoutMs,
        cooldownDuration: cooldownMs,
        cacheMaxAge: options.jwksCacheMaxAgeMs ?? 600_000,
        [customFetch]: boundedFetch(new Set([url.href]), maxBytes)
      })

    /** The issuer's `jwks_uri`, from its metadata (RFC 8414 path insertion, then OpenID's). */
    const discover = async (): Promise<URL> => {
      const path = withoutTrailingSlash(issuer.pathname)
      const suffix = path === "/" ? "" : path
      const candidates = [
        new URL(`/.well-known/oauth-authorization-server${suffix}`, issuer.origin).href,
        new URL(`${suffix}/.well-known/openid-configuration`, issuer.origin).href
      ]
      const fetchOne = boundedFetch(new Set(candidates), maxBytes)
      const reasons: Array<string> = []
      for (const candidate of candidates) {
        try {
          const response = await fetchOne(candidate, { signal: AbortSignal.timeout(timeoutMs) })
          const document: unknown = JSON.parse(new TextDecoder().decode(await readCapped(response, maxBytes, candidate)))
          if (typeof document !== "object" || document === null) throw new KeySourceError(`${candidate} is not a JSON object`)
          const found = "issuer" in document ? document.issuer : undefined
          const jwks = "jwks_uri" in document ? document.jwks_uri : undefined
          if (found !== options.issuer) throw new KeySourceError(`${candidate} names another issuer`)
          if (typeof jwks !== "string") throw new KeySourceError(`${candidate} has no jwks_uri`)
          return await Effect.runPromise(checkedUrl("jwks_uri", jwks, https)).catch((error: unknown) => {
            throw new KeySourceError(messageOf(error))
          })
        } catch (error) {
          reasons.push(messageOf(error))
        }
      }
      throw new KeySourceError(`no key set found for ${options.issuer}: ${reasons.join("; ")}`)
    }

    type KeySet = ReturnType<typeof keySetOf>
    let keySet: KeySet | undefined = configuredJwks === undefined ? undefined : keySetOf(configuredJwks)
    let discovery: Promise<KeySet> | undefined
    let discoveryFailedAt = Number.NEGATIVE_INFINITY
    const keys = (): Promise<KeySet> => {
      if (keySet !== undefined) return Promise.resolve(keySet)
      if (Date.now() - discoveryFailedAt < cooldownMs) {
        return Promise.reject(new KeySourceError(`the issuer's metadata could not be fetched; retry later`))
      }
      discovery ??= discover().then(
        (url) => (keySet = keySetOf(url)),
        (error: unknown) => {
          discoveryFailedAt = Date.now()
          discovery = undefined
          throw error
        }
      )
      return discovery
    }
    const getKey = async (header: JWSHeaderParameters, token: FlattenedJWSInput) => (await keys())(header, token)

    const challenge = (params: ReadonlyArray<readonly [string, string]>): string =>
      `Bearer ${params.map(([name, value]) => `${name}=${quoted(value)}`).join(", ")}`

    const unauthorized = (description: string | undefined): AuthAnswer =>
      json(
        401,
        description === undefined
          ? { error: "invalid_request", error_description: "a bearer token is required" }
          : { error: "invalid_token", error_description: description },
        {
          "www-authenticate": challenge([
            ...(description === undefined
              ? []
              : [["error", "invalid_token"] as const, ["error_description", description] as const]),
            ["resource_metadata", metadataUrl],
            ["scope", readScope]
          ])
        }
      )

    const insufficientScope = (granted: ReadonlyArray<string>, description: string): AuthAnswer => {
      const needed = [...new Set([...granted.filter((s) => s === readScope || s === writeScope), readScope, writeScope])]
      return json(403, { error: "insufficient_scope", error_description: description }, {
        "www-authenticate": challenge([
          ["error", "insufficient_scope"],
          ["scope", needed.join(" ")],
          ["resource_metadata", metadataUrl],
          ["error_description", description]
        ])
      })
    }

    const authorize = async (header: string | undefined): Promise<Verified | AuthAnswer> => {
      if (header === undefined || header.trim() === "") return unauthorized(undefined)
      const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header)
      if (match === null) return unauthorized("the Authorization header is not 'Bearer <token>'")
      const token = match[1] ?? ""
      try {
        const { payload } = await jwtVerify(token, getKey, {
          issuer: options.issuer,
          audience: options.resource,
          algorithms,
          clockTolerance: options.clockToleranceSeconds ?? 30,
          requiredClaims: ["exp"]
        })
        const scopes = scopesOf(payload)
        const subject = payload.sub
        if (!scopes.includes(readScope) && !scopes.includes(writeScope)) {
          return insufficientScope(scopes, `the token has neither ${readScope} nor ${writeScope}`)
        }
        const clientId = claimString(payload, "client_id") ?? claimString(payload, "azp") ?? subject ?? "unknown"
        const authInfo: AuthInfo = {
          token,
          clientId,
          scopes,
          // `requiredClaims: ["exp"]` makes it a number here
          ...(payload.exp === undefined ? {} : { expiresAt: payload.exp }),
          resource,
          resourceMetadataUrl: metadataUrl
        }
        return { authInfo, subject }
      } catch (error) {
        const code = codeOf(error)
        if (code !== undefined && TOKEN_ERRORS.has(code)) return unauthorized(`the token is refused: ${messageOf(error)}`)
        // the keys could not be had: not the token's fault
        const reason = code === "ERR_JWKS_TIMEOUT" ? "the issuer's key set did not arrive in time" : messageOf(error)
        return json(503, { error: "temporarily_unavailable", error_description: `cannot check the token: ${reason}` }, {
          "retry-after": "5"
        })
      }
    }

    const metadataAt = (pathname: string, method: string): AuthAnswer | undefined => {
      if (!metadataPaths.has(withoutTrailingSlash(pathname))) return undefined
      const cors = { "access-control-allow-origin": "*" }
      if (method === "OPTIONS") {
        return { status: 204, headers: { ...cors, "access-control-allow-methods": "GET, HEAD, OPTIONS" }, body: "" }
      }
      if (method !== "GET" && method !== "HEAD") return json(405, { error: "method_not_allowed" }, { allow: "GET, HEAD, OPTIONS" })
      return { status: 200, headers: { "content-type": "application/json", ...cors }, body: JSON.stringify(metadata) }
    }

    const toleranceMs = (options.clockToleranceSeconds ?? 30) * 1000
    const closeAtExpiry = (authInfo: AuthInfo, res: Http.ServerResponse): void => {
      if (authInfo.expiresAt === undefined) return
      const deadline = authInfo.expiresAt * 1000 + toleranceMs
      let timer: NodeJS.Timeout | undefined
      const arm = (): void => {
        const left = deadline - Date.now()
        if (left <= 0) {
          timer = undefined
          if (!res.writableFinished) res.destroy()
          return
        }
        timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS))
        // a stream's timer alone does not keep the process alive
        timer.unref()
      }
      res.once("close", () => clearTimeout(timer))
      arm()
    }

    return { readScope, writeScope, metadataAt, authorize, insufficientScope, closeAtExpiry }
  })
