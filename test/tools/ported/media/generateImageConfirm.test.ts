/**
 * `generate_image` in an unconfirmed call: onto an existing file it is refused before the (paid)
 * API call, with a reason naming the file, and the file is kept; onto a new file it needs no
 * confirmation; a path that cannot hold a file (under a regular file) is an error about that
 * path, found before the API call, not a question about overwriting.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { ToolSystem, Workspace } from "../../../../src/index.js"
import { generateImage } from "../../../../src/tools/ported/media/generateImage.js"
import { testServer } from "../../../helpers/httpServer.js"
import { workspaceOf } from "../../../helpers/workspaceOf.js"
import { env, minimax, PNG } from "./generateImageHarness.js"

const dirs = workspaceOf("generate-image-confirm-", () => {}, false)
let ws: string
beforeAll(() => {
  ws = dirs.ws
})

/** The tool in the workspace, called without `confirm`. */
const unconfirmed = (args: unknown, origin: string) =>
  Effect.flatMap(ToolSystem, (tools) => tools.execute("generate_image", args)).pipe(
    Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [generateImage], workspace: Workspace.layerFixed(ws) })),
    Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord(Object.fromEntries(env(origin))))
  )

// live clock: a real HTTP server on 127.0.0.1 (Node sockets, undici's own timers)
describe("generate_image, unconfirmed", () => {
  it.live("onto an existing file: CONFIRMATION_REQUIRED naming the file, before any request; the file kept", () =>
    Effect.gen(function*() {
      const server = yield* testServer(minimax())
      Fs.mkdirSync(Path.join(ws, "art"))
      Fs.writeFileSync(Path.join(ws, "art/old.png"), "old")
      const r = yield* unconfirmed({ prompt: "p", filepath: "art/old.png" }, server.origin)
      expect(r).toMatchObject({
        success: false,
        errorCode: "CONFIRMATION_REQUIRED",
        confirmed: false,
        error: "Confirmation required: would overwrite art/old.png"
      })
      expect(server.requests).toHaveLength(0)
      expect(Fs.readFileSync(Path.join(ws, "art/old.png"), "utf8")).toBe("old")
    }))

  it.live("onto a new file: generated and saved without asking", () =>
    Effect.gen(function*() {
      const server = yield* testServer(minimax())
      const r = yield* unconfirmed({ prompt: "p", filepath: "new.png" }, server.origin)
      expect(r.output).toBe("Generated a 1:1 PNG image (70 bytes) and saved it to new.png")
      expect(Fs.readFileSync(Path.join(ws, "new.png")).equals(PNG)).toBe(true)
    }))

  it.live("under a regular file: a TOOL_ERROR naming the path before any (paid) request, not a question about overwriting; the file kept", () =>
    Effect.gen(function*() {
      const server = yield* testServer(minimax())
      Fs.writeFileSync(Path.join(ws, "notes.txt"), "notes")
      const r = yield* unconfirmed({ prompt: "p", filepath: "notes.txt/cat.png" }, server.origin)
      expect(r.errorCode).toBe("TOOL_ERROR")
      expect(r.error).toBe("\"notes.txt\" is not a directory")
      expect(server.requests).toHaveLength(0)
      expect(Fs.readFileSync(Path.join(ws, "notes.txt"), "utf8")).toBe("notes")
    }))

  it.live("into directories that do not exist yet: generated, and the directories made", () =>
    Effect.gen(function*() {
      const server = yield* testServer(minimax())
      const r = yield* unconfirmed({ prompt: "p", filepath: "deep/er/cat.png" }, server.origin)
      expect(r.output).toBe("Generated a 1:1 PNG image (70 bytes) and saved it to deep/er/cat.png")
      expect(server.requests).toHaveLength(1)
      expect(Fs.readFileSync(Path.join(ws, "deep/er/cat.png")).equals(PNG)).toBe(true)
    }))
})
