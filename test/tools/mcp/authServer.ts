/**
 * A tiny OAuth authorization server for the resource-server tests, on 127.0.0.1 (a free port):
 * ES256 keys made with `jose`, its metadata (RFC 8414) and its key set (JWKS), tokens signed
 * with `SignJWT`. `rotate()` makes a new key (a new `kid`) and serves only it; `jwksMode` makes
 * the key set hang or flood (50 MB, chunked) for the hostile tests.
 */
import { Effect } from "effect"
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from "jose"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

export type JwksMode = "ok" | "hang" | "flood"

export interface AuthServer {
  readonly issuer: string
  readonly jwksUrl: string
  /** How many times the key set was asked for. */
  readonly jwksFetches: () => number
  readonly setJwksMode: (mode: JwksMode) => void
  /** A new signing key (a new `kid`); the key set then holds only it. */
  readonly rotate: () => Promise<void>
  /** A token signed with the current key: `claims` over sensible defaults for `audience`. */
  readonly token: (audience: string, claims?: JWTPayload, header?: { readonly kid?: string }) => Promise<string>
  /** The current public key as a JWK (for the HS256-with-the-public-key attack). */
  readonly publicJwk: () => JWK
}

interface Key {
  readonly kid: string
  readonly privateKey: Awaited<ReturnType<typeof generateKeyPair>>["privateKey"]
  readonly jwk: JWK
}

const makeKey = async (kid: string): Promise<Key> => {
  const { privateKey, publicKey } = await generateKeyPair("ES256")
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" } }
}

/** The server for the scope (closed, with its connections, when the scope closes). */
export const startAuthServer = Effect.gen(function*() {
  let key = yield* Effect.promise(() => makeKey("k1"))
  let mode: JwksMode = "ok"
  let fetches = 0
  let issuer = ""
  const server = Http.createServer((req, res) => {
    if (req.url === "/.well-known/oauth-authorization-server") {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({
        issuer,
        jwks_uri: `${issuer}/jwks`,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        response_types_supported: ["code"],
        code_challenge_methods_supported: ["S256"]
      }))
      return
    }
    if (req.url !== "/jwks") {
      res.writeHead(404).end()
      return
    }
    fetches++
    if (mode === "hang") return
    if (mode === "flood") {
      res.writeHead(200, { "content-type": "application/json" })
      const chunk = Buffer.alloc(64 * 1024, 0x20)
      let sent = 0
      const more = () => {
        while (sent < 50 * 1024 * 1024 && !res.destroyed) {
          sent += chunk.length
          if (!res.write(chunk)) return void res.once("drain", more)
        }
        res.end()
      }
      res.write("{\"keys\":[")
      more()
      return
    }
    res.writeHead(200, { "content-type": "application/json" })
    res.end(JSON.stringify({ keys: [key.jwk] }))
  })
  yield* Effect.acquireRelease(
    Effect.callback<void>((resume) => {
      server.listen(0, "127.0.0.1", () => resume(Effect.void))
    }),
    () =>
      Effect.callback<void>((resume) => {
        server.close(() => resume(Effect.void))
        server.closeAllConnections()
      })
  )
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  let rotations = 1
  const auth: AuthServer = {
    issuer,
    jwksUrl: `${issuer}/jwks`,
    jwksFetches: () => fetches,
    setJwksMode: (next) => {
      mode = next
    },
    rotate: async () => {
      key = await makeKey(`k${++rotations}`)
    },
    token: (audience, claims = {}, header = {}) => {
      const now = Math.floor(Date.now() / 1000)
      return new SignJWT({ scope: "mcp:read", client_id: "test-client", ...claims })
        .setProtectedHeader({ alg: "ES256", kid: header.kid ?? key.kid })
        .setIssuer(typeof claims.iss === "string" ? claims.iss : issuer)
        .setAudience(audience)
        .setSubject(typeof claims.sub === "string" ? claims.sub : "alice")
        .setIssuedAt(now)
        .setExpirationTime(typeof claims.exp === "number" ? claims.exp : now + 300)
        .sign(key.privateKey)
    },
    publicJwk: () => key.jwk
  }
  return auth
})
