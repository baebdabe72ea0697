/**
 * `formatShapeError`, the message `web_search` gives for an answer of the wrong shape: one line
 * per issue, the path in the answer first, written as the keys would be in code.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Result, Schema } from "effect"
import { FetchHttpClient } from "effect/http"
import * as Os from "node:os"
import { ToolSystem, Workspace } from "../../../src/index.js"
import { formatShapeError, TavilyResponse, WEB_SEARCH_DECODE_OPTIONS, webSearch } from "../../../src/tools/builtin/webSearch.js"
import { sendJson, testServer } from "../../helpers/httpServer.js"

/** The formatted error of decoding `input` with `schema` as `web_search` decodes Tavily's answer. */
const shapeErrorOf = <A, I>(schema: Schema.Codec<A, I>, input: unknown): string => {
  const decoded = Schema.decodeUnknownResult(schema)(input, WEB_SEARCH_DECODE_OPTIONS)
  return Result.isFailure(decoded) ? formatShapeError(decoded.failure) : "decoded"
}

/** One `web_search` call against a server answering 200 with `body`. */
const searchAnswered = (body: unknown) =>
  Effect.gen(function*() {
    const server = yield* testServer((_, response) => sendJson(response, 200, body))
    const ts = yield* ToolSystem
    yield* ts.register(webSearch).pipe(Effect.provide(FetchHttpClient.layer))
    return yield* ts.execute("web_search", { query: "q" }).pipe(
      Effect.provideService(
        ConfigProvider.ConfigProvider,
        ConfigProvider.fromEnvRecord({ TAVILY_API_KEY: "tvly-key", TAVILY_API_URL: server.origin })
      )
    )
  }).pipe(Effect.provide(ToolSystem.layerNode({ builtins: false, workspace: Workspace.layerFixed(Os.tmpdir()) })))

describe("formatShapeError", () => {
  it("writes a path of names and indices as code would: names quoted, indices bare", () => {
    expect(shapeErrorOf(TavilyResponse, { results: [{ title: "t", url: 7, content: "c" }] })).toBe(
      "[\"results\"][0][\"url\"]: Expected string, got 7"
    )
    expect(shapeErrorOf(Schema.Array(Schema.String), ["a", "b", 3])).toBe("[2]: Expected string, got 3")
  })

  it("writes a symbol key of the path as the symbol", () => {
    const tag = Symbol.for("tag")
    expect(shapeErrorOf(Schema.Struct({ [tag]: Schema.String }), { [tag]: 1 })).toBe("[Symbol(tag)]: Expected string, got 1")
  })

  it("gives an issue at the root of the answer without a path", () => {
    expect(shapeErrorOf(TavilyResponse, 7)).toBe("Expected object, got 7")
  })

  it("puts every issue on a line of its own", () => {
    expect(shapeErrorOf(TavilyResponse, { results: [{ title: 7, url: "u" }] }).split("\n")).toEqual([
      "[\"results\"][0][\"title\"]: Expected string, got 7",
      "[\"results\"][0][\"content\"]: Missing key"
    ])
  })
})

describe("web_search given an answer of the wrong shape", () => {
  it.effect("names each issue with its path, one per line", () =>
    Effect.gen(function*() {
      const r = yield* searchAnswered({ results: [{ title: 7, url: "u" }] })
      expect(r.errorCode).toBe("TOOL_ERROR")
      expect(r.error).toBe(
        "Tavily answered HTTP 200 with an unexpected shape: [\"results\"][0][\"title\"]: Expected string, got 7\n[\"results\"][0][\"content\"]: Missing key"
      )
    }))

  it.effect("an answer that is not an object is named without a path", () =>
    Effect.gen(function*() {
      const r = yield* searchAnswered([1, 2])
      expect(r.error).toBe("Tavily answered HTTP 200 with an unexpected shape: Expected object, got [1,2]")
    }))
})
