/**
 * What `generateImage.test.ts` and `generateImage.slow.test.ts` share: generate_image through the
 * executor in a temp workspace, with its key and URL from a config map, and a MiniMax-like answer.
 */
import { ConfigProvider, Effect } from "effect"
import { ToolSystem, Workspace } from "../../../../src/index.js"
import { generateImage } from "../../../../src/tools/ported/media/generateImage.js"
import { type Respond, sendJson } from "../../../helpers/httpServer.js"
import { workspaceOf } from "../../../helpers/workspaceOf.js"

export const KEY = "mm-test-key-0123456789"

/** A 1x1 PNG. */
export const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64"
)

/**
 * The test file's empty workspace (`workspaceOf`: call it at the file's top level) and
 * `call(args, env, tool)`, the tool there, confirmed.
 */
export const generateImageWorkspace = () => {
  const dirs = workspaceOf("generate-image-", () => {}, false)
  const call = (args: unknown, env: ReadonlyArray<readonly [string, string]>, tool = generateImage) =>
    // confirmed: replacing a file needs confirmation (`confirmSideDoors.test.ts` covers the unconfirmed call)
    Effect.flatMap(ToolSystem, (tools) => tools.execute("generate_image", args, { confirm: true })).pipe(
      Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [tool], workspace: Workspace.layerFixed(dirs.ws) })),
      Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord(Object.fromEntries(env)))
    )
  return { dirs, call }
}

export const env = (origin: string) => [["MINIMAX_API_KEY", KEY], ["MINIMAX_API_URL", `${origin}/v1/image_generation`]] as const

/** Answers like MiniMax's image API: the image as base64, `base_resp` 0. */
export const minimax = (image: Buffer = PNG): Respond => (_, response) =>
  sendJson(response, 200, {
    id: "03ff3cd0820949eb8a410056b5f21d38",
    data: { image_base64: [image.toString("base64")] },
    metadata: { failed_count: "0", success_count: "1" },
    base_resp: { status_code: 0, status_msg: "success" }
  })
