/**
 * In the slow lane: its one test spends 0.4-0.8 s of CPU in the fast lane's conditions (an HTML
 * conversion worker per call), too close to that lane's 1 s bound.
 *
 * `fetch_url` on answers without a content type: a body that starts (after white space) with
 * `<!doctype html` or `<html` is converted as HTML, any other text is shown as it is, and an
 * empty body is "(no text)".
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Os from "node:os"
import { fetchUrl } from "../../../../src/tools/ported/web/fetchUrl.js"
import { testServer } from "../../../helpers/httpServer.js"
import { callTool } from "./support.js"

const BODIES: Record<string, string> = {
  "/doctype": "\n  \t<!DOCTYPE html><html><body><h1>Title</h1><p>text</p></body></html>",
  "/html": "<HTML><body><p>only <b>this</b></p></body></HTML>",
  "/later": "see <html><body>not a page</body></html>",
  "/word": "x<html><body>not a page</body></html>",
  "/empty": ""
}

// live clock: a real HTTP server on 127.0.0.1 (Node sockets, undici's own timers)
describe("fetch_url without a content type", () => {
  it.live("sniffs HTML by its first tag, shows other text as it is, and says when there is no text", () =>
    Effect.gen(function*() {
      const server = yield* testServer((request, response) => {
        // no content-type header at all
        response.writeHead(200)
        response.end(BODIES[request.path] ?? "")
      })
      const outputOf = (path: string) =>
        Effect.map(callTool({ dir: Os.tmpdir(), tools: [fetchUrl] }, "fetch_url", { url: `${server.origin}${path}` }), (r) => {
          expect(r.error).toBeNull()
          return r.output
        })
      const head = (path: string) => `${server.origin}${path} — HTTP 200, no content type\n\n`
      expect(yield* outputOf("/doctype")).toBe(`${head("/doctype")}Title\n\ntext`)
      expect(yield* outputOf("/html")).toBe(`${head("/html")}only this`)
      expect(yield* outputOf("/later")).toBe(`${head("/later")}see <html><body>not a page</body></html>`)
      expect(yield* outputOf("/word")).toBe(`${head("/word")}x<html><body>not a page</body></html>`)
      expect(yield* outputOf("/empty")).toBe(`${head("/empty")}(no text)`)
    }))
})
