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
 * @since 0.1.0
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Config, type Duration, Effect, Option, ParseResult, Redacted, Schema } from "effect"
import { ToolError } from "../../domain/errors.js"
import type { Tool } from "../../domain/Tool.js"
import { make } from "../define.js"

/** The Tavily endpoint used when `TAVILY_API_URL` is not set. */
export const TAVILY_DEFAULT_URL = "https://api.tavily.com/search"

/** Snippets longer than this many characters are cut (and end with "…"). */
export const WEB_SEARCH_SNIPPET_MAX_CHARS = 400

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

const settings = Config.all({
  key: Config.option(Config.redacted("TAVILY_API_KEY")),
  url: Config.option(Config.string("TAVILY_API_URL"))
})

const fail = (message: string, cause?: unknown) =>
  new ToolError(cause === undefined ? { tool: TOOL, message } : { tool: TOOL, message, cause })

/** `text` on one line, cut at `max` characters (code points) with "…". */
const snippet = (text: string, max: number): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  const chars = Array.from(flat)
  return chars.length > max ? `${chars.slice(0, max).join("")}…` : flat
}

/** The numbered listing of the results. */
export const formatResults = (query: string, results: ReadonlyArray<typeof TavilyResult.Type>): string => {
  if (results.length === 0) return `No web results for "${query}".`
  return results
    .map((r, i) => {
      const title = r.title.trim() === "" ? "(untitled)" : snippet(r.title, WEB_SEARCH_SNIPPET_MAX_CHARS)
      return `${i + 1}. ${title}\n   ${r.url}\n   ${snippet(r.content, WEB_SEARCH_SNIPPET_MAX_CHARS)}`
    })
    .join("\n\n")
}

/** The body of a failed answer, shortened, for the error message. */
const bodyExcerpt = (text: string): string => {
  const flat = snippet(text, 200)
  return flat === "" ? "" : `: ${flat}`
}

const search = (query: string, topK: number) =>
  Effect.gen(function*() {
    const { key, url } = yield* settings
    const apiKey = Option.filter(key, (k) => Redacted.value(k).trim() !== "")
    if (Option.isNone(apiKey)) return WEB_SEARCH_UNAVAILABLE
    const endpoint = Option.getOrElse(Option.filter(url, (u) => u.trim() !== ""), () => TAVILY_DEFAULT_URL)
    const maxResults = Math.min(WEB_SEARCH_MAX_RESULTS, Math.max(1, topK))

    const client = yield* HttpClient.HttpClient
    const request = HttpClientRequest.post(endpoint).pipe(
      HttpClientRequest.bearerToken(apiKey.value),
      HttpClientRequest.acceptJson,
      HttpClientRequest.bodyUnsafeJson({
        query,
        max_results: maxResults,
        search_depth: "basic",
        include_answer: false,
        include_images: false,
        include_raw_content: false
      })
    )
    const response = yield* client.execute(request).pipe(
      Effect.mapError((error) => fail(`could not reach the Tavily API at ${endpoint}: ${error.message}`, error))
    )
    if (response.status === 401 || response.status === 403) {
      return yield* fail(`Tavily rejected the API key (HTTP ${response.status})`)
    }
    if (response.status < 200 || response.status >= 300) {
      const body = yield* response.text.pipe(
        Effect.catchAll((error) => Effect.succeed(`(body unreadable: ${error.message})`))
      )
      return yield* fail(`Tavily search failed with HTTP ${response.status}${bodyExcerpt(body)}`)
    }
    const json = yield* response.json.pipe(
      Effect.mapError((error) => fail(`Tavily answered HTTP ${response.status} with a body that is not JSON`, error))
    )
    const answer = yield* Schema.decodeUnknown(TavilyResponse)(json).pipe(
      Effect.mapError((error) =>
        fail(
          `Tavily answered HTTP ${response.status} with an unexpected shape: ${ParseResult.TreeFormatter.formatErrorSync(error)}`,
          error
        )
      )
    )
    return formatResults(query, answer.results.slice(0, maxResults))
  })

/** What `makeWebSearch` takes. */
export interface WebSearchOptions {
  /** The run timeout. Default 20 s. */
  readonly timeout?: Duration.DurationInput
}

/** Builds the `web_search` tool (tests use a short timeout). */
export const makeWebSearch = (options: WebSearchOptions = {}): Tool<HttpClient.HttpClient> =>
  make(TOOL, {
    description: "Search the web (Tavily) and return numbered results with title, URL and a snippet. " +
      `top_k is the number of results, at most ${WEB_SEARCH_MAX_RESULTS}.`,
    parameters: Schema.Struct({
      query: Schema.String.pipe(Schema.minLength(1)).annotations({ description: "What to search for" }),
      top_k: Schema.optionalWith(
        Schema.Int.annotations({
          description: `How many results to return (1 to ${WEB_SEARCH_MAX_RESULTS}; larger values are capped)`
        }),
        { default: () => 5 }
      )
    }),
    readOnly: true,
    tags: ["web", "builtin"],
    timeout: options.timeout ?? "20 seconds",
    handler: ({ query, top_k }) => search(query, top_k)
  })

/** The `web_search` builtin: 20 s timeout; needs `HttpClient.HttpClient`. */
export const webSearch: Tool<HttpClient.HttpClient> = makeWebSearch()
