/**
 * Answers the policy's own client (undici's fetch) never hands over, from a client of an
 * application's own (`UrlPolicy` is a service it may provide; these clients connect nowhere):
 * an answer below 200 handed over as final is an error status like any outside 2xx (undici
 * treats a 1xx as interim, and a Web `Response` refuses a status under 200), and a negative
 * declared length (which undici refuses) is no total for `download_file`'s progress.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import type { ProgressUpdate } from "../../../../src/index.js"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { UrlPolicy } from "../../../../src/services/UrlPolicy.js"
import { downloadFile } from "../../../../src/tools/ported/web/downloadFile.js"
import { fetchUrl } from "../../../../src/tools/ported/web/fetchUrl.js"
import { tempDir } from "../../../helpers/tempDir.js"
import { until } from "../../../helpers/testClock.js"
import { callTool } from "./support.js"

/** A policy that refuses nothing and whose client answers every request with what `answer` makes. */
const answering = (answer: () => Response) =>
  Layer.succeed(UrlPolicy, {
    check: () => Option.none(),
    client: HttpClient.make((request) => Effect.sync(() => HttpClientResponse.fromWeb(request, answer())))
  })

/** Every request answered `103 Early Hints`, with a body. */
const earlyHintsPolicy = answering(() => {
  const source = new Response("hints only", { headers: { "content-type": "text/plain" } })
  Object.defineProperty(source, "status", { value: 103 })
  return source
})

const URL = "http://127.0.0.1:9/page"

describe("an answer below 200 handed over as final", () => {
  it.effect("fetch_url: an error status, with an excerpt", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir()
      const r = yield* callTool({ dir: ws, tools: [fetchUrl], policy: earlyHintsPolicy }, "fetch_url", { url: URL })
      expect(r.errorCode).toBe("TOOL_ERROR")
      expect(r.error).toBe(`${URL} answered HTTP 103 Early Hints: hints only`)
    }))

  it.effect("download_file: an error status, nothing saved", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir()
      const r = yield* callTool({ dir: ws, tools: [downloadFile], policy: earlyHintsPolicy }, "download_file", {
        url: URL,
        filepath: "page.txt"
      })
      expect(r.error).toBe(`${URL} answered HTTP 103 Early Hints: hints only`)
      expect(Fs.existsSync(Path.join(ws, "page.txt"))).toBe(false)
    }))
})

describe("download_file's progress under a client of its own", () => {
  it.effect("a negative declared length is no total: bytes saved only", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir()
      const heard: Array<ProgressUpdate> = []
      const policy = answering(() => new Response("abc", { headers: { "content-length": "-1" } }))
      const r = yield* callTool({ dir: ws, tools: [downloadFile], policy }, "download_file", { url: URL, filepath: "a.bin" }, {
        onProgress: (update) => Effect.sync(() => void heard.push(update))
      })
      expect(r.error).toBeNull()
      expect(Fs.readFileSync(Path.join(ws, "a.bin"), "utf8")).toBe("abc")
      yield* until(() => heard.at(-1)?.progress === 3, `the last update (heard ${JSON.stringify(heard)})`)
      expect(heard.at(-1)).toEqual({ progress: 3, message: "3 bytes downloaded" })
    }))
})
