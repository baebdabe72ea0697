/**
 * `fetch_url`: GETs a page and answers it as readable text: HTML through `html-to-text` (in a
 * worker with a deadline, see `htmlToText.ts`), other text as it is; binary answers are
 * refused (`download_file` saves them). Through `UrlPolicy`: http(s) only, no private or
 * loopback address, redirects followed (at most 5), each checked.
 *
 * Caps: the body is read up to `FETCH_URL_BODY_MAX_BYTES` after decompression (a longer page
 * is converted from that prefix and says so), the text is cut at `max_chars` (at most
 * `FETCH_URL_MAX_CHARS`) and says how to get more, and the whole call has a 30 s timeout.
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { ToolError } from "../../../domain/errors.js"
import type { Tool } from "../../../domain/Tool.js"
import type { UrlPolicy } from "../../../services/UrlPolicy.js"
import { make } from "../../defineBuiltin.js"
import { headOf } from "../../shared/outputCap.js"
import { discardBody, formatBytes, readBodyPrefix } from "../../shared/httpBody.js"
import { stripControls } from "../../shared/sanitize.js"
import { HTML_TO_TEXT_DEADLINE, htmlToText } from "./htmlToText.js"
import {
  decodeText,
  finalUrl,
  isHtmlType,
  isTextType,
  looksBinary,
  mediaType,
  parseUrl,
  send,
  shownUrl,
  statusFailure,
  USER_AGENT
} from "./http.js"

const TOOL = "fetch_url"

/** The page is read up to this many bytes (after decompression). */
export const FETCH_URL_BODY_MAX_BYTES = 2 * 1024 * 1024

/** `max_chars` is capped at this. */
export const FETCH_URL_MAX_CHARS = 200_000

/** The default `max_chars`. */
export const FETCH_URL_DEFAULT_CHARS = 20_000

const ACCEPT = "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,text/*;q=0.8,*/*;q=0.5"

/** Runs of blank lines become one blank line; trailing spaces go. */
const tidy = (text: string): string =>
  text.replace(/[ \t]+\n/g, "\n").replace(/\n{3,}/g, "\n\n").trim()

const fetchText = (input: string, maxChars: number, htmlDeadline: Duration.Input) =>
  Effect.gen(function*() {
    const url = yield* parseUrl(TOOL, input)
    const request = HttpClientRequest.get(url).pipe(
      HttpClientRequest.setHeaders({ accept: ACCEPT, "user-agent": USER_AGENT })
    )
    const response = yield* send(TOOL, request)
    if (response.status < 200 || response.status >= 300) return yield* statusFailure(TOOL, url.href, response)
    const contentType = response.headers["content-type"]
    const type = mediaType(contentType)
    if (type !== "" && !isTextType(type)) {
      yield* discardBody(response)
      return yield* new ToolError({
        tool: TOOL,
        message: `${shownUrl(url.href)} is ${type}, not text or HTML: use download_file to save it`
      })
    }
    const { bytes, complete } = yield* readBodyPrefix(response, FETCH_URL_BODY_MAX_BYTES).pipe(
      Effect.mapError((error) =>
        new ToolError({ tool: TOOL, message: `could not read ${shownUrl(url.href)}: ${error.message}` })
      )
    )
    if (type === "" && looksBinary(bytes.subarray(0, 8192))) {
      return yield* new ToolError({
        tool: TOOL,
        message: `${shownUrl(url.href)} answered binary data: use download_file to save it`
      })
    }
    const from = Option.getOrElse(finalUrl(response, url), () => url.href)
    const html = isHtmlType(type) ||
      (type === "" && /^\s*<(!doctype html|html)/i.test(decodeText(bytes.subarray(0, 512), undefined)))
    const decoded = decodeText(bytes, contentType, html)
    const text = html
      ? yield* htmlToText(decoded, from, htmlDeadline).pipe(
        Effect.mapError((error) => new ToolError({ tool: TOOL, message: `${shownUrl(from)}: ${error.message}` }))
      )
      : decoded
    const clean = tidy(stripControls(text, { window: text.length }))
    const shown = headOf(clean, maxChars)
    const notes = [
      ...(complete ? [] : [`only the first ${formatBytes(FETCH_URL_BODY_MAX_BYTES)} of the page were read`]),
      ...(shown.length < clean.length
        ? [
          `cut at ${shown.length} of ${clean.length} characters` +
          (maxChars < FETCH_URL_MAX_CHARS
            ? `; call fetch_url again with a larger max_chars (up to ${FETCH_URL_MAX_CHARS}) to read more`
            : "")
        ]
        : [])
    ]
    const redirect = from === url.href ? "" : ` (redirected from ${shownUrl(url.href)})`
    const header = `${shownUrl(from)}${redirect} — HTTP ${response.status}, ${type === "" ? "no content type" : type}`
    const body = shown === "" ? "(no text)" : shown
    return `${header}\n\n${body}${notes.length === 0 ? "" : `\n\n[${notes.join("; ")}]`}`
  })

/** What `makeFetchUrl` takes. */
export interface FetchUrlOptions {
  /** The run timeout. Default 30 s. */
  readonly timeout?: Duration.Input
  /** How long turning HTML into text may take. Default `HTML_TO_TEXT_DEADLINE` (10 s). */
  readonly htmlDeadline?: Duration.Input
}

/** Builds the `fetch_url` tool (tests use a short timeout). */
export const makeFetchUrl = (options: FetchUrlOptions = {}): Tool<UrlPolicy> =>
  make(TOOL, {
    description: "Fetch a web page (HTTP GET) and return it as readable text: HTML is converted to text with " +
      "links as `text [URL]`; JSON and other text come back as they are; binary files are refused (use " +
      "download_file). Only public http(s) URLs: private, loopback and cloud metadata addresses are refused. " +
      `The text is cut at max_chars (default ${FETCH_URL_DEFAULT_CHARS}, at most ${FETCH_URL_MAX_CHARS}).`,
    parameters: Schema.Struct({
      url: Schema.String.check(Schema.isMinLength(1)).annotate({
        description: "The absolute http or https URL of the page, like https://example.com/docs"
      }),
      max_chars: Schema.Int.check(Schema.isGreaterThan(0)).annotate({
        description: `How many characters of text to return at most (larger values are capped at ${FETCH_URL_MAX_CHARS})`
      }).pipe(Schema.withDecodingDefaultType(Effect.succeed(FETCH_URL_DEFAULT_CHARS)))
    }),
    readOnly: true,
    tags: ["web", "ported"],
    timeout: options.timeout ?? "30 seconds",
    handler: ({ max_chars, url }) =>
      fetchText(url, Math.min(max_chars, FETCH_URL_MAX_CHARS), options.htmlDeadline ?? HTML_TO_TEXT_DEADLINE)
  })

/** `fetch_url`: 30 s timeout; needs `UrlPolicy`. */
export const fetchUrl: Tool<UrlPolicy> = makeFetchUrl()
