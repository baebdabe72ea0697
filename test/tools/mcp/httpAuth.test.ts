/**
 * `serveMcpHttp` with `auth`: an OAuth 2.1 resource server in front of the registry, against a
 * tiny authorization server the test starts on 127.0.0.1 (`authServer.ts`: ES256 keys, its
 * metadata and key set). Tokens are checked (signature, `iss`, `aud`, `exp`, algorithm), the
 * metadata document is served, and the scopes narrow the tools (read: read-only tools; write:
 * all) through the `oauthScope` gate, which the audit record shows.
 */
import { describe, expect, it } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect, Layer, Schema } from "effect"
import { SignJWT, UnsecuredJWT } from "jose"
import { AuditLog, type AuditRecord, Tool, ToolSystem, Workspace } from "../../../src/index.js"
import { serveMcpHttp } from "../../../src/tools/mcp/http.js"
import type { McpHttpAuthOptions } from "../../../src/tools/mcp/httpAuth.js"
import { tempDir } from "../../helpers/tempDir.js"
import { type AuthServer, startAuthServer } from "./authServer.js"
import { makeDeleteThing } from "./helpers.js"
import { replyText as text } from "./replyText.js"

const RESOURCE = "https://mcp.example.test/mcp"
const READ = { scope: "mcp:read" }
const WRITE = { scope: "mcp:read mcp:write" }

const echo = Tool.make("echo", {
  description: "Says its text back",
  parameters: Schema.Struct({ text: Schema.String }),
  readOnly: true,
  handler: ({ text }) => Effect.succeed(text)
})

/** The registry served with `auth` against `as` (confirmation `auto`: the write tool runs when admitted). */
const served = (as: AuthServer, auth: Partial<McpHttpAuthOptions> = {}) =>
  Effect.gen(function*() {
    const ws = yield* tempDir("mcp-auth-")
    const { deletions, tool: deleteThing } = makeDeleteThing()
    const records: Array<AuditRecord> = []
    const audit = Layer.succeed(AuditLog, {
      enabled: true,
      includeArguments: false,
      write: (record: AuditRecord) => Effect.sync(() => void records.push(record))
    })
    const { url } = yield* serveMcpHttp({
      confirmation: "auto",
      auth: { issuer: as.issuer, resource: RESOURCE, jwksUrl: as.jwksUrl, ...auth }
    }).pipe(
      Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [deleteThing, echo], workspace: Workspace.layerFixed(ws), audit }))
    )
    return { url, deletions, records }
  })

interface Answer {
  readonly status: number
  readonly challenge: string | null
  readonly body: string
}

const post = (url: string, body: unknown, token?: string) =>
  Effect.promise(async (): Promise<Answer> => {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` })
      },
      body: JSON.stringify(body)
    })
    return { status: response.status, challenge: response.headers.get("www-authenticate"), body: await response.text() }
  })

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
}
const callDelete = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "delete_thing", arguments: { id: 7 } } }

/** An SDK v2 client (2025-11-25) sending `token` as its bearer. */
const clientOf = (url: string, token: string) =>
  Effect.gen(function*() {
    const client = new Client({ name: "auth-test", version: "1.0.0" }, { versionNegotiation: { mode: "legacy" } })
    const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: { token: () => Promise.resolve(token) } })
    yield* Effect.acquireRelease(Effect.promise(() => client.connect(transport)), () => Effect.promise(() => client.close()))
    return client
  })

const metadataUrl = "https://mcp.example.test/.well-known/oauth-protected-resource/mcp"

// live clock: real HTTP servers (Node timers and sockets)
describe("serveMcpHttp with auth", () => {
  it.live("no token: 401 with resource_metadata and scope; the metadata document at both well-known paths", () =>
    Effect.scoped(Effect.gen(function*() {
      const as = yield* startAuthServer
      const { url } = yield* served(as)
      const refused = yield* post(url, initialize)
      expect(refused.status).toBe(401)
      expect(refused.challenge).toBe(`Bearer resource_metadata="${metadataUrl}", scope="mcp:read"`)
      const origin = new URL(url).origin
      for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
        const response = yield* Effect.promise(() => fetch(`${origin}${path}`))
        expect(response.status).toBe(200)
        expect(response.headers.get("access-control-allow-origin")).toBe("*")
        expect(yield* Effect.promise(() => response.json())).toEqual({
          resource: RESOURCE,
          authorization_servers: [as.issuer],
          scopes_supported: ["mcp:read", "mcp:write"],
          bearer_methods_supported: ["header"]
        })
      }
      const wrongMethod = yield* Effect.promise(() => fetch(`${origin}/.well-known/oauth-protected-resource`, { method: "POST" }))
      expect(wrongMethod.status).toBe(405)
    })))

  it.live("expired, wrong audience, wrong issuer, alg=none, HS256 with the public key, tampered, not a JWT: 401 invalid_token", () =>
    Effect.scoped(Effect.gen(function*() {
      const as = yield* startAuthServer
      const { url } = yield* served(as)
      const now = Math.floor(Date.now() / 1000)
      const good = yield* Effect.promise(() => as.token(RESOURCE, READ))
      const [header, , signature] = good.split(".")
      const forged = Buffer.from(JSON.stringify({ iss: as.issuer, aud: RESOURCE, sub: "mallory", scope: "mcp:write", exp: now + 300 }))
        .toString("base64url")
      const publicKeyAsSecret = new TextEncoder().encode(JSON.stringify(as.publicJwk()))
      const bad: Record<string, string> = {
        expired: yield* Effect.promise(() => as.token(RESOURCE, { ...READ, exp: now - 3600 })),
        wrongAudience: yield* Effect.promise(() => as.token("https://other.example.test/mcp", READ)),
        wrongIssuer: yield* Effect.promise(() => as.token(RESOURCE, { ...READ, iss: "https://evil.example.test" })),
        algNone: new UnsecuredJWT({ ...WRITE, sub: "mallory" }).setIssuer(as.issuer).setAudience(RESOURCE).setExpirationTime(now + 300)
          .encode(),
        hs256WithPublicKey: yield* Effect.promise(() =>
          new SignJWT(WRITE).setProtectedHeader({ alg: "HS256", kid: "k1" }).setIssuer(as.issuer).setAudience(RESOURCE)
            .setSubject("mallory").setExpirationTime(now + 300).sign(publicKeyAsSecret)
        ),
        tampered: `${header}.${forged}.${signature}`,
        garbage: "not-a-jwt"
      }
      const why: Record<string, string> = {
        expired: `\\"exp\\" claim`,
        wrongAudience: `\\"aud\\" claim`,
        wrongIssuer: `\\"iss\\" claim`,
        algNone: "not allowed",
        hs256WithPublicKey: "not allowed",
        tampered: "signature verification failed",
        garbage: "Invalid Compact JWS"
      }
      for (const [name, token] of Object.entries(bad)) {
        const refused = yield* post(url, initialize, token)
        expect({ name, status: refused.status }).toEqual({ name, status: 401 })
        expect({ name, said: refused.body }).toEqual({ name, said: expect.stringContaining(why[name] ?? "?") })
        expect(refused.challenge).toContain(`error="invalid_token"`)
        expect(refused.challenge).toContain(`resource_metadata="${metadataUrl}"`)
      }
      const accepted = yield* post(url, initialize, good)
      expect(accepted.status).toBe(200)
    })))

  it.live("a read-scope token lists only read-only tools; its write call is 403 insufficient_scope, nothing runs, the audit says why", () =>
    Effect.scoped(Effect.gen(function*() {
      const as = yield* startAuthServer
      const { deletions, records, url } = yield* served(as)
      const token = yield* Effect.promise(() => as.token(RESOURCE, READ))
      const client = yield* clientOf(url, token)
      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(tools.map((t) => t.name)).toEqual(["echo"])
      expect(text(yield* Effect.promise(() => client.callTool({ name: "echo", arguments: { text: "hi" } })))).toBe("hi")

      const refused = yield* post(url, callDelete, token)
      expect(refused.status).toBe(403)
      expect(refused.challenge).toContain(`error="insufficient_scope"`)
      expect(refused.challenge).toContain(`scope="mcp:read mcp:write"`)
      expect(refused.challenge).toContain(`resource_metadata="${metadataUrl}"`)
      expect(deletions()).toBe(0)
      const viaClient = yield* Effect.flip(Effect.tryPromise(() => client.callTool({ name: "delete_thing", arguments: { id: 8 } })))
      expect(String(viaClient.cause)).toMatch(/403|scope/i)
      expect(deletions()).toBe(0)

      const refusal = records.find((r) => r.tool === "delete_thing")
      expect(refusal?.errorCode).toBe("POLICY_VETO")
      expect(refusal?.rateLimitKey).toBe("alice")
      expect(refusal?.gates.find((g) => g.gate === "oauthScope")).toMatchObject({ outcome: "fail" })
      expect(refusal?.gates.find((g) => g.gate === "oauthScope")?.reason).toContain(`lacks "mcp:write"`)
      expect(refusal?.gates.find((g) => g.gate === "confirmation")?.outcome).toBe("not_reached")
      expect(records.find((r) => r.tool === "echo")?.gates.find((g) => g.gate === "oauthScope")?.outcome).toBe("pass")
    })))

  it.live("a write-scope token lists every tool and its write call runs (the other gates still asked)", () =>
    Effect.scoped(Effect.gen(function*() {
      const as = yield* startAuthServer
      const { deletions, records, url } = yield* served(as)
      const token = yield* Effect.promise(() => as.token(RESOURCE, { ...WRITE, sub: "bob" }))
      const client = yield* clientOf(url, token)
      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(tools.map((t) => t.name)).toEqual(["delete_thing", "echo"])
      const reply = yield* Effect.promise(() => client.callTool({ name: "delete_thing", arguments: { id: 9 } }))
      expect(text(reply)).toBe("deleted 9 (1)")
      expect(deletions()).toBe(1)
      const record = records.find((r) => r.tool === "delete_thing")
      expect(record?.rateLimitKey).toBe("bob")
      expect(record?.gates.map((g) => [g.gate, g.outcome])).toEqual([
        ["lookup", "pass"],
        ["arguments", "pass"],
        ["paths", "skip"],
        ["oauthScope", "pass"],
        ["mode", "pass"],
        ["policy", "skip"],
        ["confirmation", "pass"],
        ["rateLimit", "skip"]
      ])
    })))

  it.live("a token with neither MCP scope: 403 insufficient_scope", () =>
    Effect.scoped(Effect.gen(function*() {
      const as = yield* startAuthServer
      const { url } = yield* served(as)
      const refused = yield* post(url, initialize, yield* Effect.promise(() => as.token(RESOURCE, { scope: "profile" })))
      expect(refused.status).toBe(403)
      expect(refused.challenge).toContain(`error="insufficient_scope"`)
    })))

  it.live("a key set that hangs or floods (50 MB): 503 within the deadline, and the server keeps serving", () =>
    Effect.scoped(Effect.gen(function*() {
      const as = yield* startAuthServer
      const { url } = yield* served(as, { jwksTimeoutMs: 300, jwksCooldownMs: 0, jwksCacheMaxAgeMs: 0 })
      const token = yield* Effect.promise(() => as.token(RESOURCE, READ))
      for (const mode of ["hang", "flood"] as const) {
        as.setJwksMode(mode)
        const start = Date.now()
        const refused = yield* post(url, initialize, token)
        expect({ mode, status: refused.status }).toEqual({ mode, status: 503 })
        expect(refused.body).toContain(mode === "hang" ? "did not arrive in time" : "is over 262144 bytes")
        expect(Date.now() - start).toBeLessThan(3000)
      }
      expect((yield* Effect.promise(() => fetch(`${new URL(url).origin}/.well-known/oauth-protected-resource`))).status).toBe(200)
      as.setJwksMode("ok")
      expect((yield* post(url, initialize, token)).status).toBe(200)
    })))

  it.live("key rotation: a token of a new key id is accepted after one new fetch of the key set; keys are cached", () =>
    Effect.scoped(Effect.gen(function*() {
      const as = yield* startAuthServer
      const { url } = yield* served(as, { jwksCooldownMs: 0 })
      const first = yield* Effect.promise(() => as.token(RESOURCE, READ))
      expect((yield* post(url, initialize, first)).status).toBe(200)
      expect((yield* post(url, initialize, first)).status).toBe(200)
      expect(as.jwksFetches()).toBe(1)
      yield* Effect.promise(() => as.rotate())
      const rotated = yield* Effect.promise(() => as.token(RESOURCE, READ))
      expect((yield* post(url, initialize, rotated)).status).toBe(200)
      expect(as.jwksFetches()).toBe(2)
    })))

  it.live("without jwksUrl the key set is found through the issuer's metadata", () =>
    Effect.scoped(Effect.gen(function*() {
      const as = yield* startAuthServer
      const { url } = yield* served(as, { jwksUrl: undefined })
      const token = yield* Effect.promise(() => as.token(RESOURCE, READ))
      expect((yield* post(url, initialize, token)).status).toBe(200)
    })))

  it.effect("a misconfiguration fails the serve: an http issuer off loopback, an HS algorithm", () =>
    Effect.gen(function*() {
      const remote = yield* Effect.flip(Effect.scoped(serveMcpHttp({ auth: { issuer: "http://auth.example.test", resource: RESOURCE } }).pipe(
        Effect.provide(ToolSystem.layerNode({ builtins: false }))
      )))
      expect(remote.message).toContain("must be https")
      const hmac = yield* Effect.flip(Effect.scoped(serveMcpHttp({
        auth: { issuer: "https://auth.example.test", resource: RESOURCE, algorithms: ["HS256"] }
      }).pipe(Effect.provide(ToolSystem.layerNode({ builtins: false })))))
      expect(hmac.message).toContain("asymmetric")
    }))
})
