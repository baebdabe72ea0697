/**
 * `web_search` and what it is given: the settings from the process environment when the
 * application provides no `ConfigProvider`, and whatever status its `HttpClient` reports.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { FetchHttpClient, HttpClient, HttpClientResponse } from "effect/http"
import * as Os from "node:os"
import { ToolSystem, Workspace } from "../../../src/index.js"
import { webSearch } from "../../../src/tools/builtin/webSearch.js"
import { withEnv } from "../../helpers/env.js"
import { sendJson, testServer } from "../../helpers/httpServer.js"

/** One `web_search` call, its client from `client`, in a system of its own. */
const search = (client: Layer.Layer<HttpClient.HttpClient>) =>
  Effect.gen(function*() {
    const ts = yield* ToolSystem
    yield* ts.register(webSearch).pipe(Effect.provide(client))
    return yield* ts.execute("web_search", { query: "q" })
  }).pipe(Effect.provide(ToolSystem.layerNode({ builtins: false, workspace: Workspace.layerFixed(Os.tmpdir()) })))

/** A `Response` reporting `status`, which the web constructor refuses below 200. */
const reporting = (status: number): Response => Object.defineProperty(new Response(""), "status", { value: status })

describe("web_search settings", () => {
  it.effect("without a ConfigProvider, the key and the URL are read from the process environment", () =>
    Effect.gen(function*() {
      const server = yield* testServer((_, response) =>
        sendJson(response, 200, { results: [{ title: "From env", url: "https://e.com", content: "c" }] })
      )
      yield* withEnv({ TAVILY_API_KEY: "tvly-env-key", TAVILY_API_URL: `${server.origin}/env` })
      const r = yield* search(FetchHttpClient.layer)
      expect(r.output).toBe("1. From env\n   https://e.com\n   c")
      expect(server.requests.map((q) => [q.path, q.headers.authorization])).toEqual([["/env", "Bearer tvly-env-key"]])
    }))
})

describe("web_search given a status outside 2xx by its client", () => {
  it.effect("a status below 200 is a failure naming it", () =>
    Effect.gen(function*() {
      const informational = Layer.succeed(
        HttpClient.HttpClient,
        HttpClient.make((request) => Effect.succeed(HttpClientResponse.fromWeb(request, reporting(103))))
      )
      const r = yield* search(informational).pipe(
        Effect.provideService(
          ConfigProvider.ConfigProvider,
          ConfigProvider.fromEnvRecord({ TAVILY_API_KEY: "tvly-key", TAVILY_API_URL: "http://127.0.0.1:9/search" })
        )
      )
      expect(r.errorCode).toBe("TOOL_ERROR")
      expect(r.error).toBe("Tavily search failed with HTTP 103")
    }))
})
