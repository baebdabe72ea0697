/**
 * What the web tools share: URLs parsed and checked, requests sent through `UrlPolicy`'s
 * client with failures turned into `ToolError`s a model can act on, answers decoded as text.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as HttpClientError from "effect/http/HttpClientError"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Option from "effect/Option"
import { isBinaryFileSync } from "isbinaryfile"
import { ToolError } from "../../../domain/errors.js"
import { TooManyRedirects, UrlPolicy, UrlRefused } from "../../../services/UrlPolicy.js"
import { readTextPrefix } from "../../shared/httpBody.js"
import { oneLine } from "../../shared/sanitize.js"

/** A URL is shown in messages cut at this many characters. */
export const URL_SHOWN_MAX_CHARS = 300

/** Of an error answer, this many bytes are read for the excerpt in the message. */
export const ERROR_BODY_MAX_BYTES = 16 * 1024

/** The excerpt of an error answer is cut at this many characters. */
export const ERROR_EXCERPT_CHARS = 200

/** The `User-Agent` the web tools send. */
export const USER_AGENT = "effect-tool-system"

/** `url` as one line, cut: for messages and output. */
export const shownUrl = (url: string): string => oneLine(url, URL_SHOWN_MAX_CHARS)

/** Parses `input` as an absolute http(s) URL, refused by the policy before anything is sent when it can tell. */
export const parseUrl = (tool: string, input: string): Effect.Effect<URL, ToolError, UrlPolicy> =>
  Effect.gen(function*() {
    let url: URL
    try {
      url = new URL(input.trim())
    } catch {
      return yield* new ToolError({
        tool,
        message: `"${shownUrl(input)}" is not a valid absolute URL (like https://example.com/page)`
      })
    }
    const policy = yield* UrlPolicy
    const refusal = policy.check(url)
    if (Option.isSome(refusal)) return yield* refused(tool, url.href, refusal.value)
    return url
  })

const refused = (tool: string, url: string, refusal: UrlRefused, from?: string) =>
  new ToolError({
    tool,
    message: `refused ${shownUrl(url)}` +
      `${from === undefined || from === url ? "" : ` (redirected from ${shownUrl(from)})`}: ${refusal.message}`,
    details: { reason: refusal.reason }
  })

/** The innermost message of an error's chain of causes (fetch says "fetch failed"; its cause says why). */
const rootMessage = (error: unknown): string => {
  let message = error instanceof Error ? error.message : String(error)
  let current: unknown = error
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null && "cause" in current; depth++) {
    current = current.cause
    if (current instanceof Error && current.message !== "") message = current.message
  }
  return message
}

/** An `HttpClientError` of the policy's client as the message a model reads. */
export const requestFailure = (tool: string, url: string, error: HttpClientError.HttpClientError): ToolError => {
  const cause = error.reason.cause
  if (cause instanceof UrlRefused) {
    const hop = Option.match(HttpClientRequest.toUrl(error.request), { onNone: () => error.request.url, onSome: (u) => u.href })
    return refused(tool, hop, cause, url)
  }
  if (cause instanceof TooManyRedirects) {
    return new ToolError({ tool, message: `${shownUrl(url)}: ${cause.message}` })
  }
  const why = oneLine(rootMessage(cause ?? error), 300)
  return new ToolError({ tool, message: `could not fetch ${shownUrl(url)}: ${why === "" ? error.message : why}` })
}

/** Sends `request` through the policy's client (redirects followed, each checked). */
export const send = (
  tool: string,
  request: HttpClientRequest.HttpClientRequest
): Effect.Effect<HttpClientResponse.HttpClientResponse, ToolError, UrlPolicy> =>
  Effect.flatMap(UrlPolicy, (policy) =>
    policy.client.execute(request).pipe(Effect.mapError((error) => requestFailure(tool, request.url, error))))

/** `200 OK`, `404 Not Found`. */
export const statusLine = (status: number): string => {
  // node:http is loaded here, on the first answer, not at start-up (~3 ms of the command line's)
  const text = process.getBuiltinModule("node:http").STATUS_CODES[status]
  return text === undefined ? `${status}` : `${status} ${text}`
}

/** Whether the answer went through redirects: the URL it finally came from, if it differs. */
export const finalUrl = (response: HttpClientResponse.HttpClientResponse, asked: URL): Option.Option<string> =>
  Option.filter(Option.map(HttpClientRequest.toUrl(response.request), (url) => url.href), (href) => href !== asked.href)

/** The failure for an answer that is not 2xx, with an excerpt of its body (read up to 16 KiB). */
export const statusFailure = (
  tool: string,
  url: string,
  response: HttpClientResponse.HttpClientResponse
): Effect.Effect<never, ToolError> =>
  readTextPrefix(response, ERROR_BODY_MAX_BYTES).pipe(
    Effect.map(({ complete, text }) => oneLine(text, ERROR_EXCERPT_CHARS, { truncated: !complete })),
    Effect.orElseSucceed(() => ""),
    Effect.flatMap((excerpt) =>
      new ToolError({
        tool,
        message: `${shownUrl(url)} answered HTTP ${statusLine(response.status)}${excerpt === "" ? "" : `: ${excerpt}`}`,
        details: { status: response.status }
      })
    )
  )

/** The media type of a `Content-Type` value, lower case, without parameters (`""` when absent). */
export const mediaType = (contentType: string | undefined): string =>
  (contentType ?? "").replace(/;.*/, "").trim().toLowerCase()

const TEXT_TYPES = new RegExp(
  "^(text/.*|application/([\\w.-]+\\+)?(json|xml)|" +
    "application/(javascript|ecmascript|x-javascript|x-www-form-urlencoded|x-sh|x-yaml|yaml|toml|graphql|sql|csv))$"
)

/** Whether a media type is text; `""` (no type) is decided from the bytes. */
export const isTextType = (type: string): boolean => TEXT_TYPES.test(type)

/** Whether `type` is HTML. */
export const isHtmlType = (type: string): boolean => type === "text/html" || type === "application/xhtml+xml"

/** Whether bytes of an unknown type look binary (NUL bytes, control characters; `isbinaryfile`). */
export const looksBinary = (bytes: Uint8Array): boolean =>
  // (no bytes: not binary, as isbinaryfile says)
  isBinaryFileSync(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), bytes.length)

/** The `charset` parameter of a `Content-Type` value, or one declared in the first KiB of an HTML page. */
const charsetOf = (contentType: string | undefined, bytes: Uint8Array, html: boolean): string | undefined => {
  const declared = /;\s*charset\s*=\s*"?([\w.:-]+)"?/i.exec(contentType ?? "")?.[1]
  if (declared !== undefined || !html) return declared
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).toString("latin1")
  return /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1]
}

/** Decodes `bytes` with the declared charset (UTF-8 when none or unknown); invalid bytes become U+FFFD. */
export const decodeText = (bytes: Uint8Array, contentType: string | undefined, html = false): string => {
  const charset = charsetOf(contentType, bytes, html)
  try {
    // (no label: UTF-8)
    return new TextDecoder(charset).decode(bytes)
  } catch {
    // an unknown charset label
    return new TextDecoder("utf-8").decode(bytes)
  }
}
