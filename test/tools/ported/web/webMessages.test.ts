/**
 * What the web tools say in the cases their main tests do not reach: a redirect before a
 * download, an answer without a type, a body that breaks off while it is read, an error
 * status with an empty or cut body, and the `details` a failed result carries.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import type * as Http from "node:http"
import * as Os from "node:os"
import * as Path from "node:path"
import { UrlPolicy } from "../../../../src/services/UrlPolicy.js"
import { downloadFile } from "../../../../src/tools/ported/web/downloadFile.js"
import { fetchUrl } from "../../../../src/tools/ported/web/fetchUrl.js"
import { httpRequest } from "../../../../src/tools/ported/web/httpRequest.js"
import { sendText, testServer } from "../../../helpers/httpServer.js"
import { tempDir } from "../../../helpers/tempDir.js"
import { callTool } from "./support.js"

/** Answers 200 with a declared length of 1 MiB, sends 1000 bytes, and drops the connection. */
const breakOff = (response: Http.ServerResponse, status = 200): void => {
  response.writeHead(status, { "content-type": "text/plain", "content-length": String(1024 * 1024) })
  response.write(Buffer.alloc(1000, "x"), () => response.destroy())
}

const moved = (response: Http.ServerResponse, to: string): void => {
  response.writeHead(302, { location: to })
  response.end()
}

// live clock: a real HTTP server on 127.0.0.1 (Node sockets, undici's own timers)
describe("web tools' messages", () => {
  it.live("download_file says where a redirect led, and names no type when the answer has none", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("web-messages-")
      const server = yield* testServer((request, response) => {
        if (request.path === "/old") return moved(response, "/new")
        response.writeHead(200)
        response.end("hello")
      })
      const r = yield* callTool({ dir, tools: [downloadFile] }, "download_file", {
        url: `${server.origin}/old`,
        filepath: "saved.txt"
      })
      expect(r.output).toBe(
        `Downloaded 5 bytes from ${server.origin}/old (redirected to ${server.origin}/new) to saved.txt`
      )
      expect(Fs.readFileSync(Path.join(dir, "saved.txt"), "utf8")).toBe("hello")
    }))

  it.live("fetch_url drops trailing blanks and runs of blank lines; shows text/plain that looks like HTML as it is", () =>
    Effect.gen(function*() {
      const server = yield* testServer((request, response) =>
        request.path === "/tidy"
          ? sendText(response, 200, "one  \t\ntwo\n\n\n\nthree \n")
          : sendText(response, 200, "<html><p>not converted</p></html>")
      )
      const tidy = yield* callTool({ dir: Os.tmpdir(), tools: [fetchUrl] }, "fetch_url", { url: `${server.origin}/tidy` })
      expect(tidy.output).toBe(`${server.origin}/tidy — HTTP 200, text/plain\n\none\ntwo\n\nthree`)
      const plain = yield* callTool({ dir: Os.tmpdir(), tools: [fetchUrl] }, "fetch_url", { url: `${server.origin}/plain` })
      expect(plain.output).toBe(`${server.origin}/plain — HTTP 200, text/plain\n\n<html><p>not converted</p></html>`)
    }))

  it.live("fetch_url at the largest max_chars says where it cut, without asking for a larger one", () =>
    Effect.gen(function*() {
      const server = yield* testServer((_, response) => sendText(response, 200, "a".repeat(250_000)))
      const r = yield* callTool({ dir: Os.tmpdir(), tools: [fetchUrl] }, "fetch_url", { url: server.origin, max_chars: 200_000 })
      expect(String(r.output).endsWith(`${"a".repeat(10)}\n\n[cut at 200000 of 250000 characters]`)).toBe(true)
    }))

  it.live("a URL with white space around it (no-break spaces too) is read without it", () =>
    Effect.gen(function*() {
      const server = yield* testServer((_, response) => sendText(response, 200, "trimmed"))
      const r = yield* callTool({ dir: Os.tmpdir(), tools: [fetchUrl] }, "fetch_url", { url: `\u00a0 ${server.origin}/x \u00a0\n` })
      expect(r.output).toBe(`${server.origin}/x — HTTP 200, text/plain\n\ntrimmed`)
    }))

  it.live("a body that breaks off while it is read: each tool says it could not read the answer", () =>
    Effect.gen(function*() {
      const server = yield* testServer((_, response) => breakOff(response))
      const fetched = yield* callTool({ dir: Os.tmpdir(), tools: [fetchUrl] }, "fetch_url", { url: `${server.origin}/f` })
      expect(fetched.errorCode).toBe("TOOL_ERROR")
      expect(fetched.error).toMatch(new RegExp(`^could not read ${server.origin}/f: .+`))
      const requested = yield* callTool(
        { dir: Os.tmpdir(), tools: [httpRequest] },
        "http_request",
        { method: "GET", url: `${server.origin}/r` },
        { confirm: true }
      )
      expect(requested.errorCode).toBe("TOOL_ERROR")
      expect(requested.error).toMatch(new RegExp(`^could not read the answer of ${server.origin}/r: .+`))
    }))

  it.live("an error status: its code in details; no excerpt of an empty or broken body; a cut excerpt ends in …", () =>
    Effect.gen(function*() {
      const server = yield* testServer((request, response) => {
        if (request.path === "/empty") return sendText(response, 404, "")
        if (request.path === "/broken") return breakOff(response, 500)
        sendText(response, 503, `busy${"\u3000".repeat(20_000)}`)
      })
      const fetch = (path: string) => callTool({ dir: Os.tmpdir(), tools: [fetchUrl] }, "fetch_url", { url: `${server.origin}${path}` })
      const empty = yield* fetch("/empty")
      expect(empty.error).toBe(`${server.origin}/empty answered HTTP 404 Not Found`)
      expect(empty.success ? undefined : empty.details).toEqual({ status: 404 })
      const broken = yield* fetch("/broken")
      expect(broken.error).toBe(`${server.origin}/broken answered HTTP 500 Internal Server Error`)
      // 16 KiB of the body are read (\u3000 is 3 bytes in UTF-8): "busy" and ideographic spaces, which
      // flatten to "busy": a short excerpt, but of a body read in part
      const cut = yield* fetch("/cut")
      expect(cut.error).toBe(`${server.origin}/cut answered HTTP 503 Service Unavailable: busy…`)
    }))

  it.live("a refused URL's result names the reason in details", () =>
    Effect.gen(function*() {
      const server = yield* testServer((_, response) => sendText(response, 200, "never"))
      const system = { dir: Os.tmpdir(), tools: [fetchUrl], policy: UrlPolicy.layer }
      const address = yield* callTool(system, "fetch_url", { url: server.origin })
      expect(address.success ? undefined : address.details).toEqual({ reason: "address" })
      const scheme = yield* callTool(system, "fetch_url", { url: "ftp://example.com/file" })
      expect(scheme.success ? undefined : scheme.details).toEqual({ reason: "scheme" })
      expect(server.requests).toHaveLength(0)
    }))

  it.live("http_request says where redirects led, and that a large binary body is larger than what was read", () =>
    Effect.gen(function*() {
      const server = yield* testServer((request, response) => {
        if (request.path === "/old") return moved(response, "/new")
        if (request.path === "/new") return sendText(response, 200, "here")
        response.writeHead(200, { "content-type": "application/octet-stream" })
        response.end(Buffer.alloc(2 * 1024 * 1024, 7))
      })
      const send = (path: string) =>
        callTool({ dir: Os.tmpdir(), tools: [httpRequest] }, "http_request", { method: "GET", url: `${server.origin}${path}` }, {
          confirm: true
        })
      const redirected = yield* send("/old")
      expect(String(redirected.output).split("\n")[0]).toBe(`HTTP 200 OK (after redirects, from ${server.origin}/new)`)
      const big = yield* send("/big")
      expect(String(big.output)).toMatch(
        /\n\n\(binary body: more than 1 MiB of application\/octet-stream; use download_file to save it\)$/
      )
    }))
})
