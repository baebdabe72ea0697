/**
 * Issue 50: the bridge's OAuth client refreshes (and authorizes again) one flow at a time per
 * server. Many calls that find the token expired at once wait for one refresh and all go on; an
 * authorization server that rotates refresh tokens and revokes a grant whose spent refresh
 * token comes back stays usable; a refused refresh asks the person once for all the calls, and
 * a declined one fails them all the same way. No credential of the MCP server (the bearer token,
 * the entry's headers) goes to the authorization server. Against `oauthServers.ts` on 127.0.0.1.
 */
import { describe, expect, it } from "@effect/vitest"
import type { OAuthClientProvider, OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from "@modelcontextprotocol/client"
import { Effect, Layer, Scope } from "effect"
import * as Context from "effect/Context"
import * as path from "node:path"
import { McpBridge, type McpServersConfig } from "../../../src/services/McpBridge.js"
import { McpOAuth, type McpAuthorizationRequest } from "../../../src/services/McpOAuth.js"
import { ToolSystem } from "../../../src/services/ToolSystem.js"
import { Workspace } from "../../../src/services/Workspace.js"
import { tempDir } from "../../helpers/tempDir.js"
import { fast, openBridged } from "./helpers.js"
import { listen } from "./httpServers.js"
import { authorizeByFetch, protectedServer } from "./oauthServers.js"

const redirectUrl = "http://127.0.0.1:1/callback"

const open = (ws: string, servers: McpServersConfig, asked: Array<McpAuthorizationRequest>) =>
  Effect.gen(function*() {
    const scope = yield* Effect.acquireRelease(Scope.make(), (scope, exit) => Scope.close(scope, exit))
    const layer = McpBridge.layer(servers, fast).pipe(
      Layer.provideMerge(ToolSystem.layerNode({ builtins: false, workspace: Workspace.layerFixed(ws) })),
      Layer.provide(McpOAuth.layer({
        directory: path.join(ws, "tokens"),
        authorize: (request) => Effect.flatMap(Effect.sync(() => asked.push(request)), () => authorizeByFetch(request))
      }))
    )
    const context = yield* Layer.buildWithScope(layer, scope)
    return { system: Context.get(context, ToolSystem), bridge: Context.get(context, McpBridge) }
  })

/** `count` calls of `remote__echo` at once; their results in order. */
const manyCalls = (system: ToolSystem["Service"], count: number, label: string) =>
  Effect.all(
    Array.from({ length: count }, (_, i) => system.execute("remote__echo", { text: `${label}-${i}` })),
    { concurrency: "unbounded" }
  )

describe("OAuth refresh, one flow at a time per server", () => {
  it.live("20 calls that find the token expired at once: one refresh at the authorization server, every call succeeds", () =>
    Effect.gen(function*() {
      const fixture = yield* protectedServer
      // 6 s tokens: the bridge takes them as expired 5 s early, i.e. 1 s after they are issued
      fixture.behaviour.expiresIn = 6
      fixture.behaviour.refreshDelayMs = 50
      const ws = yield* tempDir("mcp-oauth-flight-")
      const asked: Array<McpAuthorizationRequest> = []
      const { bridge, system } = yield* open(ws, { remote: { url: fixture.url, trusted: true, oauth: { redirectUrl } } }, asked)
      expect(bridge.skipped).toEqual([])
      fixture.behaviour.expiresIn = 3600
      yield* Effect.sleep("1100 millis")
      const results = yield* manyCalls(system, 20, "a")
      expect(results.map((r) => r.success ? r.output : r.error)).toEqual(Array.from({ length: 20 }, (_, i) => `a-${i}`))
      expect(fixture.counts).toMatchObject({ refreshes: 1, refusedRefreshes: 0, reuses: 0, authorizations: 1 })
      expect(asked).toHaveLength(1)
      // the expired token was never sent: no request of the calls was refused
      expect(fixture.calls).toHaveLength(20)
    }))

  it.live("an authorization server that rotates refresh tokens and revokes a grant on reuse stays usable", () =>
    Effect.gen(function*() {
      const fixture = yield* protectedServer
      fixture.behaviour.revokeOnReuse = true
      fixture.behaviour.refreshDelayMs = 50
      const ws = yield* tempDir("mcp-oauth-flight-")
      const asked: Array<McpAuthorizationRequest> = []
      const { system } = yield* open(ws, { remote: { url: fixture.url, trusted: true, oauth: { redirectUrl } } }, asked)
      // the server refuses the token the bridge holds as valid: 20 calls get a 401 at once
      fixture.expireAll()
      const first = yield* manyCalls(system, 20, "b")
      expect(first.every((r) => r.success)).toBe(true)
      expect(fixture.counts.reuses).toBe(0)
      expect(fixture.counts.refreshes).toBeGreaterThanOrEqual(1)
      // and again: the grant was not revoked, no one was asked
      fixture.expireAll()
      const second = yield* manyCalls(system, 20, "c")
      expect(second.every((r) => r.success)).toBe(true)
      expect(fixture.counts).toMatchObject({ reuses: 0, refusedRefreshes: 0, authorizations: 1 })
      expect(asked).toHaveLength(1)
    }))

  it.live("a refused refresh asks the person once for all the calls; a declined authorization fails them all alike", () =>
    Effect.gen(function*() {
      const fixture = yield* protectedServer
      fixture.behaviour.refreshDelayMs = 100
      const ws = yield* tempDir("mcp-oauth-flight-")
      const asked: Array<McpAuthorizationRequest> = []
      const { system } = yield* open(ws, { remote: { url: fixture.url, trusted: true, oauth: { redirectUrl } } }, asked)
      fixture.behaviour.refuseRefresh = true
      fixture.expireAll()
      const again = yield* manyCalls(system, 20, "d")
      expect(again.every((r) => r.success)).toBe(true)
      expect(asked).toHaveLength(2)
      expect(fixture.counts).toMatchObject({ refusedRefreshes: 1, authorizations: 2, codeExchanges: 2 })

      fixture.behaviour.decline = true
      fixture.expireAll()
      const declined = yield* manyCalls(system, 20, "e")
      expect(asked).toHaveLength(3)
      const errors = new Set(declined.map((r) => (r.success ? "succeeded" : r.error)))
      expect(errors.size).toBe(1)
      expect([...errors][0]).toMatch(/authorization failed: the person declined \(access_denied\)/)
      expect(fixture.counts.refusedRefreshes).toBe(2)
    }))

  it.live("the bearer token and the entry's headers go to the MCP server only, never to the authorization server", () =>
    Effect.gen(function*() {
      const fixture = yield* protectedServer
      const ws = yield* tempDir("mcp-oauth-flight-")
      const asked: Array<McpAuthorizationRequest> = []
      const { system } = yield* open(ws, {
        remote: { url: fixture.url, trusted: true, headers: { "x-api-key": "key-for-the-mcp-server" }, oauth: { redirectUrl } }
      }, asked)
      fixture.expireAll()
      expect(yield* system.execute("remote__echo", { text: "x" })).toMatchObject({ success: true })
      expect(fixture.counts).toMatchObject({ codeExchanges: 1, refreshes: 1 })
      const paths = new Set(fixture.asRequests.map((r) => r.path))
      // (`/authorize` is the person's browser: `authorizeByFetch`)
      expect(paths).toEqual(new Set(["/.well-known/oauth-authorization-server", "/register", "/authorize", "/token"]))
      for (const { headers } of fixture.asRequests) {
        expect(headers["x-api-key"]).toBeUndefined()
        expect(headers.authorization).toBeUndefined()
      }
      // the MCP server got both on its MCP requests (not on its metadata document)
      const mcp = fixture.rsRequests.filter((r) => r.path === "/mcp")
      expect(mcp.every((r) => r.headers["x-api-key"] === "key-for-the-mcp-server")).toBe(true)
      expect(mcp.some((r) => r.headers.authorization?.startsWith("Bearer ") === true)).toBe(true)
    }))

  it.live("with the application's own OAuthClientProvider too, the entry's headers go to the MCP server's origin only", () =>
    Effect.gen(function*() {
      const fixture = yield* protectedServer
      const ws = yield* tempDir("mcp-oauth-flight-")
      let tokens: StoredOAuthTokens | undefined
      let client: StoredOAuthClientInformation | undefined
      let verifier = ""
      let discovery: OAuthDiscoveryState | undefined
      // a provider of the SDK's shape, authorizing by fetch when asked (the SDK drives it)
      const provider: OAuthClientProvider = {
        redirectUrl,
        clientMetadata: { client_name: "app", redirect_uris: [redirectUrl], token_endpoint_auth_method: "none" },
        clientInformation: () => client,
        saveClientInformation: (info) => {
          client = info
        },
        tokens: () => tokens,
        saveTokens: (next) => {
          tokens = next
        },
        redirectToAuthorization: () => undefined,
        saveCodeVerifier: (next) => {
          verifier = next
        },
        codeVerifier: () => verifier,
        saveDiscoveryState: (state) => {
          discovery = state
        },
        discoveryState: () => discovery
      }
      const { bridge } = yield* openBridged(ws, {
        remote: { url: fixture.url, trusted: true, headers: { "x-api-key": "key-for-the-mcp-server" } }
      }, { ...fast, authProvider: () => provider })
      // the SDK's flow ran (discovery, registration) and stopped at the redirect: the server is skipped
      expect(bridge.skipped.map((s) => s.server)).toEqual(["remote"])
      expect(fixture.counts.registrations).toBe(1)
      expect(fixture.asRequests.length).toBeGreaterThan(0)
      for (const { headers } of fixture.asRequests) expect(headers["x-api-key"]).toBeUndefined()
      const mcp = fixture.rsRequests.filter((r) => r.path === "/mcp")
      expect(mcp.length).toBeGreaterThan(0)
      expect(mcp.every((r) => r.headers["x-api-key"] === "key-for-the-mcp-server")).toBe(true)
    }))

  it.live("a redirect of the MCP server to another origin is not followed: the bearer and the headers stay home", () =>
    Effect.gen(function*() {
      const elsewhere: Array<string> = []
      const other = yield* listen((req, res) => {
        elsewhere.push(`${req.method} ${req.headers.authorization ?? ""} ${req.headers["x-api-key"] ?? ""}`)
        res.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
      const moved = yield* listen((_req, res) => void res.writeHead(307, { location: other.url }).end())
      const ws = yield* tempDir("mcp-oauth-flight-")
      const { bridge } = yield* openBridged(ws, { remote: { url: moved.url, headers: { "x-api-key": "key-for-the-mcp-server" } } }, {
        ...fast,
        authProvider: () => ({ token: () => Promise.resolve("bearer-for-the-mcp-server") })
      })
      expect(bridge.skipped.map((s) => s.server)).toEqual(["remote"])
      expect(elsewhere).toEqual([])
    }))
})
