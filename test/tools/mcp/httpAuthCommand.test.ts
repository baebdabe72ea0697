/**
 * `effect-tool-system mcp --http HOST:PORT --oauth-issuer URL --oauth-audience URL [--oauth-jwks URL]`:
 * the flags reach `serveMcpHttp`'s `auth` (a request without a token is 401, one with a token of
 * the test's authorization server is served), and are refused without `--http` or alone.
 */
import { NodeServices } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber } from "effect"
import * as Net from "node:net"
import { runMcpCommand } from "../../../src/tools/mcp/stdio.js"
import { cliInProcess } from "../../cli/helpers.js"
import { tempDir } from "../../helpers/tempDir.js"
import { startAuthServer } from "./authServer.js"

const RESOURCE = "https://mcp.example.test/mcp"

/** A port free a moment ago on 127.0.0.1. */
const freePort = Effect.callback<number>((resume) => {
  const probe = Net.createServer().listen(0, "127.0.0.1", () => {
    const address = probe.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    probe.close(() => resume(Effect.succeed(port)))
  })
})

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
})

describe("mcp --http with --oauth-issuer and --oauth-audience", () => {
  it.live("the flags without --http, or the issuer alone, fail the command saying why", () =>
    Effect.gen(function*() {
      const stdio = yield* Effect.promise(() =>
        cliInProcess("mcp", "--oauth-issuer", "https://auth.example.test", "--oauth-audience", RESOURCE)
      )
      expect(stdio.code).not.toBe(0)
      expect(stdio.stderr).toContain("serve over HTTP only")
      const alone = yield* Effect.exit(
        runMcpCommand({ http: "127.0.0.1:1", oauth: { issuer: "https://auth.example.test", resource: "" } }).pipe(
          Effect.provide(NodeServices.layer)
        )
      )
      expect(Exit.isFailure(alone)).toBe(true)
      expect(String(alone)).toContain("go together")
    }))

  it.live("serves with the issuer's tokens required until interrupted", () =>
    Effect.scoped(Effect.gen(function*() {
      const as = yield* startAuthServer
      const ws = yield* tempDir("mcp-auth-cmd-")
      const port = yield* freePort
      const serving = yield* runMcpCommand({
        http: `127.0.0.1:${port}`,
        workspace: ws,
        oauth: { issuer: as.issuer, resource: RESOURCE, jwksUrl: as.jwksUrl }
      }).pipe(Effect.provide(NodeServices.layer), Effect.forkChild)
      const url = `http://127.0.0.1:${port}/mcp`
      const post = (token?: string) =>
        Effect.promise(() =>
          fetch(url, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
              ...(token === undefined ? {} : { authorization: `Bearer ${token}` })
            },
            body: initialize
          }).then((response) => response.status, () => 0)
        )
      // the port opens once the system is built
      let status = 0
      for (let i = 0; i < 100 && status === 0; i++) {
        status = yield* post()
        if (status === 0) yield* Effect.sleep("20 millis")
      }
      expect(status).toBe(401)
      expect(yield* post(yield* Effect.promise(() => as.token(RESOURCE, { scope: "mcp:read" })))).toBe(200)
      yield* Fiber.interrupt(serving)
    })))
})
