/**
 * The tests of `generateImage.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet machine:
 * real processes, worker starts, large inputs), kept in the slow lane so that the fast lane's
 * tests stay well under its 1 s CPU bound even on a loaded machine.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { type Respond, sendJson, sendText, testServer } from "../../../helpers/httpServer.js"
import { env, generateImageWorkspace, KEY, minimax } from "./generateImageHarness.js"

const { call, dirs } = generateImageWorkspace()
let ws: string
beforeAll(() => {
  ws = dirs.ws
})

// live clock where a test has a real HTTP server on 127.0.0.1 (Node sockets, undici's own timers)
describe("generate_image", () => {

  it.live("HTTP errors, odd answers and bad payloads are clear TOOL_ERRORs, the key redacted", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [Respond, string]> = [
        [(_, response) => sendText(response, 401, "bad key"), "MiniMax rejected the API key (HTTP 401)"],
        [(_, response) => sendText(response, 403, "forbidden"), "MiniMax rejected the API key (HTTP 403)"],
        [(_, response) => sendText(response, 300, "choose"), "MiniMax image generation failed with HTTP 300: choose"],
        [(req, response) => sendText(response, 500, `boom: ${req.headers.authorization}`), "MiniMax image generation failed with HTTP 500: boom: Bearer [REDACTED]"],
        // a key cut by the excerpt's 200 characters is redacted before the cut: no part of it shows
        [(_, response) => sendText(response, 500, `${"x".repeat(190)}${KEY} and more`), `MiniMax image generation failed with HTTP 500: ${"x".repeat(190)}[REDACTED]…`],
        // a long body whose text is short once its white space is folded still ends with "…"
        [(_, response) => sendText(response, 500, `short${" ".repeat(20_000)}end`), "MiniMax image generation failed with HTTP 500: short…"],
        [(_, response) => sendText(response, 500, "y".repeat(100_000)), `MiniMax image generation failed with HTTP 500: ${"y".repeat(200)}…`],
        // no body to quote, or one that breaks off: the status alone
        [(_, response) => sendText(response, 502, ""), "MiniMax image generation failed with HTTP 502"],
        [(_, response) => {
          response.writeHead(503, { "content-type": "text/plain", "content-length": "1000" })
          response.write("the first part of ", () => response.socket?.destroy())
        }, "MiniMax image generation failed with HTTP 503"],
        // a refusal without a message
        [(_, response) => sendJson(response, 200, { base_resp: { status_code: 9999 } }), "MiniMax refused the request (status 9999)"],
        [(_, response) => sendText(response, 200, "<html>gateway</html>", "text/html"), "MiniMax answered HTTP 200 with a body that is not JSON (or nested too deep)"],
        [(_, response) => sendJson(response, 200, { data: "nope" }), "MiniMax answered HTTP 200 with an unexpected shape"],
        [(_, response) => sendJson(response, 200, { data: { image_base64: [] }, base_resp: { status_code: 0 } }), "MiniMax answered without an image"],
        [(_, response) => sendJson(response, 200, { data: {} }), "MiniMax answered without an image"],
        [(_, response) => sendJson(response, 200, { data: { image_base64: [" \n "] } }), "MiniMax answered without an image"],
        [(_, response) => sendJson(response, 200, { data: { image_base64: ["!!not base64!!"] } }), "MiniMax's image is not valid base64"],
        // base64's characters, but not a whole number of 4-character groups
        [(_, response) => sendJson(response, 200, { data: { image_base64: ["iVBORw0"] } }), "MiniMax's image is not valid base64"],
        [minimax(Buffer.from("just some text, not an image")), "MiniMax's answer is not a PNG, JPEG, WebP or GIF image"]
      ]
      for (const [respond, message] of cases) {
        const server = yield* testServer(respond)
        const r = yield* call({ prompt: "p", filepath: "bad.png" }, env(server.origin))
        expect(r.error).toBe(message)
      }
      expect(Fs.existsSync(Path.join(ws, "bad.png"))).toBe(false)
    }))

  it.live("an answer past the 32 MiB cap, or one that breaks off, is a TOOL_ERROR saying so; nothing saved", () =>
    Effect.gen(function*() {
      // streamed past the cap without a length: the tool stops reading there
      const huge = yield* testServer((_, response) => {
        response.writeHead(200, { "content-type": "application/json" })
        const block = Buffer.alloc(1024 * 1024, 0x20)
        for (let i = 0; i < 33; i++) response.write(block)
        response.end("{}")
      })
      const tooLarge = yield* call({ prompt: "p", filepath: "huge.png" }, env(huge.origin))
      expect(tooLarge.error).toBe("MiniMax's answer (HTTP 200) is too large: more than 32 MiB")
      const broken = yield* testServer((_, response) => {
        response.writeHead(200, { "content-type": "application/json", "content-length": "1000" })
        response.write("{\"data\":", () => response.socket?.destroy())
      })
      const cut = yield* call({ prompt: "p", filepath: "broken.png" }, env(broken.origin))
      expect(cut.error).toMatch(/^could not read MiniMax's answer \(HTTP 200\): ./)
      expect(Fs.existsSync(Path.join(ws, "huge.png")) || Fs.existsSync(Path.join(ws, "broken.png"))).toBe(false)
    }))
})
