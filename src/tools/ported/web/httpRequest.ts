/**
 * `http_request`: every method, headers and a text body; answers the status, the headers and the
 * body (text, cut; binary bodies are described, not shown). Any status is an answer, not a
 * failure. Through `UrlPolicy` (http(s) only, no private or loopback address, redirects
 * followed and checked, credentials dropped when a redirect changes origin). Needs
 * confirmation: it can change things on a server.
 *
 * Header names must be tokens and values cannot hold CR, LF or NUL (no header injection);
 * the framing headers (`Host`, `Content-Length`, `Transfer-Encoding`, `Connection`, ...) are
 * the client's and cannot be given.
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
import { formatBytes, HTTP_BODY_MAX_BYTES, readBodyPrefix } from "../../shared/httpBody.js"
import { oneLine, stripControls } from "../../shared/sanitize.js"
import {
  decodeText,
  finalUrl,
  isTextType,
  looksBinary,
  mediaType,
  parseUrl,
  send,
  shownUrl,
  statusLine,
  USER_AGENT
} from "./http.js"

const TOOL = "http_request"

/** The body shown is cut at this many characters. */
export const HTTP_REQUEST_MAX_CHARS = 20_000

/** At most this many response headers are shown. */
export const HTTP_REQUEST_MAX_HEADERS = 50

/** A response header's value is cut at this many characters. */
const HEADER_VALUE_MAX_CHARS = 500

/** Headers the client sets itself (framing, connection management): refused as arguments. */
export const CLIENT_HEADERS: ReadonlySet<string> = new Set([
  "host",
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "upgrade",
  "te",
  "trailer",
  "expect",
  "proxy-connection"
])

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const

const Header = Schema.Struct({
  name: Schema.String.check(Schema.isPattern(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/)).annotate({
    description: "The header name, like Accept or Authorization (letters, digits and !#$%&'*+.^_`|~-)"
  }),
  value: Schema.String.check(Schema.isMaxLength(8192), Schema.isPattern(/^[^\r\n\0]*$/)).annotate({
    description: "The header value, on one line (no line breaks)"
  })
})

/** The headers as fetch takes them; fails on a framing header. */
const requestHeaders = (headers: ReadonlyArray<typeof Header.Type>) =>
  Effect.forEach(headers, ({ name, value }) =>
    CLIENT_HEADERS.has(name.toLowerCase())
      ? new ToolError({ tool: TOOL, message: `the ${name} header is set by the client and cannot be given` })
      : Effect.succeed([name, value] as const))

/** A body's default `Content-Type`: JSON when it parses as JSON, else plain text. */
const defaultContentType = (body: string): string => {
  try {
    JSON.parse(body)
    return "application/json"
  } catch {
    return "text/plain;charset=UTF-8"
  }
}

const request = (
  method: typeof METHODS[number],
  input: string,
  headers: ReadonlyArray<typeof Header.Type>,
  body: string | undefined
) =>
  Effect.gen(function*() {
    if (body !== undefined && (method === "GET" || method === "HEAD")) {
      return yield* new ToolError({ tool: TOOL, message: `a ${method} request cannot have a body` })
    }
    const url = yield* parseUrl(TOOL, input)
    const given = yield* requestHeaders(headers)
    const givenType = given.find(([name]) => name.toLowerCase() === "content-type")?.[1]
    let outgoing = HttpClientRequest.make(method)(url).pipe(
      HttpClientRequest.setHeaders({ "user-agent": USER_AGENT }),
      HttpClientRequest.setHeaders(Object.fromEntries(given))
    )
    if (body !== undefined) outgoing = HttpClientRequest.bodyText(outgoing, body, givenType ?? defaultContentType(body))
    const response = yield* send(TOOL, outgoing)

    const lines = [`HTTP ${statusLine(response.status)}`]
    const redirected = finalUrl(response, url)
    if (Option.isSome(redirected)) lines[0] += ` (after redirects, from ${shownUrl(redirected.value)})`
    const entries = Object.entries(response.headers)
    for (const [name, value] of entries.slice(0, HTTP_REQUEST_MAX_HEADERS)) {
      lines.push(`${oneLine(name, 100)}: ${oneLine(value, HEADER_VALUE_MAX_CHARS)}`)
    }
    if (entries.length > HTTP_REQUEST_MAX_HEADERS) {
      lines.push(`(${entries.length - HTTP_REQUEST_MAX_HEADERS} more headers not shown)`)
    }
    if (method === "HEAD") return lines.join("\n")

    const { bytes, complete } = yield* readBodyPrefix(response, HTTP_BODY_MAX_BYTES).pipe(
      Effect.mapError((error) =>
        new ToolError({ tool: TOOL, message: `could not read the answer of ${shownUrl(url.href)}: ${error.message}` })
      )
    )
    const contentType = response.headers["content-type"]
    const type = mediaType(contentType)
    const size = `${complete ? "" : "more than "}${formatBytes(bytes.length)}`
    let shown: string
    if (bytes.length === 0) {
      shown = "(empty body)"
    } else if ((type !== "" && !isTextType(type)) || looksBinary(bytes.subarray(0, 8192))) {
      shown = `(binary body: ${size}${type === "" ? "" : ` of ${type}`}; use download_file to save it)`
    } else {
      const text = stripControls(decodeText(bytes, contentType), { window: bytes.length })
      const cut = headOf(text, HTTP_REQUEST_MAX_CHARS)
      const notes = [
        ...(cut.length < text.length ? [`cut at ${cut.length} of ${text.length} characters`] : []),
        ...(complete ? [] : [`the body is larger than ${formatBytes(HTTP_BODY_MAX_BYTES)}; only its start was read`])
      ]
      shown = notes.length === 0 ? cut : `${cut}\n\n[${notes.join("; ")}; use download_file to save the whole body]`
    }
    return `${lines.join("\n")}\n\n${shown}`
  })

/** What `makeHttpRequest` takes. */
export interface HttpRequestOptions {
  /** The run timeout. Default 30 s. */
  readonly timeout?: Duration.Input
}

/** Builds the `http_request` tool (tests use a short timeout). */
export const makeHttpRequest = (options: HttpRequestOptions = {}): Tool<UrlPolicy> =>
  make(TOOL, {
    description: "Send an HTTP request (any method, headers, a text body) and return the status, the response " +
      `headers and the body (text cut at ${HTTP_REQUEST_MAX_CHARS} characters; binary bodies are described). ` +
      "Redirects are followed. Only public http(s) URLs: private, loopback and cloud metadata addresses are " +
      "refused. A body without a Content-Type header is sent as application/json when it is JSON, else as text.",
    parameters: Schema.Struct({
      method: Schema.Literals(METHODS).annotate({ description: "The HTTP method" }),
      url: Schema.String.check(Schema.isMinLength(1)).annotate({
        description: "The absolute http or https URL, like https://api.example.com/items?limit=5"
      }),
      headers: Schema.optional(
        Schema.Array(Header).check(Schema.isMaxLength(50)).annotate({
          description: "Request headers, like [{\"name\": \"Accept\", \"value\": \"application/json\"}]"
        })
      ),
      body: Schema.optional(
        Schema.String.annotate({ description: "The request body, as text (not with GET or HEAD)" })
      )
    }),
    requiresConfirmation: true,
    tags: ["web", "ported"],
    timeout: options.timeout ?? "30 seconds",
    handler: ({ body, headers, method, url }) => request(method, url, headers ?? [], body)
  })

/** `http_request`: 30 s timeout, needs confirmation; needs `UrlPolicy`. */
export const httpRequest: Tool<UrlPolicy> = makeHttpRequest()
