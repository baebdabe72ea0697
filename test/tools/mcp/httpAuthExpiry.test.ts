/**
 * `serveMcpHttp` with `auth`: a response that outlives the token that opened it is closed when
 * the token expires (`closeAtExpiry`). A call that runs on past a short-lived token's `exp` has
 * its connection dropped then and its work cancelled; a token that lives on (even one whose
 * `exp` is centuries away, past a Node timer's range) leaves its call alone.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Tool, ToolSystem, Workspace } from "../../../src/index.js"
import { serveMcpHttp } from "../../../src/tools/mcp/http.js"
import { tempDir } from "../../helpers/tempDir.js"
import { startAuthServer } from "./authServer.js"
import { makeForever } from "./helpers.js"

const RESOURCE = "https://mcp.example.test/mcp"
const READ = { scope: "mcp:read" }

const slow = Tool.make("slow", {
  description: "Answers after 300 ms",
  parameters: Schema.Struct({}),
  readOnly: true,
  handler: () => Effect.as(Effect.sleep("300 millis"), "done")
})

const call = (name: string) => ({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name, arguments: {} } })

/** A 2025-11-25 stateless call with `token`; its status and body, or how it failed (the connection dropped). */
const post = (url: string, body: unknown, token: string) =>
  Effect.promise(() => send(url, body, token).catch((error: Error) => ({ failed: error.message })))

const send = async (url: string, body: unknown, token: string) => {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
      authorization: `Bearer ${token}`
    },
    body: JSON.stringify(body)
  })
  return { status: response.status, text: await response.text() }
}

describe("serveMcpHttp with auth: a token's expiry on a long response", () => {
  it.live("a call running past its token's exp is cut then, its work cancelled; a long-lived token's call is not", () =>
    Effect.scoped(Effect.gen(function*() {
      const as = yield* startAuthServer
      const ws = yield* tempDir("mcp-auth-expiry-")
      const forever = makeForever()
      const { url } = yield* serveMcpHttp({
        confirmation: "auto",
        auth: { issuer: as.issuer, resource: RESOURCE, jwksUrl: as.jwksUrl, clockToleranceSeconds: 0 }
      }).pipe(
        Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [forever.tool, slow], workspace: Workspace.layerFixed(ws) }))
      )
      const now = Date.now()
      // `exp` is in whole seconds: this token lives between 1 and 2 s from now
      const exp = Math.floor(now / 1000) + 2
      const short = yield* Effect.promise(() => as.token(RESOURCE, { ...READ, exp }))
      const cut = yield* post(url, call("forever"), short)
      const took = Date.now() - now
      expect(cut).toMatchObject({ failed: "fetch failed" })
      expect(took).toBeGreaterThanOrEqual(exp * 1000 - now - 50)
      expect(took).toBeLessThan(exp * 1000 - now + 1500)
      expect(forever.started()).toBe(1)
      // the call's work is cancelled with its request
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 100)))
      expect(forever.stopped()).toBe(1)

      // a token valid for centuries (past a timer's 24.8 days): the call answers
      const far = yield* Effect.promise(() => as.token(RESOURCE, { ...READ, exp: 9_999_999_999 }))
      const answered = yield* post(url, call("slow"), far)
      expect(answered).toMatchObject({ status: 200 })
      expect("text" in answered && answered.text).toContain("done")
    })))
})
