/**
 * `generate_image` never shows its key in any form a service may echo it in: base64 (standard
 * and URL-safe, padded or not), hex, upper or lower case, URL-encoded; in an error answer's
 * excerpt and in MiniMax's own `status_msg`.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import * as Fs from "node:fs"
import { ToolSystem, Workspace } from "../../../../src/index.js"
import { generateImage } from "../../../../src/tools/ported/media/generateImage.js"
import { sendJson, sendText, testServer } from "../../../helpers/httpServer.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"

/** Its base64 has `+`, `/` and padding, so each base64 form differs. */
const KEY = "mm>>key??~~0123456789a"

const base64 = Buffer.from(KEY).toString("base64")
const FORMS: Readonly<Record<string, string>> = {
  base64,
  base64NoPad: base64.replace(/=+$/, ""),
  base64Url: base64.replace(/\+/g, "-").replace(/\//g, "_"),
  base64UrlNoPad: base64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""),
  hex: Buffer.from(KEY).toString("hex"),
  hexUpper: Buffer.from(KEY).toString("hex").toUpperCase(),
  upper: KEY.toUpperCase(),
  lower: KEY.toLowerCase(),
  urlEncoded: encodeURIComponent(KEY),
  urlEncodedLower: encodeURIComponent(KEY).toLowerCase()
}

const call = (origin: string) =>
  Effect.gen(function*() {
    const ws = makeTempDirSync("generate-image-redact-")
    yield* Effect.addFinalizer(() => Effect.sync(() => Fs.rmSync(ws, { recursive: true, force: true })))
    return yield* Effect.flatMap(ToolSystem, (tools) =>
      tools.execute("generate_image", { prompt: "a cat", filepath: "cat.png" })).pipe(
        Effect.provide(
          ToolSystem.layerNode({ builtins: false, tools: [generateImage], workspace: Workspace.layerFixed(ws) })
        ),
        Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord(Object.fromEntries([["MINIMAX_API_KEY", KEY], ["MINIMAX_API_URL", origin]])))
      )
  })

/** Fails naming the form when `text` holds the key in any of its forms (whatever the case). */
const expectNoKey = (text: string, form: string) => {
  for (const [name, value] of Object.entries(FORMS)) {
    expect(text.toLowerCase().includes(value.toLowerCase()), `${form}: ${name} in ${text}`).toBe(false)
  }
}

// live clock: a real HTTP server on 127.0.0.1 (Node sockets, undici's own timers)
describe("generate_image redacts its key in every form", () => {
  it.live("from an error answer's excerpt", () =>
    Effect.gen(function*() {
      for (const [name, form] of Object.entries(FORMS)) {
        const server = yield* testServer((_, response) => sendText(response, 500, `bad key ${form} (echoed)`))
        const result = yield* call(server.origin)
        expect(result.success).toBe(false)
        expect(result.error).toContain("HTTP 500")
        expectNoKey(result.error ?? "", name)
      }
    }))

  it.live("from MiniMax's status_msg", () =>
    Effect.gen(function*() {
      for (const [name, form] of Object.entries(FORMS)) {
        const server = yield* testServer((_, response) =>
          sendJson(response, 200, { data: null, base_resp: { status_code: 1004, status_msg: `key=${form}` } })
        )
        const result = yield* call(server.origin)
        expect(result.error).toContain("status 1004")
        expectNoKey(result.error ?? "", name)
      }
    }))
})
