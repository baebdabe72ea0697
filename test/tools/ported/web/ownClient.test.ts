/**
 * An answer below 200 handed over as final is an error status like any outside 2xx. The
 * policy's own client (undici's fetch) never hands one over (a 1xx is interim, and a Web
 * `Response` refuses a status under 200), but `UrlPolicy` is a service an application may
 * provide with a client of its own: here one that answers `103 Early Hints` with a body, and
 * connects nowhere.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { UrlPolicy } from "../../../../src/services/UrlPolicy.js"
import { downloadFile } from "../../../../src/tools/ported/web/downloadFile.js"
import { fetchUrl } from "../../../../src/tools/ported/web/fetchUrl.js"
import { tempDir } from "../../../helpers/tempDir.js"
import { callTool } from "./support.js"

/** A policy that refuses nothing and whose client answers every request `103 Early Hints`. */
const earlyHintsPolicy = Layer.succeed(UrlPolicy, {
  check: () => Option.none(),
  client: HttpClient.make((request) =>
    Effect.sync(() => {
      const source = new Response("hints only", { headers: { "content-type": "text/plain" } })
      Object.defineProperty(source, "status", { value: 103 })
      return HttpClientResponse.fromWeb(request, source)
    })
  )
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
