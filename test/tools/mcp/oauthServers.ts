/**
 * A tiny OAuth 2.1 authorization server and an MCP server it protects, on 127.0.0.1 (free
 * ports), for the bridge's OAuth-client tests:
 *
 * - the authorization server publishes its metadata (RFC 8414, with
 *   `authorization_response_iss_parameter_supported`), registers clients (RFC 7591), answers
 *   `/authorize` at once with a redirect carrying `code`, `state` and `iss` (or `error` when the
 *   person "declines"; a wrong `iss` when told to), and `/token` checks the PKCE verifier
 *   (S256), the client and the redirect URI, and refreshes (rotating the refresh token, or
 *   refusing with `invalid_grant` when told to; told to, a spent refresh token presented again
 *   revokes its whole grant, as RFC 9700 asks of rotation). Tokens are opaque and can be expired
 *   at once. The headers of every request it gets are recorded.
 * - the MCP server (SDK v2, `createMcpHandler`; an `echo` tool) publishes its Protected Resource
 *   Metadata (RFC 9728) and answers 401 with `WWW-Authenticate: Bearer resource_metadata=…`
 *   to a request without a valid token.
 *
 * `authorizeByFetch` is what a test's `McpOAuth.authorize` does in place of a person: it follows
 * the authorization URL and reads the code from the redirect.
 */
import { createMcpHandler, Server } from "@modelcontextprotocol/server"
import { toNodeHandler } from "@modelcontextprotocol/node"
import { Effect } from "effect"
import { createHash, randomBytes } from "node:crypto"
import type * as http from "node:http"
import { McpOAuthError, type McpAuthorizationGrant, type McpAuthorizationRequest } from "../../../src/services/McpOAuth.js"
import { forward, listen } from "./httpServers.js"

const token = (prefix: string) => `${prefix}-${randomBytes(12).toString("base64url")}`

const readBody = (req: http.IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
  })

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" })
  res.end(JSON.stringify(body))
}

/** What the authorization server does, changeable during a test. */
export interface AuthServerBehaviour {
  /** `/authorize` answers `error=access_denied`. */
  decline: boolean
  /** The `iss` `/authorize` puts in its redirect (default: its own issuer). */
  iss: string | undefined
  /** A refresh is refused (`invalid_grant`). */
  refuseRefresh: boolean
  /** `expires_in` of the access tokens it issues. */
  expiresIn: number
  /** A spent refresh token presented again revokes every token of its grant. */
  revokeOnReuse: boolean
  /** How long a refresh takes to be answered, in ms (concurrent refreshes then overlap). */
  refreshDelayMs: number
}

/** The authorization server and its protected MCP server, for the scope. */
export const protectedServer = Effect.gen(function*() {
  const behaviour: AuthServerBehaviour = {
    decline: false,
    iss: undefined,
    refuseRefresh: false,
    expiresIn: 3600,
    revokeOnReuse: false,
    refreshDelayMs: 0
  }
  const counts = { registrations: 0, authorizations: 0, codeExchanges: 0, refreshes: 0, refusedRefreshes: 0, reuses: 0 }
  /** The headers of each request the authorization server got (what the bridge sent it). */
  const asRequests: Array<{ readonly path: string; readonly headers: http.IncomingHttpHeaders }> = []
  /** Each grant's tokens (a grant: one authorization and its refreshes), and the spent refresh tokens' grants. */
  const grants = new Map<string, Set<string>>()
  const spent = new Map<string, string>()
  const grantOf = new Map<string, string>()
  const clients = new Map<string, ReadonlyArray<string>>()
  const codes = new Map<string, { clientId: string; challenge: string; redirectUri: string }>()
  const accessTokens = new Map<string, number>() // token -> expiry (ms)
  const refreshTokens = new Map<string, string>() // token -> client id
  /** Every token and secret the server issued (a test checks none was logged). */
  const issued: Array<string> = []
  let issuer = ""

  const issue = (clientId: string, grant = token("grant")) => {
    const access = token("at")
    const refresh = token("rt")
    accessTokens.set(access, Date.now() + behaviour.expiresIn * 1000)
    refreshTokens.set(refresh, clientId)
    issued.push(access, refresh)
    const family = grants.get(grant) ?? new Set<string>()
    grants.set(grant, family.add(access).add(refresh))
    grantOf.set(refresh, grant)
    return { access_token: access, token_type: "Bearer", expires_in: behaviour.expiresIn, refresh_token: refresh, scope: "mcp" }
  }

  const as = yield* listen((req, res) => {
    const url = new URL(req.url ?? "/", issuer)
    asRequests.push({ path: url.pathname, headers: req.headers })
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        registration_endpoint: `${issuer}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
        authorization_response_iss_parameter_supported: true
      })
    }
    if (url.pathname === "/register" && req.method === "POST") {
      return void readBody(req).then((text) => {
        const metadata: unknown = JSON.parse(text)
        if (typeof metadata !== "object" || metadata === null) return json(res, 400, { error: "invalid_client_metadata" })
        const redirectUris: unknown = Reflect.get(metadata, "redirect_uris")
        if (!Array.isArray(redirectUris)) return json(res, 400, { error: "invalid_redirect_uri" })
        counts.registrations++
        const clientId = token("client")
        clients.set(clientId, redirectUris.map(String))
        json(res, 201, { ...metadata, client_id: clientId, token_endpoint_auth_method: "none" })
      })
    }
    if (url.pathname === "/authorize") {
      const q = url.searchParams
      const redirectUri = q.get("redirect_uri") ?? ""
      const clientId = q.get("client_id") ?? ""
      if (!(clients.get(clientId) ?? []).includes(redirectUri) || q.get("code_challenge_method") !== "S256") {
        return json(res, 400, { error: "invalid_request" })
      }
      counts.authorizations++
      const back = new URL(redirectUri)
      const state = q.get("state")
      if (state !== null) back.searchParams.set("state", state)
      back.searchParams.set("iss", behaviour.iss ?? issuer)
      if (behaviour.decline) {
        back.searchParams.set("error", "access_denied")
      } else {
        const code = token("code")
        codes.set(code, { clientId, challenge: q.get("code_challenge") ?? "", redirectUri })
        back.searchParams.set("code", code)
      }
      res.writeHead(302, { location: back.href }).end()
      return
    }
    if (url.pathname === "/token" && req.method === "POST") {
      return void readBody(req).then((text) => {
        const form = new URLSearchParams(text)
        if (form.get("grant_type") === "authorization_code") {
          const code = codes.get(form.get("code") ?? "")
          codes.delete(form.get("code") ?? "")
          const verifier = form.get("code_verifier") ?? ""
          const challenge = createHash("sha256").update(verifier).digest("base64url")
          if (
            code === undefined || code.clientId !== form.get("client_id") || code.redirectUri !== form.get("redirect_uri") ||
            code.challenge !== challenge
          ) {
            return json(res, 400, { error: "invalid_grant" })
          }
          counts.codeExchanges++
          return json(res, 200, issue(code.clientId))
        }
        if (form.get("grant_type") === "refresh_token") {
          const refresh = form.get("refresh_token") ?? ""
          const clientId = refreshTokens.get(refresh)
          const reused = spent.get(refresh)
          if (reused !== undefined) {
            counts.reuses++
            if (behaviour.revokeOnReuse) {
              for (const revoked of grants.get(reused) ?? []) {
                accessTokens.delete(revoked)
                refreshTokens.delete(revoked)
              }
            }
          }
          const answer = (status: number, body: unknown) =>
            behaviour.refreshDelayMs === 0 ? json(res, status, body) : void setTimeout(() => json(res, status, body), behaviour.refreshDelayMs)
          if (clientId === undefined || behaviour.refuseRefresh || clientId !== form.get("client_id")) {
            counts.refusedRefreshes++
            return answer(400, { error: "invalid_grant", error_description: "the refresh token is not valid" })
          }
          refreshTokens.delete(refresh)
          const grant = grantOf.get(refresh) ?? token("grant")
          spent.set(refresh, grant)
          counts.refreshes++
          return answer(200, issue(clientId, grant))
        }
        json(res, 400, { error: "unsupported_grant_type" })
      })
    }
    res.writeHead(404).end()
  })
  issuer = new URL(as.url).origin

  const calls: Array<string> = []
  const build = () => {
    const server = new Server({ name: "oauth-fixture", version: "1.0.0" }, { capabilities: { tools: {} } })
    server.setRequestHandler("tools/list", () =>
      Promise.resolve({
        tools: [{
          name: "echo",
          description: "Echoes the text",
          inputSchema: { type: "object" as const, properties: { text: { type: "string" } }, required: ["text"] },
          annotations: { readOnlyHint: true }
        }]
      }))
    server.setRequestHandler("tools/call", (request) => {
      const text = request.params.arguments?.text
      calls.push(String(text))
      return Promise.resolve({ content: [{ type: "text" as const, text: String(text) }] })
    })
    return server
  }
  const node = toNodeHandler(createMcpHandler(build))
  let resourceUrl = ""
  let metadataUrl = ""
  /** The headers of each request the MCP server got. */
  const rsRequests: Array<{ readonly path: string; readonly headers: http.IncomingHttpHeaders }> = []
  const rs = yield* listen((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname
    rsRequests.push({ path, headers: req.headers })
    if (path === "/.well-known/oauth-protected-resource/mcp" || path === "/.well-known/oauth-protected-resource") {
      return json(res, 200, { resource: resourceUrl, authorization_servers: [issuer], bearer_methods_supported: ["header"] })
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1]
    const expiry = bearer === undefined ? undefined : accessTokens.get(bearer)
    if (expiry === undefined || expiry <= Date.now()) {
      res.writeHead(401, {
        "www-authenticate": `Bearer resource_metadata="${metadataUrl}"${bearer === undefined ? "" : `, error="invalid_token"`}`
      })
      return void res.end()
    }
    forward(node, req, res)
  })
  resourceUrl = rs.url
  metadataUrl = `${new URL(rs.url).origin}/.well-known/oauth-protected-resource/mcp`
  return {
    url: rs.url,
    issuer,
    behaviour,
    counts,
    calls,
    issued,
    asRequests,
    rsRequests,
    /** Every access token issued so far expires now (the MCP server refuses it). */
    expireAll: () => {
      for (const key of accessTokens.keys()) accessTokens.set(key, 0)
    }
  }
})

/** What a person's browser does: follows the authorization URL; the code (or the refusal) from the redirect. */
export const authorizeByFetch = (request: McpAuthorizationRequest): Effect.Effect<McpAuthorizationGrant, McpOAuthError> =>
  Effect.gen(function*() {
    const response = yield* Effect.promise(() => fetch(request.authorizationUrl, { redirect: "manual" }))
    const location = response.headers.get("location")
    if (location === null) return yield* new McpOAuthError({ server: request.server, reason: `the authorization server answered ${response.status}` })
    const back = new URL(location)
    const error = back.searchParams.get("error")
    if (error !== null) return yield* new McpOAuthError({ server: request.server, reason: `the person declined (${error})` })
    return {
      code: back.searchParams.get("code") ?? "",
      iss: back.searchParams.get("iss") ?? undefined,
      state: back.searchParams.get("state") ?? undefined
    }
  })
