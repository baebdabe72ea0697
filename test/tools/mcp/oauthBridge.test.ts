/**
 * Issue 50: the bridge as an OAuth client of a remote server (`url` entries with `oauth`),
 * against an authorization server and a protected MCP server on 127.0.0.1 (`oauthServers.ts`):
 * discovery (RFC 9728, then RFC 8414), dynamic registration, PKCE, the application's
 * `authorize` (here: following the authorization URL with fetch), a call through the gates,
 * the tokens kept in a 0600 file and reused after a restart, an expired token refreshed, a
 * refused refresh authorized again; and fail-open for a wrong `iss`, a declined authorization,
 * a token file others may read, and a missing `McpOAuth` service. No token is logged.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Scope } from "effect"
import * as Context from "effect/Context"
import * as fs from "node:fs"
import * as path from "node:path"
import { McpBridge, type McpServersConfig } from "../../../src/services/McpBridge.js"
import { McpOAuth, type McpAuthorizationRequest } from "../../../src/services/McpOAuth.js"
import { ToolSystem } from "../../../src/services/ToolSystem.js"
import { Workspace } from "../../../src/services/Workspace.js"
import { tokenFileName } from "../../../src/layers/McpOAuthFileStore.js"
import { parseMcpConfig } from "../../../src/tools/mcp/config.js"
import { Result } from "effect"
import { recordingLogsWith, textOf } from "../../helpers/recordingLogs.js"
import { tempDir } from "../../helpers/tempDir.js"
import { fast } from "./helpers.js"
import { sdkServer } from "./httpServers.js"
import { authorizeByFetch, protectedServer } from "./oauthServers.js"

const redirectUrl = "http://127.0.0.1:1/callback"

/** A bridged system with `McpOAuth` (the file store in `tokens`, `authorize` by fetch, counted). */
const openWithOAuth = (ws: string, servers: McpServersConfig, asked: Array<McpAuthorizationRequest>, oauth = true) =>
  Effect.gen(function*() {
    const scope = yield* Effect.acquireRelease(Scope.make(), (scope, exit) => Scope.close(scope, exit))
    const system = McpBridge.layer(servers, fast).pipe(
      Layer.provideMerge(ToolSystem.layerNode({ builtins: false, workspace: Workspace.layerFixed(ws) }))
    )
    const layer = oauth
      ? system.pipe(Layer.provide(McpOAuth.layer({
        directory: path.join(ws, "tokens"),
        authorize: (request) => Effect.flatMap(Effect.sync(() => asked.push(request)), () => authorizeByFetch(request))
      })))
      : system
    const context = yield* Layer.buildWithScope(layer, scope)
    return { scope, system: Context.get(context, ToolSystem), bridge: Context.get(context, McpBridge) }
  })

describe("remote servers with OAuth", () => {
  it.live("discover, register, authorize with PKCE, call through the gates; tokens kept 0600 and reused after a restart", () =>
    Effect.gen(function*() {
      const fixture = yield* protectedServer
      const ws = yield* tempDir("mcp-oauth-")
      const asked: Array<McpAuthorizationRequest> = []
      const servers: McpServersConfig = { remote: { url: fixture.url, trusted: true, oauth: { redirectUrl } } }
      const [first, lines] = yield* recordingLogsWith(() => openWithOAuth(ws, servers, asked))
      expect(first.bridge.skipped).toEqual([])
      expect([...first.bridge.proxies.keys()]).toEqual(["remote__echo"])
      expect(asked).toHaveLength(1)
      const request = asked[0]!
      expect(request.server).toBe("remote")
      expect(request.redirectUrl).toBe(redirectUrl)
      expect(request.authorizationUrl.origin).toBe(fixture.issuer)
      expect(request.authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256")
      expect(request.authorizationUrl.searchParams.get("resource")).toBe(fixture.url)
      expect(fixture.counts).toMatchObject({ registrations: 1, authorizations: 1, codeExchanges: 1 })
      // through the gates: the arguments are checked before anything is sent
      expect(yield* first.system.execute("remote__echo", { text: 5 })).toMatchObject({ success: false })
      expect(yield* first.system.execute("remote__echo", { text: "hello" })).toMatchObject({ success: true, output: "hello" })
      expect(fixture.calls).toEqual(["hello"])

      const file = path.join(ws, "tokens", tokenFileName("remote"))
      expect(fs.statSync(file).mode & 0o777).toBe(0o600)
      expect(fs.statSync(path.join(ws, "tokens")).mode & 0o777).toBe(0o700)
      const kept = JSON.parse(fs.readFileSync(file, "utf8"))
      expect(kept).toMatchObject({ resource: fixture.url, tokens: { token_type: "Bearer", issuer: fixture.issuer }, client: { issuer: fixture.issuer } })
      expect(fixture.issued).toContain(kept.tokens.access_token)
      yield* Scope.close(first.scope, Exit.void)

      // a restart: the kept token is used, no new authorization or registration
      const second = yield* openWithOAuth(ws, servers, asked)
      expect(second.bridge.skipped).toEqual([])
      expect(yield* second.system.execute("remote__echo", { text: "again" })).toMatchObject({ success: true, output: "again" })
      expect(asked).toHaveLength(1)
      expect(fixture.counts).toMatchObject({ registrations: 1, authorizations: 1, codeExchanges: 1, refreshes: 0 })

      // no token or secret in what was logged
      const logged = lines.map(textOf).join("\n")
      expect(logged).toContain(`MCP server "remote" is up`)
      for (const secret of fixture.issued) expect(logged).not.toContain(secret)
    }))

  it("the oauth key of a url entry: redirectUrl required, the rest optional", () => {
    const parsed = parseMcpConfig({ mcpServers: { remote: { url: "https://x.example/mcp", oauth: { redirectUrl: "http://127.0.0.1:1/cb", clientId: "me", extra: 1 } } } })
    expect(Result.isSuccess(parsed) && parsed.success.servers.remote).toEqual({
      url: "https://x.example/mcp",
      oauth: { redirectUrl: "http://127.0.0.1:1/cb", clientId: "me" }
    })
    const missing = parseMcpConfig({ mcpServers: { remote: { url: "https://x.example/mcp", oauth: { clientId: "me" } } } })
    expect(Result.isFailure(missing) && missing.failure).toMatch(/^server "remote": .*redirectUrl/s)
  })

  it.live("ToolSystem.layerNode's mcpServers take the McpOAuth provided to it", () =>
    Effect.gen(function*() {
      const fixture = yield* protectedServer
      const ws = yield* tempDir("mcp-oauth-")
      const asked: Array<McpAuthorizationRequest> = []
      const layer = ToolSystem.layerNode({
        builtins: false,
        workspace: Workspace.layerFixed(ws),
        mcp: fast,
        mcpServers: { remote: { url: fixture.url, trusted: true, oauth: { redirectUrl } } }
      }).pipe(Layer.provide(McpOAuth.layer({
        directory: path.join(ws, "tokens"),
        authorize: (request) => Effect.flatMap(Effect.sync(() => asked.push(request)), () => authorizeByFetch(request))
      })))
      const context = yield* Layer.build(layer)
      const system = Context.get(context, ToolSystem)
      expect(yield* system.execute("remote__echo", { text: "via layerNode" })).toMatchObject({ success: true, output: "via layerNode" })
      expect(asked).toHaveLength(1)
    }))

  it.live("an expired token is refreshed; a refused refresh authorizes again through the service", () =>
    Effect.gen(function*() {
      const fixture = yield* protectedServer
      const ws = yield* tempDir("mcp-oauth-")
      const asked: Array<McpAuthorizationRequest> = []
      const servers: McpServersConfig = { remote: { url: fixture.url, trusted: true, oauth: { redirectUrl } } }
      const { bridge, system } = yield* openWithOAuth(ws, servers, asked)
      expect(bridge.skipped).toEqual([])
      const file = path.join(ws, "tokens", tokenFileName("remote"))
      const before = JSON.parse(fs.readFileSync(file, "utf8")).tokens.access_token

      // the server refuses the token (expired there): the 401 has it refreshed, the call goes on
      fixture.expireAll()
      expect(yield* system.execute("remote__echo", { text: "one" })).toMatchObject({ success: true, output: "one" })
      expect(fixture.counts).toMatchObject({ refreshes: 1, authorizations: 1 })
      const refreshed = JSON.parse(fs.readFileSync(file, "utf8")).tokens.access_token
      expect(refreshed).not.toBe(before)
      expect(fs.statSync(file).mode & 0o777).toBe(0o600)

      // a refresh refused: the person is asked again (the service's authorize), then the call goes on
      fixture.behaviour.refuseRefresh = true
      fixture.expireAll()
      expect(yield* system.execute("remote__echo", { text: "two" })).toMatchObject({ success: true, output: "two" })
      expect(fixture.counts).toMatchObject({ refusedRefreshes: 1, authorizations: 2, codeExchanges: 2, registrations: 1 })
      expect(asked).toHaveLength(2)
      expect(fixture.calls).toEqual(["one", "two"])
    }))

  it.live("a token kept past its expiry is refreshed at the restart, without sending it", () =>
    Effect.gen(function*() {
      const fixture = yield* protectedServer
      const ws = yield* tempDir("mcp-oauth-")
      const asked: Array<McpAuthorizationRequest> = []
      const servers: McpServersConfig = { remote: { url: fixture.url, trusted: true, oauth: { redirectUrl } } }
      const first = yield* openWithOAuth(ws, servers, asked)
      yield* Scope.close(first.scope, Exit.void)
      const file = path.join(ws, "tokens", tokenFileName("remote"))
      const kept = JSON.parse(fs.readFileSync(file, "utf8"))
      fs.writeFileSync(file, JSON.stringify({ ...kept, tokens: { ...kept.tokens, expires_at: Date.now() - 1000 } }))
      const second = yield* openWithOAuth(ws, servers, asked)
      expect(second.bridge.skipped).toEqual([])
      expect(yield* second.system.execute("remote__echo", { text: "x" })).toMatchObject({ success: true })
      expect(asked).toHaveLength(1)
      expect(fixture.counts).toMatchObject({ refreshes: 1, authorizations: 1 })
    }))

  it.live("fail-open: a wrong iss, a declined authorization, a token file others may read, no McpOAuth service", () =>
    Effect.gen(function*() {
      const wrongIss = yield* protectedServer
      wrongIss.behaviour.iss = "http://127.0.0.1:9/evil"
      const declined = yield* protectedServer
      declined.behaviour.decline = true
      const loose = yield* protectedServer
      const plain = yield* sdkServer
      const ws = yield* tempDir("mcp-oauth-")
      const looseFile = path.join(ws, "loose.json")
      fs.writeFileSync(looseFile, JSON.stringify({ resource: loose.url }), { mode: 0o644 })
      fs.chmodSync(looseFile, 0o644)
      const asked: Array<McpAuthorizationRequest> = []
      const { bridge, system } = yield* openWithOAuth(ws, {
        wrongIss: { url: wrongIss.url, oauth: { redirectUrl } },
        declined: { url: declined.url, oauth: { redirectUrl } },
        loose: { url: loose.url, oauth: { redirectUrl, tokenFile: looseFile } },
        plain: { url: plain.url, trusted: true }
      }, asked)
      const reasons = Object.fromEntries(bridge.skipped.map((s) => [s.server, s.reason]))
      expect(Object.keys(reasons).sort()).toEqual(["declined", "loose", "wrongIss"])
      expect(reasons.wrongIss).toMatch(/^connecting failed: authorization failed: .*[Ii]ssuer/)
      expect(wrongIss.counts.codeExchanges).toBe(0)
      expect(reasons.declined).toMatch(/^connecting failed: authorization failed: the person declined \(access_denied\)/)
      expect(reasons.loose).toBe(
        `authorization failed: the token file ${looseFile} has mode 0644: others may read or change it, so it is not used; ` +
          `make it private (chmod 600 ${looseFile}) if no one else could have read it, or delete it to authorize again`
      )
      expect(asked.map((a) => a.server).sort()).toEqual(["declined", "wrongIss"])
      // the others go on
      expect(yield* system.execute("plain__echo", { text: "still here" })).toMatchObject({ success: true, output: "still here" })

      const without = yield* openWithOAuth(ws, { remote: { url: wrongIss.url, oauth: { redirectUrl } } }, asked, false)
      expect(without.bridge.skipped).toEqual([
        { server: "remote", reason: `its entry has "oauth" and no McpOAuth service is provided (McpOAuth.layer)` }
      ])
      for (const secret of [...wrongIss.issued, ...declined.issued]) {
        expect(Object.values(reasons).join("\n")).not.toContain(secret)
      }
    }))
})
