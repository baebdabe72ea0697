/**
 * `web_search`: a web search through the Tavily API (`POST /search`, bearer key), answered
 * as numbered results:
 * ```
 * 1. Title
 *    https://example.com/page
 *    The snippet, cut at 400 characters…
 * ```
 * `TAVILY_API_KEY` and `TAVILY_API_URL` are read through `Config` at each call (so a
 * `ConfigProvider` can supply them); without a key the tool answers that it is unavailable
 * instead of failing. The handler needs `HttpClient.HttpClient`.
 *
 * The service is not trusted: its answer is read up to 1 MiB (after decompression; an error
 * answer up to 16 KiB, for the excerpt), its JSON may nest 32 deep at most, the key is
 * redacted from everything the tool returns, and every field shown is put on one line
 * without control characters or escape sequences.
 *
 * Effect 4: without a `ConfigProvider` service the settings are read from the process
 * environment as it is at the call (Effect 4's default provider keeps its first snapshot). An
 * answer of the wrong shape is named with every issue, its path and the value it rejects
 * (decoded with `errors: "all"` and `reportInput: true`, one line per issue: `formatShapeError`),
 * where Effect 3's tree formatter showed the schema, the path and the first issue.
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
import * as SchemaIssue from "effect/SchemaIssue"
import { ToolError } from "../../domain/errors.js"
import type { Tool } from "../../domain/Tool.js"
import { make } from "../defineBuiltin.js"
import { parseJsonBounded } from "../shared/boundedJson.js"
import { discardBody, formatBytes, HTTP_BODY_MAX_BYTES, readTextCapped, readTextPrefix } from "../shared/httpBody.js"
import { type Redactor, redactor } from "../shared/redact.js"
import { oneLine, stripControls } from "../shared/sanitize.js"

/** The Tavily endpoint used when `TAVILY_API_URL` is not set. */
export const TAVILY_DEFAULT_URL = "https://api.tavily.com/search"

/** Snippets longer than this many characters are cut (and end with "…"). */
export const WEB_SEARCH_SNIPPET_MAX_CHARS = 400

/** URLs longer than this many characters are cut (and end with "…"). */
export const WEB_SEARCH_URL_MAX_CHARS = 2048

/** Tavily's answer is read up to this many bytes (after decompression); a longer one is an error. */
export const WEB_SEARCH_BODY_MAX_BYTES = HTTP_BODY_MAX_BYTES

/** Of an error answer (not 2xx), only this many bytes are read, for the excerpt in the message. */
export const WEB_SEARCH_ERROR_BODY_MAX_BYTES = 16 * 1024

/** The excerpt of an error answer in the message is cut at this many characters. */
export const WEB_SEARCH_ERROR_EXCERPT_CHARS = 200

/** Tavily's answer may nest objects and arrays this deep at most (it needs 3). */
export const WEB_SEARCH_MAX_JSON_DEPTH = 32

/** A schema error in a message is cut at this many characters. */
export const WEB_SEARCH_SHAPE_ERROR_MAX_CHARS = 2000

/** `top_k` is capped at this many results. */
export const WEB_SEARCH_MAX_RESULTS = 10

/** What the tool answers (successfully) when no API key is configured. */
export const WEB_SEARCH_UNAVAILABLE = "web_search is unavailable: TAVILY_API_KEY is not set"

const TOOL = "web_search"

/** One result of Tavily's search answer (other fields are ignored). */
export const TavilyResult = Schema.Struct({
  title: Schema.String,
  url: Schema.String,
  content: Schema.String,
  score: Schema.optional(Schema.Number)
})

/** The part of Tavily's search answer the tool reads. */
export const TavilyResponse = Schema.Struct({
  query: Schema.optional(Schema.String),
  results: Schema.Array(TavilyResult)
})

const settingsConfig = Config.all({
  key: Config.option(Config.Redacted("TAVILY_API_KEY")),
  url: Config.option(Config.String("TAVILY_API_URL"))
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

/**
 * How Tavily's answer is decoded: every issue, each with the value it rejected (as Effect 3's
 * tree formatter showed it), so that the message names everything that is wrong.
 */
export const WEB_SEARCH_DECODE_OPTIONS = { errors: "all", reportInput: true } as const

/** The message of a failure, with the key redacted (a web answer may echo it). */
const fail = (redact: Redactor, message: string, cause?: unknown) =>
  new ToolError({ tool: TOOL, message: redact(message), cause })

/**
 * The numbered listing of the results. Every field is put on one line without control
 * characters or escape sequences (a result cannot forge lines or colours), and `redact` is
 * applied to each before it is cut.
 */
export const formatResults = (
  query: string,
  results: ReadonlyArray<typeof TavilyResult.Type>,
  redact?: Redactor
): string => {
  if (results.length === 0) return `No web results for "${query}".`
  const options = redact === undefined ? {} : { redact }
  return results
    .map((r, i) => {
      const title = oneLine(r.title, WEB_SEARCH_SNIPPET_MAX_CHARS, options)
      const url = oneLine(r.url, WEB_SEARCH_URL_MAX_CHARS, options)
      const content = oneLine(r.content, WEB_SEARCH_SNIPPET_MAX_CHARS, options)
      return `${i + 1}. ${title === "" ? "(untitled)" : title}\n   ${url}\n   ${content}`
    })
    .join("\n\n")
}

const issues = SchemaIssue.makeFormatterStandardSchemaV1()

/** `["results"][0]["url"]`: a path into the answer as the message shows it. */
const shownPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((key) => `[${typeof key === "number" ? key : typeof key === "string" ? JSON.stringify(key) : String(key)}]`).join("")

/**
 * A schema error of Tavily's answer, whole: one line per issue, its path in the answer first,
 * then what was expected and the value found (`["results"][0]["url"]: Expected string, got 7`).
 * The path comes first so that a cut message still says where the answer is wrong.
 *
 * @since 0.1.0
 * @category formatting
 */
export const formatShapeError = (error: Schema.SchemaError): string =>
  issues(error.issue).issues
    .map(({ message, path }) => {
      const at = path === undefined ? "" : shownPath(path.map((key) => (typeof key === "object" ? key.key : key)))
      return at === "" ? message : `${at}: ${message}`
    })
    .join("\n")

/** A schema error, cut (it quotes the answer, which is up to 1 MiB). */
const shapeError = (error: Schema.SchemaError, redact: Redactor): string => {
  const text = formatShapeError(error)
  const shown = stripControls(text, { window: WEB_SEARCH_SHAPE_ERROR_MAX_CHARS, redact })
  return text.length > WEB_SEARCH_SHAPE_ERROR_MAX_CHARS ? `${shown}…` : shown
}

const search = (query: string, topK: number) =>
  Effect.gen(function*() {
    const { key, url } = yield* settings
    const apiKey = Option.filter(key, (k) => Redacted.value(k).trim() !== "")
    if (Option.isNone(apiKey)) return WEB_SEARCH_UNAVAILABLE
    const endpoint = Option.getOrElse(Option.filter(url, (u) => u.trim() !== ""), () => TAVILY_DEFAULT_URL)
    const maxResults = Math.min(WEB_SEARCH_MAX_RESULTS, Math.max(1, topK))
    const redact = redactor([apiKey.value])

    const client = yield* HttpClient.HttpClient
    const request = HttpClientRequest.post(endpoint).pipe(
      HttpClientRequest.bearerToken(apiKey.value),
      HttpClientRequest.acceptJson,
      HttpClientRequest.bodyJsonUnsafe({
        query,
        max_results: maxResults,
        search_depth: "basic",
        include_answer: false,
        include_images: false,
        include_raw_content: false
      })
    )
    // The cause is the transport's error, not the `RequestError`: that one holds the request and its headers.
    const response = yield* client.execute(request).pipe(
      Effect.mapError((error) =>
        fail(redact, `could not reach the Tavily API at ${endpoint}: ${error.message}`, error.reason.cause)
      )
    )
    const status = response.status
    if (status === 401 || status === 403) {
      yield* discardBody(response)
      return yield* fail(redact, `Tavily rejected the API key (HTTP ${status})`)
    }
    if (status < 200 || status >= 300) {
      const excerpt = yield* readTextPrefix(response, WEB_SEARCH_ERROR_BODY_MAX_BYTES).pipe(
        Effect.map(({ complete, text }) => ({ text, truncated: !complete })),
        Effect.catch((error) => Effect.succeed({ text: `(body unreadable: ${error.message})`, truncated: false })),
        Effect.map(({ text, truncated }) => oneLine(text, WEB_SEARCH_ERROR_EXCERPT_CHARS, { redact, truncated }))
      )
      return yield* fail(redact, `Tavily search failed with HTTP ${status}${excerpt === "" ? "" : `: ${excerpt}`}`)
    }
    const text = yield* readTextCapped(response, WEB_SEARCH_BODY_MAX_BYTES).pipe(
      Effect.mapError((error) =>
        error._tag === "BodyTooLarge"
          ? fail(redact, `Tavily's answer (HTTP ${status}) is too large: more than ${formatBytes(error.maxBytes)}`)
          : fail(redact, `could not read Tavily's answer (HTTP ${status}): ${error.message}`, error.reason.cause)
      )
    )
    const json = yield* Effect.fromResult(Result.mapError(parseJsonBounded(text, WEB_SEARCH_MAX_JSON_DEPTH), (error) =>
      error.reason === "too-deep"
        ? fail(redact, `Tavily answered HTTP ${status} with JSON nested deeper than ${error.maxDepth} levels`)
        : fail(redact, `Tavily answered HTTP ${status} with a body that is not JSON`)))
    // No cause: the schema error quotes the answer, which may echo the key.
    const answer = yield* Schema.decodeUnknownEffect(TavilyResponse)(json, WEB_SEARCH_DECODE_OPTIONS).pipe(
      Effect.mapError((error) =>
        fail(redact, `Tavily answered HTTP ${status} with an unexpected shape: ${shapeError(error, redact)}`)
      )
    )
    return formatResults(query, answer.results.slice(0, maxResults), redact)
  })

/** What `makeWebSearch` takes. */
export interface WebSearchOptions {
  /** The run timeout. Default 20 s. */
  readonly timeout?: Duration.Input
}

/** Builds the `web_search` tool (tests use a short timeout). */
export const makeWebSearch = (options: WebSearchOptions = {}): Tool<HttpClient.HttpClient> =>
  make(TOOL, {
    description: "Search the web (Tavily) and return numbered results with title, URL and a snippet. " +
      `top_k is the number of results, at most ${WEB_SEARCH_MAX_RESULTS}.`,
    parameters: Schema.Struct({
      query: Schema.String.check(Schema.isMinLength(1)).annotate({ description: "What to search for" }),
      top_k: Schema.Int.annotate({
        description: `How many results to return (1 to ${WEB_SEARCH_MAX_RESULTS}; larger values are capped)`
      }).pipe(Schema.withDecodingDefaultType(Effect.succeed(5)))
    }),
    readOnly: true,
    tags: ["web", "builtin"],
    timeout: options.timeout ?? "20 seconds",
    handler: ({ query, top_k }) => search(query, top_k)
  })

/**
 * The `web_search` builtin: 20 s timeout; needs `HttpClient.HttpClient`.
 *
 * @since 0.1.0
 * @category tools
 */
export const webSearch: Tool<HttpClient.HttpClient> = makeWebSearch()
