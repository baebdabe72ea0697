import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect } from "effect"
import * as Os from "node:os"
import * as Zlib from "node:zlib"
import type { ExecuteOptions } from "../../../../src/index.js"
import { UrlPolicy } from "../../../../src/services/UrlPolicy.js"
import { HTTP_REQUEST_MAX_HEADERS, httpRequest } from "../../../../src/tools/ported/web/httpRequest.js"
import { repeated, sendJson, sendStream, sendText, testServer } from "../../../helpers/httpServer.js"
import { measureGrowth } from "../../shared/memorySampler.js"
import { callTool, loopbackOnlyPolicy, type WebSystem } from "./support.js"

const system: WebSystem = { dir: Os.tmpdir(), tools: [httpRequest] }

const request = (args: unknown, over: Partial<WebSystem> = {}, options: ExecuteOptions = { confirm: true }) =>
  callTool({ ...system, ...over }, "http_request", args, options)

/** The output without the `date`, `connection` and `keep-alive` headers, which vary. */
const stable = (output: unknown): string =>
  String(output).split("\n").filter((line) => !/^(date|connection|keep-alive): /.test(line)).join("\n")

// live clock: a real HTTP server on 127.0.0.1 (Node sockets, undici's own timers)
describe("http_request", () => {
  it.live("needs confirmation; unconfirmed, nothing is sent", () =>
    Effect.gen(function*() {
      const server = yield* testServer((_, response) => sendText(response, 200, "ok"))
      const r = yield* request({ method: "GET", url: server.origin }, {}, {})
      expect(r.errorCode).toBe("CONFIRMATION_REQUIRED")
      expect(server.requests).toHaveLength(0)
    }))

  it.live("sends the method, headers and body; answers status, headers and body", () =>
    Effect.gen(function*() {
      const server = yield* testServer((req, response) => {
        response.setHeader("x-request-id", "abc")
        sendJson(response, 201, { got: JSON.parse(req.body) })
      })
      const r = yield* request({
        method: "POST",
        url: `${server.origin}/items?x=1`,
        headers: [{ name: "Authorization", value: "Bearer t0ken" }, { name: "X-Trace", value: "on" }],
        body: "{\"name\":\"pen\"}"
      })
      expect(r.success).toBe(true)
      expect(stable(r.output)).toBe(
        "HTTP 201 Created\ncontent-type: application/json\ntransfer-encoding: chunked\nx-request-id: abc\n\n" +
          "{\"got\":{\"name\":\"pen\"}}"
      )
      const received = server.requests[0]
      expect(received?.method).toBe("POST")
      expect(received?.path).toBe("/items?x=1")
      expect(received?.headers.authorization).toBe("Bearer t0ken")
      expect(received?.headers["x-trace"]).toBe("on")
      expect(received?.headers["content-type"]).toBe("application/json")
      expect(received?.body).toBe("{\"name\":\"pen\"}")
    }))

  it.live("a body that is not JSON goes as text unless a Content-Type is given", () =>
    Effect.gen(function*() {
      const server = yield* testServer((_, response) => sendText(response, 204, ""))
      yield* request({ method: "PUT", url: server.origin, body: "plain words" })
      yield* request({ method: "PATCH", url: server.origin, body: "a=1", headers: [{ name: "content-type", value: "application/x-www-form-urlencoded" }] })
      expect(server.requests.map((r) => r.headers["content-type"])).toEqual([
        "text/plain;charset=UTF-8",
        "application/x-www-form-urlencoded"
      ])
    }))

  it.live("any status is an answer; HEAD shows no body; binary bodies are described", () =>
    Effect.gen(function*() {
      const server = yield* testServer((req, response) => {
        if (req.path === "/png") {
          response.writeHead(200, { "content-type": "image/png" })
          return response.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]))
        }
        sendText(response, 503, "busy, try later")
      })
      const busy = yield* request({ method: "DELETE", url: `${server.origin}/x` })
      expect(busy.success).toBe(true)
      expect(stable(busy.output)).toBe("HTTP 503 Service Unavailable\ncontent-type: text/plain\ntransfer-encoding: chunked\n\nbusy, try later")
      const head = yield* request({ method: "HEAD", url: `${server.origin}/x` })
      expect(stable(head.output)).toBe("HTTP 503 Service Unavailable\ncontent-type: text/plain")
      const png = yield* request({ method: "GET", url: `${server.origin}/png` })
      expect(String(png.output)).toMatch(/\n\n\(binary body: 8 bytes of image\/png; use download_file to save it\)$/)
    }))

  it.live("sends its User-Agent unless one is given; shows 50 headers at most and says how many more", () =>
    Effect.gen(function*() {
      // `/N` answers with N headers of its own besides those Node adds (date, connection, ...)
      const server = yield* testServer((req, response) => {
        const count = Number(req.path.slice(1)) || 0
        response.writeHead(200, Object.fromEntries(Array.from({ length: count }, (_, i) => [`x-h${i}`, String(i)])))
        response.end()
      })
      yield* request({ method: "GET", url: `${server.origin}/` })
      yield* request({ method: "GET", url: `${server.origin}/`, headers: [{ name: "User-Agent", value: "mine/1" }] })
      expect(server.requests.map((r) => r.headers["user-agent"])).toEqual(["effect-tool-system", "mine/1"])
      const headLines = (count: number) =>
        Effect.map(request({ method: "HEAD", url: `${server.origin}/${count}` }), (r) => String(r.output).split("\n"))
      const added = (yield* headLines(0)).length - 1
      const atCap = yield* headLines(HTTP_REQUEST_MAX_HEADERS - added)
      expect(atCap).toHaveLength(1 + HTTP_REQUEST_MAX_HEADERS)
      expect(atCap.at(-1)).not.toMatch(/more headers/)
      const over = yield* headLines(HTTP_REQUEST_MAX_HEADERS - added + 3)
      expect(over).toHaveLength(1 + HTTP_REQUEST_MAX_HEADERS + 1)
      expect(over.at(-1)).toBe("(3 more headers not shown)")
    }))

  it.live("an empty body says so; a body without a type is judged by its bytes; a HEAD request takes no body", () =>
    Effect.gen(function*() {
      const server = yield* testServer((req, response) => {
        response.writeHead(200, req.path === "/typed-text" ? { "content-type": "application/octet-stream" } : {})
        response.end(req.path === "/empty" ? "" : req.path === "/bytes" ? Buffer.from([0, 1, 2, 0xff, 0, 0, 0x10, 0]) : "plain words")
      })
      const tail = (output: unknown) => String(output).split("\n\n").slice(1).join("\n\n")
      expect(tail((yield* request({ method: "GET", url: `${server.origin}/empty` })).output)).toBe("(empty body)")
      expect(tail((yield* request({ method: "GET", url: `${server.origin}/bytes` })).output)).toBe(
        "(binary body: 8 bytes; use download_file to save it)"
      )
      expect(tail((yield* request({ method: "GET", url: `${server.origin}/text` })).output)).toBe("plain words")
      expect(tail((yield* request({ method: "GET", url: `${server.origin}/typed-text` })).output)).toBe(
        "(binary body: 11 bytes of application/octet-stream; use download_file to save it)"
      )
      const head = yield* request({ method: "HEAD", url: server.origin, body: "x" })
      expect(head.error).toBe("a HEAD request cannot have a body")
      expect(server.requests).toHaveLength(4)
    }))

  it.live("refuses header injection (CR/LF in values, bad names) and framing headers; nothing is sent", () =>
    Effect.gen(function*() {
      const server = yield* testServer((_, response) => sendText(response, 200, "ok"))
      const injected = [
        [{ name: "X-A", value: "1\r\nX-Injected: yes" }],
        [{ name: "X-A", value: "1\nX-Injected: yes" }],
        [{ name: "X-A", value: "1\rX" }],
        [{ name: "X-A", value: "nul\u0000" }],
        [{ name: "X-A: 1\r\nX-B", value: "2" }],
        [{ name: "Bad Name", value: "1" }],
        [{ name: "", value: "1" }]
      ]
      for (const headers of injected) {
        const r = yield* request({ method: "GET", url: server.origin, headers })
        expect(r.errorCode, JSON.stringify(headers)).toBe("INVALID_ARGUMENTS")
      }
      for (const name of ["Host", "content-length", "Transfer-Encoding", "Connection"]) {
        const r = yield* request({ method: "GET", url: server.origin, headers: [{ name, value: "x" }] })
        expect(r.error).toBe(`the ${name} header is set by the client and cannot be given`)
      }
      const withBody = yield* request({ method: "GET", url: server.origin, body: "x" })
      expect(withBody.error).toBe("a GET request cannot have a body")
      expect(server.requests).toHaveLength(0)
    }))

  it.live("by default refuses loopback, private and metadata addresses; a redirect to one is refused", () =>
    Effect.gen(function*() {
      const server = yield* testServer((_, response) => sendText(response, 200, "internal"))
      const loopback = yield* request({ method: "PUT", url: server.origin }, { policy: UrlPolicy.layer })
      expect(loopback.error).toBe(`refused ${server.origin}/: 127.0.0.1 is a loopback address, which the URL policy refuses`)
      // the default rules, over a connector that opens sockets to loopback only (no traffic elsewhere if they broke)
      for (const url of ["http://169.254.169.254/latest/api/token", "http://192.168.1.1/"]) {
        const r = yield* request({ method: "PUT", url }, { policy: loopbackOnlyPolicy() })
        expect(r.error, url).toMatch(/^refused .*, which the URL policy refuses$/)
      }
      const allowed = yield* testServer((_, response) => {
        response.writeHead(307, { location: "http://[::ffff:169.254.169.254]/latest/api/token" })
        response.end()
      })
      const policy = loopbackOnlyPolicy({ allow: [`127.0.0.1:${new URL(allowed.origin).port}`] })
      const r = yield* request({ method: "PUT", url: allowed.origin, body: "x" }, { policy })
      expect(r.error).toBe(
        `refused http://[::ffff:a9fe:a9fe]/latest/api/token (redirected from ${allowed.origin}/): ` +
          "::ffff:a9fe:a9fe maps to 169.254.169.254, a cloud metadata address, which the URL policy refuses"
      )
      expect(server.requests).toHaveLength(0)
    }))

  it.live("a huge body is read up to 1 MiB and shown up to 20,000 characters; a gzip bomb too", () =>
    Effect.gen(function*() {
      const produced = { bytes: 0 }
      const server = yield* testServer((req, response) =>
        req.path === "/bomb"
          ? sendStream(
            response,
            200,
            { "content-type": "text/plain", "content-encoding": "gzip" },
            repeated(Buffer.alloc(65_536, "b"), 1024 * 1024 * 1024),
            Zlib.createGzip({ level: 9 })
          )
          : sendStream(response, 200, { "content-type": "text/plain" }, repeated(Buffer.alloc(65_536, "a"), 64 * 1024 * 1024, produced))
      )
      const [huge, growth] = yield* measureGrowth(request({ method: "GET", url: `${server.origin}/huge` }))
      expect(String(huge.output)).toMatch(
        /\n\na{20000}\n\n\[cut at 20000 of 1048576 characters; the body is larger than 1 MiB; only its start was read; use download_file to save the whole body\]$/
      )
      yield* Deferred.await(server.requests[0]!.abandoned).pipe(Effect.timeout("2 seconds"))
      expect(produced.bytes).toBeLessThan(16 * 1024 * 1024)
      const bomb = yield* request({ method: "GET", url: `${server.origin}/bomb` })
      expect(String(bomb.output)).toMatch(/\n\nb{20000}\n\n\[cut at 20000 of 1048576 characters; the body is larger than 1 MiB/)
      expect(bomb.durationMs).toBeLessThan(5_000)
      expect(growth.heapMb).toBeLessThan(150)
    }))
})
