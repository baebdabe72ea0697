/**
 * Confirmation asked at the moment of the effect (issue 47, item 5) through the existing
 * flows: `download_file` and `generate_image` onto an existing file unconfirmed are refused
 * (`CONFIRMATION_REQUIRED`, nothing sent, the file intact; a file appearing during the download
 * is not clobbered); `ConfirmationGate.layerAutoConfirm` confirms these effects too; a
 * `ToolCallHandler` with an approving `ConfirmationHandler` retries and the call succeeds.
 *
 * On Effect 4: the tests on a real server run under `it.live` (Effect 3's `it.scopedLive`;
 * the test's scope is there), and the config is given as a `ConfigProvider` service.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { ConfirmationGate, ToolSystem, Workspace } from "../../src/index.js"
import { ConfirmationHandler } from "../../src/services/ConfirmationHandler.js"
import { ToolCallHandler } from "../../src/services/ToolCallHandler.js"
import { editingTools } from "../../src/tools/ported/editing/index.js"
import { generateImage } from "../../src/tools/ported/media/generateImage.js"
import { downloadFile } from "../../src/tools/ported/web/downloadFile.js"
import { sendJson, sendText, testServer } from "../helpers/httpServer.js"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { callTool } from "../tools/ported/web/support.js"

const ws = makeTempDirSync("confirm-at-effect-")
afterAll(() => Fs.rmSync(ws, { recursive: true, force: true }))
const at = (rel: string) => Path.join(ws, rel)

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64"
)

describe("confirmation at the moment of the effect", () => {
  // live clock: a real HTTP server on 127.0.0.1 (Node sockets), there to show it gets no request
  it.live("download_file onto an existing file, unconfirmed: refused before any request, the file intact", () =>
    Effect.gen(function*() {
      const server = yield* testServer((_, response) => sendText(response, 200, "new"))
      Fs.writeFileSync(at("d.txt"), "old")
      const r = yield* callTool({ dir: ws, tools: [downloadFile] }, "download_file", { url: server.origin, filepath: "d.txt" })
      expect(r).toMatchObject({ success: false, errorCode: "CONFIRMATION_REQUIRED", confirmed: false, error: "Confirmation required: would overwrite d.txt" })
      expect(server.requests).toHaveLength(0)
      expect(Fs.readFileSync(at("d.txt"), "utf8")).toBe("old")
    }))

  // live clock: a real download from a real HTTP server on 127.0.0.1 (Node sockets and streams)
  it.live("download_file: a file that appears during the download is not clobbered unconfirmed", () =>
    Effect.gen(function*() {
      const server = yield* testServer((_, response) => {
        Fs.writeFileSync(at("race.txt"), "theirs")
        sendText(response, 200, "mine")
      })
      const r = yield* callTool({ dir: ws, tools: [downloadFile] }, "download_file", { url: server.origin, filepath: "race.txt" })
      expect(r).toMatchObject({ success: false, errorCode: "CONFIRMATION_REQUIRED", confirmed: false })
      expect(Fs.readFileSync(at("race.txt"), "utf8")).toBe("theirs")
      expect(Fs.readdirSync(ws).filter((name) => name.endsWith(".tmp"))).toEqual([])
    }))

  // live clock: a real HTTP server on 127.0.0.1 (Node sockets), there to show it gets no request
  it.live("generate_image onto an existing file, unconfirmed: refused before the API call, the file intact", () =>
    Effect.gen(function*() {
      const server = yield* testServer((_, response) =>
        sendJson(response, 200, { data: { image_base64: [PNG.toString("base64")] }, base_resp: { status_code: 0 } }))
      Fs.writeFileSync(at("img.png"), "old")
      const r = yield* Effect.flatMap(ToolSystem, (tools) => tools.execute("generate_image", { prompt: "p", filepath: "img.png" })).pipe(
        Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [generateImage], workspace: Workspace.layerFixed(ws) })),
        Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord({ MINIMAX_API_KEY: "k-0123456789", MINIMAX_API_URL: server.origin }))
      )
      expect(r).toMatchObject({ success: false, errorCode: "CONFIRMATION_REQUIRED", confirmed: false })
      expect(server.requests).toHaveLength(0)
      expect(Fs.readFileSync(at("img.png"), "utf8")).toBe("old")
    }))

  const editing = (confirmation?: Layer.Layer<ConfirmationGate>) =>
    ToolSystem.layerNode({
      builtins: false,
      tools: editingTools,
      workspace: Workspace.layerFixed(ws),
      ...(confirmation === undefined ? {} : { confirmation })
    })

  it.effect("ConfirmationGate.layerAutoConfirm confirms the effect too", () =>
    Effect.gen(function*() {
      const r = yield* Effect.flatMap(ToolSystem, (tools) => tools.execute("append_to_file", { filepath: "auto.txt", content: "a" }))
      expect(r.success).toBe(true)
      expect(Fs.readFileSync(at("auto.txt"), "utf8")).toBe("a")
    }).pipe(Effect.provide(editing(ConfirmationGate.layerAutoConfirm))))

  it.effect("ToolCallHandler with an approving ConfirmationHandler: refused, approved, retried, done", () =>
    Effect.gen(function*() {
      const session = yield* Effect.flatMap(ToolCallHandler, (handler) => handler.session())
      const [m] = yield* session.handleOpenAI([{
        id: "c1",
        type: "function",
        function: { name: "append_to_file", arguments: JSON.stringify({ filepath: "approved.txt", content: "yes" }) }
      }])
      expect(m?.content).toBe("Created approved.txt with 3 bytes")
      expect(Fs.readFileSync(at("approved.txt"), "utf8")).toBe("yes")
    }).pipe(
      Effect.provide(ToolCallHandler.layer.pipe(Layer.provide(ConfirmationHandler.layerAutoApprove), Layer.provideMerge(editing())))
    ))
})

describe("explain", () => {
  it.effect("says when a tool asks for confirmation as it acts", () =>
    Effect.gen(function*() {
      const explained = yield* Effect.flatMap(ToolSystem, (tools) => tools.explain("append_to_file", { filepath: "e.txt", content: "x" }))
      expect(explained.gates.find((g) => g.gate === "confirmation")).toEqual({
        gate: "confirmation",
        outcome: "pass",
        reason: "the tool asks for confirmation as it acts, when the file is missing and would be created; " +
          "then this unconfirmed call ends CONFIRMATION_REQUIRED"
      })
    }).pipe(Effect.provide(ToolSystem.layerNode({ builtins: false, tools: editingTools, workspace: Workspace.layerFixed(ws) }))))
})
