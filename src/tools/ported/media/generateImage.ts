/**
 * `generate_image`: a picture from a prompt through the MiniMax image API
 * (`POST /v1/image_generation`, model `image-01`, bearer key, base64 answer), saved into the
 * workspace atomically. `MINIMAX_API_KEY` and `MINIMAX_API_URL` are read through `Config` at
 * each call; without a key the tool answers that it is unavailable instead of failing. The
 * handler needs `HttpClient.HttpClient` (the endpoint is configuration, not a model's choice,
 * so it does not go through `UrlPolicy`, as `web_search` does not) and `Workspace`.
 *
 * The service is not trusted: its answer is read up to `GENERATE_IMAGE_BODY_MAX_BYTES` after
 * decompression, its JSON may nest 32 deep at most, the payload must be base64 of a PNG,
 * JPEG, WebP or GIF image, and the key is redacted from every message.
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { ToolError } from "../../../domain/errors.js"
import type { Tool } from "../../../domain/Tool.js"
import { WorkspacePath } from "../../../domain/WorkspacePath.js"
import { confirmEffect } from "../../../services/CallConfirmation.js"
import { Workspace } from "../../../services/Workspace.js"
import { make } from "../../defineBuiltin.js"
import { entryExists, placeBytesConfirmed } from "../../shared/confirmedPlace.js"
import { parseJsonBounded } from "../../shared/boundedJson.js"
import { discardBody, formatBytes, readTextCapped, readTextPrefix } from "../../shared/httpBody.js"
import { type Redactor, redactor } from "../../shared/redact.js"
import { oneLine } from "../../shared/sanitize.js"
import { fileFailure } from "../reading/common.js"
import { imageTypeOf } from "./imageType.js"

const TOOL = "generate_image"

/** The MiniMax endpoint used when `MINIMAX_API_URL` is not set. */
export const MINIMAX_DEFAULT_URL = "https://api.minimax.io/v1/image_generation"

/** The model asked for. */
export const MINIMAX_IMAGE_MODEL = "image-01"

/** The answer is read up to this many bytes (base64 of one image; after decompression). */
export const GENERATE_IMAGE_BODY_MAX_BYTES = 32 * 1024 * 1024

/** Of an error answer, only this many bytes are read, for the excerpt in the message. */
const ERROR_BODY_MAX_BYTES = 16 * 1024

/** What the tool answers (successfully) when no API key is configured. */
export const GENERATE_IMAGE_UNAVAILABLE = "generate_image is unavailable: MINIMAX_API_KEY is not set"

/** The aspect ratios MiniMax's `image-01` takes. */
export const ASPECT_RATIOS = ["1:1", "16:9", "4:3", "3:2", "2:3", "3:4", "9:16", "21:9"] as const

/** The part of MiniMax's answer the tool reads. */
export const MiniMaxImageResponse = Schema.Struct({
  data: Schema.optional(
    Schema.NullOr(Schema.Struct({ image_base64: Schema.optional(Schema.NullOr(Schema.Array(Schema.String))) }))
  ),
  base_resp: Schema.optional(Schema.Struct({ status_code: Schema.Number, status_msg: Schema.optional(Schema.String) }))
})

/** What some of MiniMax's `base_resp.status_code`s mean. */
const STATUS_MEANINGS: Readonly<Record<number, string>> = {
  1002: "rate limited; try again later",
  1004: "the API key was rejected",
  1008: "the account's balance is insufficient",
  1026: "the prompt was flagged as sensitive content; rephrase it",
  1027: "the generated image was flagged as sensitive content; rephrase the prompt",
  2013: "invalid parameters"
}

const settingsConfig = Config.all({
  key: Config.option(Config.Redacted("MINIMAX_API_KEY")),
  url: Config.option(Config.String("MINIMAX_API_URL"))
})

/**
 * The settings read at each call: through the `ConfigProvider` the application provided, else
 * from the process environment as it is at the call (Effect 4's default provider reads the
 * environment once, at its first lookup, and keeps that snapshot).
 */
const settings = Effect.flatMap(Effect.context<never>(), (context) =>
  settingsConfig.parse(
    Context.getOrUndefined(context, ConfigProvider.ConfigProvider) ??
      ConfigProvider.fromEnvRecord({ ...process.env })
  ))

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

const generate = (prompt: string, filepath: string, aspectRatio: string) =>
  Effect.gen(function*() {
    const { key, url } = yield* settings
    const apiKey = Option.filter(key, (k) => Redacted.value(k).trim() !== "")
    if (Option.isNone(apiKey)) return GENERATE_IMAGE_UNAVAILABLE
    const endpoint = Option.getOrElse(Option.filter(url, (u) => u.trim() !== ""), () => MINIMAX_DEFAULT_URL)
    const redact: Redactor = redactor([apiKey.value])
    const fail = (message: string) => new ToolError({ tool: TOOL, message: redact(message) })
    // an unconfirmed call onto an existing file is refused before the (paid) generation, and so
    // is a place no file can be put (under a regular file, in a directory that cannot be read):
    // the image could not be saved there either
    if (yield* Effect.mapError(entryExists(filepath), fileFailure(TOOL))) {
      const shown = yield* Effect.flatMap(Workspace, (workspace) => workspace.display(filepath))
      yield* confirmEffect(TOOL, `would overwrite ${shown}`)
    }

    const client = yield* HttpClient.HttpClient
    const request = HttpClientRequest.post(endpoint).pipe(
      HttpClientRequest.bearerToken(apiKey.value),
      HttpClientRequest.acceptJson,
      HttpClientRequest.bodyJsonUnsafe({
        model: MINIMAX_IMAGE_MODEL,
        prompt,
        aspect_ratio: aspectRatio,
        response_format: "base64",
        n: 1
      })
    )
    // not the `HttpClientError` as the cause: it holds the request and its headers
    const response = yield* client.execute(request).pipe(
      Effect.mapError((error) => fail(`could not reach the MiniMax API at ${endpoint}: ${error.message}`))
    )
    const status = response.status
    if (status === 401 || status === 403) {
      yield* discardBody(response)
      return yield* fail(`MiniMax rejected the API key (HTTP ${status})`)
    }
    if (status < 200 || status >= 300) {
      const excerpt = yield* readTextPrefix(response, ERROR_BODY_MAX_BYTES).pipe(
        Effect.map(({ complete, text }) => oneLine(text, 200, { redact, truncated: !complete })),
        Effect.orElseSucceed(() => "")
      )
      return yield* fail(`MiniMax image generation failed with HTTP ${status}${excerpt === "" ? "" : `: ${excerpt}`}`)
    }
    const text = yield* readTextCapped(response, GENERATE_IMAGE_BODY_MAX_BYTES).pipe(
      Effect.mapError((error) =>
        error._tag === "BodyTooLarge"
          ? fail(`MiniMax's answer (HTTP ${status}) is too large: more than ${formatBytes(error.maxBytes)}`)
          : fail(`could not read MiniMax's answer (HTTP ${status}): ${error.message}`)
      )
    )
    const json = yield* Effect.fromResult(Result.mapError(parseJsonBounded(text, 32), () =>
      fail(`MiniMax answered HTTP ${status} with a body that is not JSON (or nested too deep)`)))
    const answer = yield* Schema.decodeUnknownEffect(MiniMaxImageResponse)(json).pipe(
      Effect.mapError(() => fail(`MiniMax answered HTTP ${status} with an unexpected shape`))
    )
    const code = answer.base_resp?.status_code ?? 0
    if (code !== 0) {
      const said = oneLine(answer.base_resp?.status_msg ?? "", 200, { redact })
      const meaning = STATUS_MEANINGS[code]
      return yield* fail(
        `MiniMax refused the request (status ${code}${said === "" ? "" : `: ${said}`})${meaning === undefined ? "" : `: ${meaning}`}`
      )
    }
    const payload = answer.data?.image_base64?.[0]?.replace(/\s/g, "")
    if (payload === undefined || payload === "") return yield* fail("MiniMax answered without an image")
    if (payload.length % 4 !== 0 || !BASE64.test(payload)) return yield* fail("MiniMax's image is not valid base64")
    const bytes = Buffer.from(payload, "base64")
    const type = imageTypeOf(bytes)
    if (Option.isNone(type)) return yield* fail("MiniMax's answer is not a PNG, JPEG, WebP or GIF image")

    const workspace = yield* Workspace
    const root = yield* workspace.root
    const shown = yield* workspace.display(filepath)
    // an existing file is replaced only in a confirmed call, asked as the image is put in place
    const written = yield* Effect.mapError(placeBytesConfirmed(TOOL, root, filepath, shown, bytes), (error) =>
      error._tag === "SafeFsError" ? fileFailure(TOOL)(error) : error)
    const named = type.value.extensions.some((ext) => filepath.toLowerCase().endsWith(ext))
    return `Generated a ${aspectRatio} ${type.value.name} image (${formatBytes(written.bytes)}) and saved it to ${shown}` +
      (written.replaced ? " (overwrote an existing file)" : "") +
      (named ? "" : ` (note: the file holds ${type.value.name} data)`)
  })

/** What `makeGenerateImage` takes. */
export interface GenerateImageOptions {
  /** The run timeout. Default 120 s (generation takes tens of seconds). */
  readonly timeout?: Duration.Input
}

/** Builds the `generate_image` tool (tests use a short timeout). */
export const makeGenerateImage = (options: GenerateImageOptions = {}): Tool<HttpClient.HttpClient | Workspace> =>
  make(TOOL, {
    description: "Generate an image from a text prompt (MiniMax image-01) and save it into the workspace " +
      "(usually JPEG data: name the file .jpg). Replacing an existing file needs confirmation: the call answers " +
      "CONFIRMATION_REQUIRED unless made with confirm: true.",
    asksConfirmation: "when it would overwrite an existing file",
    parameters: Schema.Struct({
      prompt: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(1500)).annotate({
        description: "What the image should show, in up to 1500 characters"
      }),
      filepath: WorkspacePath.annotate({
        description: "Where to save the image, relative to the workspace root, like images/cat.jpg"
      }),
      aspect_ratio: Schema.Literals(ASPECT_RATIOS).annotate({ description: "The image's width:height" }).pipe(
        Schema.withDecodingDefaultType(Effect.succeed("1:1" as const))
      )
    }),
    tags: ["media", "ported"],
    timeout: options.timeout ?? "120 seconds",
    handler: ({ aspect_ratio, filepath, prompt }) => generate(prompt, filepath, aspect_ratio)
  })

/** `generate_image`: 120 s timeout; needs `HttpClient.HttpClient` and `Workspace`. */
export const generateImage: Tool<HttpClient.HttpClient | Workspace> = makeGenerateImage()
