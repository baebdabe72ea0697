/**
 * `generate_image` against a MiniMax-like server on 127.0.0.1 (or an in-process HttpClient): the
 * request it sends, the image it saves and what it answers, MiniMax's refusals, an answer outside
 * 2xx, base64 with white space inside, its endpoint, key and URL (config or process environment),
 * and its timeout.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientError from "effect/http/HttpClientError"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { ConfigProvider, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { ToolSystem, Workspace } from "../../../../src/index.js"
import {
  generateImage,
  GENERATE_IMAGE_UNAVAILABLE,
  makeGenerateImage,
  MINIMAX_DEFAULT_URL
} from "../../../../src/tools/ported/media/generateImage.js"
import { withEnv } from "../../../helpers/env.js"
import { type Respond, sendJson, testServer } from "../../../helpers/httpServer.js"
import { countingSleeps, joinUnmoved, sleepersUntil, until } from "../../../helpers/testClock.js"
import { env, generateImageWorkspace, KEY, minimax, PNG } from "./generateImageHarness.js"

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1, 0xff, 0xd9])

const { call, dirs } = generateImageWorkspace()
let ws: string
beforeAll(() => {
  ws = dirs.ws
})

const baseResp = (status_code: number, status_msg: string): Respond => (_, response) =>
  sendJson(response, 200, { id: "x", data: null, base_resp: { status_code, status_msg } })

// live clock where a test has a real HTTP server on 127.0.0.1 (Node sockets, undici's own timers)
describe("generate_image", () => {
  it.live("without a key: the unavailable message, a success, nothing sent", () =>
    Effect.gen(function*() {
      const server = yield* testServer(minimax())
      for (const key of [[], [["MINIMAX_API_KEY", "  "]]] as const) {
        const r = yield* call({ prompt: "a cat", filepath: "cat.png" }, [...key, ["MINIMAX_API_URL", server.origin]])
        expect(r.success).toBe(true)
        expect(r.output).toBe(GENERATE_IMAGE_UNAVAILABLE)
      }
      expect(server.requests).toHaveLength(0)
      expect(Fs.existsSync(Path.join(ws, "cat.png"))).toBe(false)
    }))

  it.live("POSTs the prompt with the bearer key and saves the image into the workspace", () =>
    Effect.gen(function*() {
      const server = yield* testServer(minimax())
      const r = yield* call({ prompt: "a red square", filepath: "art/square.png", aspect_ratio: "16:9" }, env(server.origin))
      expect(r.output).toBe("Generated a 16:9 PNG image (70 bytes) and saved it to art/square.png")
      expect(Fs.readFileSync(Path.join(ws, "art/square.png")).equals(PNG)).toBe(true)
      const request = server.requests[0]
      expect(request?.method).toBe("POST")
      expect(request?.path).toBe("/v1/image_generation")
      expect(request?.headers.authorization).toBe(`Bearer ${KEY}`)
      expect(JSON.parse(request?.body ?? "")).toEqual({
        model: "image-01",
        prompt: "a red square",
        aspect_ratio: "16:9",
        response_format: "base64",
        n: 1
      })
    }))

  it.live("aspect_ratio defaults to 1:1; JPEG data under a .png name is said", () =>
    Effect.gen(function*() {
      const server = yield* testServer(minimax(JPEG))
      const r = yield* call({ prompt: "p", filepath: "photo.png" }, env(server.origin))
      expect(r.output).toBe("Generated a 1:1 JPEG image (14 bytes) and saved it to photo.png (note: the file holds JPEG data)")
      expect(JSON.parse(server.requests[0]?.body ?? "").aspect_ratio).toBe("1:1")
      const invalid = yield* call({ prompt: "p", filepath: "x.png", aspect_ratio: "5:4" }, env(server.origin))
      expect(invalid.errorCode).toBe("INVALID_ARGUMENTS")
    }))

  it.live("MiniMax's refusals (base_resp) are TOOL_ERRORs that say what they mean; nothing saved", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [Respond, string]> = [
        [baseResp(1026, "input new_sensitive"), "MiniMax refused the request (status 1026: input new_sensitive): the prompt was flagged as sensitive content; rephrase it"],
        [baseResp(1004, `authorized failed for ${KEY}`), "MiniMax refused the request (status 1004: authorized failed for [REDACTED]): the API key was rejected"],
        [baseResp(9999, "odd"), "MiniMax refused the request (status 9999: odd)"],
        // a key cut by the message's 200 characters is redacted before the cut
        [baseResp(9999, `${"x".repeat(190)}${KEY}`), `MiniMax refused the request (status 9999: ${"x".repeat(190)}[REDACTED])`]
      ]
      for (const [respond, message] of cases) {
        const server = yield* testServer(respond)
        const r = yield* call({ prompt: "p", filepath: "refused.png" }, env(server.origin))
        expect(r.errorCode).toBe("TOOL_ERROR")
        expect(r.error).toBe(message)
      }
      expect(Fs.existsSync(Path.join(ws, "refused.png"))).toBe(false)
    }))

  it.live("JPEG data under a .jpg name gets no note; a second image to one name says it overwrote the first", () =>
    Effect.gen(function*() {
      const server = yield* testServer(minimax(JPEG))
      const first = yield* call({ prompt: "p", filepath: "named.jpg" }, env(server.origin))
      expect(first.output).toBe("Generated a 1:1 JPEG image (14 bytes) and saved it to named.jpg")
      const second = yield* call({ prompt: "p", filepath: "named.jpg" }, env(server.origin))
      expect(second.output).toBe("Generated a 1:1 JPEG image (14 bytes) and saved it to named.jpg (overwrote an existing file)")
    }))

  it.live("an image that cannot be saved (a directory at its path) is a TOOL_ERROR naming the path; the directory is kept", () =>
    Effect.gen(function*() {
      const server = yield* testServer(minimax())
      Fs.mkdirSync(Path.join(ws, "taken.png"))
      const r = yield* call({ prompt: "p", filepath: "taken.png" }, env(server.origin))
      expect(r.errorCode).toBe("TOOL_ERROR")
      expect(r.error).toContain("taken.png")
      expect(Fs.statSync(Path.join(ws, "taken.png")).isDirectory()).toBe(true)
    }))

  // live clock: a real connection attempt to a closed port
  it.live("an unreachable endpoint says so, without the key", () =>
    Effect.gen(function*() {
      // nothing listens on port 1 of loopback (and only root could)
      const r = yield* call({ prompt: "p", filepath: "x.png" }, env("http://127.0.0.1:1"))
      expect(r.error).toMatch(/^could not reach the MiniMax API at http:\/\/127\.0\.0\.1:1\/v1\/image_generation: /)
      expect(r.error).not.toContain(KEY)
    }))

  // the tool's timeout is the executor's deadline, on the fiber's Clock: moved on the TestClock
  // (under countingSleeps, which sees the sleep) once the real server has the request
  it.effect("a slow API meets the tool's timeout", () =>
    Effect.gen(function*() {
      const server = yield* testServer(() => undefined)
      const running = yield* Effect.forkChild(
        call({ prompt: "p", filepath: "slow.png" }, env(server.origin), makeGenerateImage({ timeout: "500 millis" }))
      )
      yield* until(() => server.requests.length === 1, "the request")
      // waiting at 499 ms of the clock, timed out at 500
      yield* sleepersUntil(500)
      yield* TestClock.adjust(499)
      expect(running.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust(1)
      const r = yield* joinUnmoved(running)
      expect(r.errorCode).toBe("TIMEOUT")
      expect(Fs.existsSync(Path.join(ws, "slow.png"))).toBe(false)
    }).pipe(countingSleeps))

  // no socket (an offline HttpClient) and no clock: it.effect
  it.effect("without MINIMAX_API_URL, or with a blank one, the request goes to MiniMax's own endpoint", () =>
    Effect.gen(function*() {
      // an HttpClient that records where it was sent and answers offline: nothing leaves the process
      const urls: Array<string> = []
      const offline = HttpClient.make((request) => {
        urls.push(request.url)
        return Effect.fail(
          new HttpClientError.HttpClientError({
            reason: new HttpClientError.TransportError({ request, description: "offline (test)" })
          })
        )
      })
      const layer = ToolSystem.layer({ builtins: false, tools: [generateImage], workspace: Workspace.layerFixed(ws) }).pipe(
        Layer.provide(Layer.merge(NodeServices.layer, Layer.succeed(HttpClient.HttpClient, offline)))
      )
      for (const url of [[], [["MINIMAX_API_URL", "   "]]] as const) {
        const r = yield* Effect.flatMap(ToolSystem, (tools) => tools.execute("generate_image", { prompt: "p", filepath: "d.png" })).pipe(
          Effect.provide(layer),
          Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord(Object.fromEntries([["MINIMAX_API_KEY", KEY], ...url])))
        )
        expect(r.errorCode).toBe("TOOL_ERROR")
        expect(r.error).toContain(`could not reach the MiniMax API at ${MINIMAX_DEFAULT_URL}`)
        expect(r.error).not.toContain(KEY)
      }
      expect(urls).toEqual([MINIMAX_DEFAULT_URL, MINIMAX_DEFAULT_URL])
      expect(Fs.existsSync(Path.join(ws, "d.png"))).toBe(false)
    }))

  it.live("base64 broken into lines, with spaces and tabs, decodes to the image", () =>
    Effect.gen(function*() {
      const lines = PNG.toString("base64").match(/.{1,20}/g) ?? []
      const server = yield* testServer((_, response) =>
        sendJson(response, 200, { data: { image_base64: [` ${lines.join("\r\n \t")}\n`] }, base_resp: { status_code: 0 } }))
      const r = yield* call({ prompt: "p", filepath: "wrapped.png" }, env(server.origin))
      expect(r.output).toBe("Generated a 1:1 PNG image (70 bytes) and saved it to wrapped.png")
      expect(Fs.readFileSync(Path.join(ws, "wrapped.png")).equals(PNG)).toBe(true)
    }))

  // no ConfigProvider given: the process environment, read at each call (one ToolSystem, two calls)
  it.live("without a ConfigProvider, the key and URL come from the process environment as it is at the call", () =>
    Effect.gen(function*() {
      const server = yield* testServer(minimax())
      const execute = Effect.flatMap(ToolSystem, (tools) =>
        tools.execute("generate_image", { prompt: "p", filepath: "from-env.png" }))
      yield* withEnv({ MINIMAX_API_KEY: undefined, MINIMAX_API_URL: undefined })
      const before = yield* execute
      yield* withEnv(Object.fromEntries(env(server.origin)))
      const after = yield* execute
      expect(before.output).toBe(GENERATE_IMAGE_UNAVAILABLE)
      expect(after.output).toBe("Generated a 1:1 PNG image (70 bytes) and saved it to from-env.png")
      expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`)
    }).pipe(
      Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [generateImage], workspace: Workspace.layerFixed(ws) }))
    ))

  // an in-process HttpClient: fetch and Node's client never hand a status below 200 on as the answer, an application's may
  it.effect("an answer below 200 is an error naming its status, not an image; nothing saved", () =>
    Effect.gen(function*() {
      const body = JSON.stringify({ data: { image_base64: [PNG.toString("base64")] }, base_resp: { status_code: 0 } })
      const informational = HttpClient.make((request) => {
        const web = new Response(body, { headers: { "content-type": "application/json" } })
        // the Response constructor takes 200 to 599 only
        Object.defineProperty(web, "status", { value: 101 })
        return Effect.succeed(HttpClientResponse.fromWeb(request, web))
      })
      const layer = ToolSystem.layer({ builtins: false, tools: [generateImage], workspace: Workspace.layerFixed(ws) }).pipe(
        Layer.provide(Layer.merge(NodeServices.layer, Layer.succeed(HttpClient.HttpClient, informational)))
      )
      const r = yield* Effect.flatMap(ToolSystem, (tools) => tools.execute("generate_image", { prompt: "p", filepath: "early.png" })).pipe(
        Effect.provide(layer),
        Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord({ MINIMAX_API_KEY: KEY }))
      )
      expect(r.errorCode).toBe("TOOL_ERROR")
      expect(r.error).toBe(`MiniMax image generation failed with HTTP 101: ${body}`)
      expect(Fs.existsSync(Path.join(ws, "early.png"))).toBe(false)
    }))
})
