/**
 * The fetch of the bridge's OAuth requests (`oauthFetch.ts`), against servers on 127.0.0.1: a
 * metadata `GET` follows a redirect within its origin only; a token `POST` follows none (its
 * body, a refresh token, never reaches another host); an answer past the cap fails the read; a
 * server that never answers fails at the deadline.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type * as http from "node:http"
import { makeOAuthFetch } from "../../../src/tools/mcp/oauthFetch.js"
import { listen } from "./httpServers.js"

const readBody = (req: http.IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
  })

describe("the OAuth fetch", () => {
  it.live("redirects: a GET within its origin only, a POST never", () =>
    Effect.gen(function*() {
      const elsewhere: Array<string> = []
      const other = yield* listen((req, res) => {
        void readBody(req).then((body) => {
          elsewhere.push(`${req.method} ${req.url} ${body}`)
          res.writeHead(200, { "content-type": "application/json" }).end("{}")
        })
      })
      const otherOrigin = new URL(other.url).origin
      const server = yield* listen((req, res) => {
        if (req.url === "/moved") return void res.writeHead(302, { location: "/metadata" }).end()
        if (req.url === "/metadata") return void res.writeHead(200, { "content-type": "application/json" }).end(`{"ok":true}`)
        if (req.url === "/away") return void res.writeHead(302, { location: `${otherOrigin}/metadata` }).end()
        if (req.url === "/token") return void res.writeHead(307, { location: `${otherOrigin}/token` }).end()
        if (req.url === "/token-here") return void res.writeHead(307, { location: "/metadata" }).end()
        res.writeHead(404).end()
      })
      const origin = new URL(server.url).origin
      const oauthFetch = makeOAuthFetch()
      const moved = yield* Effect.promise(() => oauthFetch(`${origin}/moved`))
      expect(moved.status).toBe(200)
      expect(yield* Effect.promise(() => moved.json())).toEqual({ ok: true })
      const away = yield* Effect.promise(() => oauthFetch(`${origin}/away`))
      expect(away.status).toBe(302)
      const post = { method: "POST", body: "grant_type=refresh_token&refresh_token=rt-secret" }
      const token = yield* Effect.promise(() => oauthFetch(`${origin}/token`, post))
      expect(token.status).toBe(307)
      const here = yield* Effect.promise(() => oauthFetch(`${origin}/token-here`, post))
      expect(here.status).toBe(307)
      expect(elsewhere).toEqual([])
    }))

  it.live("an answer over the cap fails its read; a server that never answers fails at the deadline", () =>
    Effect.gen(function*() {
      const server = yield* listen((req, res) => {
        if (req.url === "/hang") return
        if (req.url === "/declared") {
          return void res.writeHead(200, { "content-type": "application/json", "content-length": "5000" }).end("x".repeat(5000))
        }
        res.writeHead(200, { "content-type": "application/json" })
        res.write("x".repeat(3000))
        res.end("x".repeat(3000))
      })
      const origin = new URL(server.url).origin
      const oauthFetch = makeOAuthFetch({ maxBytes: 4096, timeoutMs: 200 })
      const declared = yield* Effect.promise(() => oauthFetch(`${origin}/declared`).then(() => "answered", (e: Error) => e.message))
      expect(declared).toMatch(/over 4096 bytes \(5000 declared\)/)
      const streamed = yield* Effect.promise(() =>
        oauthFetch(`${origin}/big`).then((r) => r.text()).then(() => "read", (e: Error) => e.message)
      )
      expect(streamed).toMatch(/over 4096 bytes/)
      const started = Date.now()
      const hung = yield* Effect.promise(() => oauthFetch(`${origin}/hang`).then(() => "answered", (e: Error) => e.name))
      expect(hung).toBe("TimeoutError")
      expect(Date.now() - started).toBeLessThan(2000)
    }))
})
