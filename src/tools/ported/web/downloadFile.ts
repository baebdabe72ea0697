/**
 * `download_file`: GETs a URL and streams the answer into a workspace file: to a temp file in
 * the target's directory, renamed into place when complete (`shared/atomicStreamWrite.ts`).
 * A failure of any kind (an error status, a broken connection, the size cap, the timeout)
 * leaves no partial file and the target untouched. The body is saved as served after content
 * decoding (a `Content-Encoding: gzip` answer is saved inflated, as a browser saves it), and
 * counted against the cap after decoding. Through `UrlPolicy` (http(s) only, no private or
 * loopback address, redirects followed and checked). A call with a progress listener hears
 * the bytes saved so far, of the declared length when the body is plain (`reportProgress`).
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { ToolError } from "../../../domain/errors.js"
import type { Tool } from "../../../domain/Tool.js"
import { WorkspacePath } from "../../../domain/WorkspacePath.js"
import type { UrlPolicy } from "../../../services/UrlPolicy.js"
import { confirmEffect } from "../../../services/CallConfirmation.js"
import { type CallProgress, CurrentCallProgress } from "../../../services/CallProgress.js"
import { Workspace } from "../../../services/Workspace.js"
import { make } from "../../defineBuiltin.js"
import { entryExists, writeStreamConfirmed } from "../../shared/confirmedPlace.js"
import { discardBody, formatBytes } from "../../shared/httpBody.js"
import { oneLine } from "../../shared/sanitize.js"
import { finalUrl, mediaType, parseUrl, send, shownUrl, statusFailure, USER_AGENT } from "./http.js"

const TOOL = "download_file"

/** A download is at most this many bytes (after content decoding). */
export const DOWNLOAD_MAX_BYTES = 100 * 1024 * 1024

/** What `makeDownloadFile` takes. */
export interface DownloadFileOptions {
  /** The size cap. Default `DOWNLOAD_MAX_BYTES` (100 MiB). */
  readonly maxBytes?: number
  /** The run timeout. Default 120 s. */
  readonly timeout?: Duration.Input
}

/**
 * `body` counted into the call's progress as it streams: bytes saved of `total` (the declared
 * length of a plain body). The channel throttles; a chunk costs an addition and a check.
 */
const counted = <E, R>(body: Stream.Stream<Uint8Array, E, R>, channel: CallProgress, total: number | undefined) => {
  let bytes = 0
  const of = total === undefined ? "" : ` of ${formatBytes(total)}`
  return Stream.tap(body, (chunk) =>
    Effect.sync(() => {
      bytes += chunk.length
      channel.offer({ progress: bytes, total, message: `${formatBytes(bytes)}${of} downloaded` })
    }))
}

const download = (input: string, filepath: string, maxBytes: number) =>
  Effect.gen(function*() {
    const workspace = yield* Workspace
    const root = yield* workspace.root
    const url = yield* parseUrl(TOOL, input)
    const shown = yield* workspace.display(filepath)
    // an unconfirmed call onto an existing file is refused before anything is sent; the write
    // itself replaces a file (one that appeared meanwhile too) only in a confirmed call
    if (yield* Effect.orElseSucceed(entryExists(filepath), () => false)) {
      yield* confirmEffect(TOOL, `would overwrite ${shown}`)
    }
    const response = yield* send(
      TOOL,
      HttpClientRequest.get(url).pipe(HttpClientRequest.setHeaders({ "user-agent": USER_AGENT }))
    )
    if (response.status < 200 || response.status >= 300) return yield* statusFailure(TOOL, url.href, response)
    const tooLarge = `${shownUrl(url.href)} is larger than ${formatBytes(maxBytes)}, the download limit; nothing was saved`
    const declared = Number(response.headers["content-length"] ?? Number.NaN)
    // a declared length is of the encoded body: only a plain one can be judged before reading
    if (response.headers["content-encoding"] === undefined && Number.isFinite(declared) && declared > maxBytes) {
      yield* discardBody(response)
      return yield* new ToolError({ tool: TOOL, message: tooLarge })
    }
    const plain = response.headers["content-encoding"] === undefined && Number.isFinite(declared) && declared >= 0
    const channel = yield* CurrentCallProgress
    const body = channel === undefined ? response.stream : counted(response.stream, channel, plain ? declared : undefined)
    const written = yield* writeStreamConfirmed(TOOL, root, filepath, shown, body, maxBytes).pipe(
      Effect.catchTags({
        StreamTooLarge: () => new ToolError({ tool: TOOL, message: tooLarge }),
        HttpClientError: (error) => {
          const cause = error.reason.cause
          const why = cause instanceof Error ? oneLine(cause.message, 300) : error.message
          return new ToolError({
            tool: TOOL,
            message: `the download of ${shownUrl(url.href)} broke off: ${why}; nothing was saved`
          })
        },
        SafeFsError: (error) => new ToolError({ tool: TOOL, message: error.message, cause: error })
      })
    )
    const from = Option.match(finalUrl(response, url), { onNone: () => "", onSome: (u) => ` (redirected to ${shownUrl(u)})` })
    const type = mediaType(response.headers["content-type"])
    return `Downloaded ${formatBytes(written.bytes)}${type === "" ? "" : ` of ${type}`} from ${shownUrl(url.href)}${from} ` +
      `to ${shown}${written.replaced ? " (overwrote an existing file)" : ""}`
  })

/** Builds the `download_file` tool (tests use a small cap and a short timeout). */
export const makeDownloadFile = (options: DownloadFileOptions = {}): Tool<UrlPolicy | Workspace> => {
  const maxBytes = options.maxBytes ?? DOWNLOAD_MAX_BYTES
  return make(TOOL, {
    description: "Download a URL (HTTP GET) into a file in the workspace, creating parent directories; replacing " +
      "an existing file needs confirmation (the call answers CONFIRMATION_REQUIRED unless made with confirm: true). " +
      `At most ${formatBytes(maxBytes)}. A failed download leaves no partial file. Only ` +
      "public http(s) URLs: private, loopback and cloud metadata addresses are refused.",
    parameters: Schema.Struct({
      url: Schema.String.check(Schema.isMinLength(1)).annotate({
        description: "The absolute http or https URL to download, like https://example.com/data.csv"
      }),
      filepath: WorkspacePath.annotate({ description: "Where to save it, relative to the workspace root" })
    }),
    asksConfirmation: "when it would overwrite an existing file",
    tags: ["web", "ported"],
    timeout: options.timeout ?? "120 seconds",
    handler: ({ filepath, url }) => download(url, filepath, maxBytes)
  })
}

/** `download_file`: 100 MiB, 120 s timeout; needs `UrlPolicy` and `Workspace`. */
export const downloadFile: Tool<UrlPolicy | Workspace> = makeDownloadFile()
