import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect } from "effect"
import { TestClock } from "effect/testing"
import * as Zlib from "node:zlib"
import { UrlPolicy } from "../../../../src/services/UrlPolicy.js"
import { makeFetchUrl } from "../../../../src/tools/ported/web/fetchUrl.js"
import { repeated, sendStream, sendText } from "../../../helpers/httpServer.js"
import { countingSleeps, joinUnmoved, sleepersUntil, until } from "../../../helpers/testClock.js"
import { measureGrowth } from "../../shared/memorySampler.js"
import { fetchWith, serve } from "./fetchUrlHarness.js"
import { loopbackOnlyPolicy } from "./support.js"

const PAGE = `<!doctype html>
<html><head><title>Docs</title><style>body { color: red }</style><script>var hidden = "script text"</script></head>
<body>
<h1>Getting started</h1>
<p>Read the <a href="/guide">guide</a> &amp; the <a href="https://example.com/faq">FAQ</a>.</p>
<script>alert("more script text")</script>
<ul><li>one</li><li>two</li></ul>
<p>Escape: \u001b[31mred\u001b[0m and a bell \u0007.</p>
</body></html>`

// live clock (it.live): a real HTTP server on 127.0.0.1 (Node sockets, undici's own timers)
describe("fetch_url", () => {
  it.live("turns HTML into readable text: headings, absolute links, lists; no script, style or escapes", () =>
    Effect.gen(function*() {
      const server = yield* serve((_, response) => sendText(response, 200, PAGE, "text/html; charset=utf-8"))
      const r = yield* fetchWith({ url: `${server.origin}/docs/page` })
      expect(r.success).toBe(true)
      expect(r.output).toBe(
        `${server.origin}/docs/page — HTTP 200, text/html\n\n` +
          `Getting started\n\nRead the guide [${server.origin}/guide] & the FAQ [https://example.com/faq].\n\n` +
          ` * one\n * two\n\nEscape: red and a bell .`
      )
      expect(server.requests[0]?.method).toBe("GET")
      expect(server.requests[0]?.headers.accept).toMatch(/^text\/html/)
    }))

  it.live("returns JSON and plain text as they are, decoded with the declared or meta charset", () =>
    Effect.gen(function*() {
      const server = yield* serve((request, response) => {
        if (request.path === "/json") return sendText(response, 200, "{\"a\": [1, 2]}", "application/json")
        if (request.path === "/latin1") {
          response.writeHead(200, { "content-type": "text/plain; charset=iso-8859-1" })
          return response.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]))
        }
        response.writeHead(200, { "content-type": "text/html" })
        response.end(Buffer.concat([Buffer.from("<html><head><meta charset=\"windows-1252\"></head><body><p>"), Buffer.from([0xe9, 0x31]), Buffer.from("</p></body></html>")]))
      })
      const json = yield* fetchWith({ url: `${server.origin}/json` })
      expect(json.output).toBe(`${server.origin}/json — HTTP 200, application/json\n\n{"a": [1, 2]}`)
      const latin1 = yield* fetchWith({ url: `${server.origin}/latin1` })
      expect(latin1.output).toBe(`${server.origin}/latin1 — HTTP 200, text/plain\n\ncafé`)
      const meta = yield* fetchWith({ url: `${server.origin}/meta` })
      expect(meta.output).toBe(`${server.origin}/meta — HTTP 200, text/html\n\né1`)
    }))

  it.live("cuts the text at max_chars and says how to read more; max_chars is capped", () =>
    Effect.gen(function*() {
      const text = "0123456789".repeat(10)
      const server = yield* serve((_, response) => sendText(response, 200, text))
      const r = yield* fetchWith({ url: server.origin, max_chars: 25 })
      expect(r.output).toBe(
        `${server.origin}/ — HTTP 200, text/plain\n\n${text.slice(0, 25)}\n\n` +
          "[cut at 25 of 100 characters; call fetch_url again with a larger max_chars (up to 200000) to read more]"
      )
      const all = yield* fetchWith({ url: server.origin, max_chars: 10_000_000 })
      expect(all.output).toBe(`${server.origin}/ — HTTP 200, text/plain\n\n${text}`)
      const invalid = yield* fetchWith({ url: server.origin, max_chars: 0 })
      expect(invalid.errorCode).toBe("INVALID_ARGUMENTS")
    }))

  it.live("refuses binary answers (by type, or by content without a type) and points to download_file", () =>
    Effect.gen(function*() {
      const server = yield* serve((request, response) => {
        if (request.path === "/png") return sendText(response, 200, "\u0089PNG....", "image/png")
        response.writeHead(200)
        response.end(Buffer.from([0, 1, 2, 3, 0, 0, 0, 7, 8, 0, 0, 0]))
      })
      const png = yield* fetchWith({ url: `${server.origin}/png` })
      expect(png.error).toBe(`${server.origin}/png is image/png, not text or HTML: use download_file to save it`)
      const untyped = yield* fetchWith({ url: `${server.origin}/bin` })
      expect(untyped.error).toBe(`${server.origin}/bin answered binary data: use download_file to save it`)
    }))

  it.live("an error status is a TOOL_ERROR with an excerpt of the answer", () =>
    Effect.gen(function*() {
      const server = yield* serve((request, response) =>
        request.path === "/choices" ? sendText(response, 300, "pick one") : sendText(response, 404, "no such\npage")
      )
      const r = yield* fetchWith({ url: `${server.origin}/missing` })
      expect(r.errorCode).toBe("TOOL_ERROR")
      expect(r.error).toBe(`${server.origin}/missing answered HTTP 404 Not Found: no such page`)
      // a final 3xx (no Location to follow) is no page either
      const choices = yield* fetchWith({ url: `${server.origin}/choices` })
      expect(choices.error).toBe(`${server.origin}/choices answered HTTP 300 Multiple Choices: pick one`)
    }))

  it.live("says where a redirect led; a redirect loop and a closed port are TOOL_ERRORs that say why", () =>
    Effect.gen(function*() {
      const server = yield* serve((request, response) => {
        if (request.path === "/old") {
          response.writeHead(301, { location: "/new" })
          return response.end()
        }
        if (request.path.startsWith("/loop")) {
          response.writeHead(302, { location: `/loop${Number(request.path.slice(5) || "0") + 1}` })
          return response.end()
        }
        sendText(response, 200, "moved here")
      })
      const moved = yield* fetchWith({ url: `${server.origin}/old` })
      expect(moved.output).toBe(`${server.origin}/new (redirected from ${server.origin}/old) — HTTP 200, text/plain\n\nmoved here`)
      const loop = yield* fetchWith({ url: `${server.origin}/loop` })
      expect(loop.error).toBe(
        `${server.origin}/loop: more than 5 redirects (the last one to ${server.origin}/loop6 was not followed)`
      )
      // a port nothing listens on: the innermost cause is the message, not undici's "fetch failed"
      const closed = yield* Effect.scoped(Effect.map(serve((_, response) => sendText(response, 200, "")), (s) => s.origin))
      const refused = yield* fetchWith({ url: `${closed}/x` })
      expect(refused.errorCode).toBe("TOOL_ERROR")
      expect(refused.error).toMatch(new RegExp(`^could not fetch ${closed}/x: .*ECONNREFUSED`))
    }))

  it.live("by default, refuses loopback by address and by name; the server sees nothing", () =>
    Effect.gen(function*() {
      const server = yield* serve((_, response) => sendText(response, 200, "internal"))
      const port = new URL(server.origin).port
      const byAddress = yield* fetchWith({ url: `${server.origin}/admin` }, { policy: UrlPolicy.layer })
      expect(byAddress.error).toBe(
        `refused ${server.origin}/admin: 127.0.0.1 is a loopback address, which the URL policy refuses`
      )
      const byName = yield* fetchWith({ url: `http://localhost:${port}/admin` }, { policy: UrlPolicy.layer })
      expect(byName.error).toBe(
        `refused http://localhost:${port}/admin: localhost resolves to 127.0.0.1, a loopback address, which the URL policy refuses`
      )
      // the default rules, over a connector that opens sockets to loopback only (no traffic elsewhere if they broke)
      for (const url of ["http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/", "http://[::1]/"]) {
        const r = yield* fetchWith({ url }, { policy: loopbackOnlyPolicy() })
        expect(r.error, url).toMatch(/^refused .*, which the URL policy refuses$/)
      }
      expect(server.requests).toHaveLength(0)
    }))

  it.live("refuses a redirect from an allowed host to a refused one", () =>
    Effect.gen(function*() {
      const inside = yield* serve((_, response) => sendText(response, 200, "internal"))
      const insidePort = new URL(inside.origin).port
      const allowed = yield* serve((_, response) => {
        response.writeHead(302, { location: `http://localhost:${insidePort}/secret` })
        response.end()
      })
      const policy = UrlPolicy.layerAllowList([`127.0.0.1:${new URL(allowed.origin).port}`])
      const r = yield* fetchWith({ url: `${allowed.origin}/go` }, { policy })
      expect(r.error).toBe(
        `refused http://localhost:${insidePort}/secret (redirected from ${allowed.origin}/go): ` +
          "localhost resolves to 127.0.0.1, a loopback address, which the URL policy refuses"
      )
      expect(inside.requests).toHaveLength(0)
    }))

  it.effect("refuses other schemes and what is not a URL", () =>
    Effect.gen(function*() {
      const file = yield* fetchWith({ url: "file:///etc/passwd" })
      expect(file.error).toBe("refused file:///etc/passwd: file: URLs are refused by the URL policy: only http and https")
      const bad = yield* fetchWith({ url: "example.com/page" })
      expect(bad.error).toBe("\"example.com/page\" is not a valid absolute URL (like https://example.com/page)")
    }))

  it.live("a 64 MiB page is read up to 2 MiB, then the connection is dropped; memory stays flat", () =>
    Effect.gen(function*() {
      const produced = { bytes: 0 }
      const server = yield* serve((_, response) =>
        sendStream(response, 200, { "content-type": "text/plain" }, repeated(Buffer.from("word ".repeat(13_107)), 64 * 1024 * 1024, produced))
      )
      const [r, growth] = yield* measureGrowth(fetchWith({ url: server.origin }))
      expect(r.success).toBe(true)
      expect(String(r.output)).toMatch(
        /\n\n\[only the first 2 MiB of the page were read; cut at 20000 of \d+ characters; call fetch_url again/
      )
      yield* Deferred.await(server.requests[0]!.abandoned).pipe(Effect.timeout("2 seconds"))
      expect(produced.bytes).toBeLessThan(16 * 1024 * 1024)
      expect(growth.heapMb).toBeLessThan(150)
    }))

  it.live("a gzip bomb (1 GiB of text inflated) is cut at 2 MiB, counted after decompression", () =>
    Effect.gen(function*() {
      const server = yield* serve((_, response) =>
        sendStream(
          response,
          200,
          { "content-type": "text/plain", "content-encoding": "gzip" },
          repeated(Buffer.alloc(65_536, "a"), 1024 * 1024 * 1024),
          Zlib.createGzip({ level: 9 })
        )
      )
      const [r, growth] = yield* measureGrowth(fetchWith({ url: server.origin, max_chars: 10 }))
      expect(r.output).toBe(
        `${server.origin}/ — HTTP 200, text/plain\n\naaaaaaaaaa\n\n` +
          `[only the first 2 MiB of the page were read; cut at 10 of ${2 * 1024 * 1024} characters; ` +
          "call fetch_url again with a larger max_chars (up to 200000) to read more]"
      )
      expect(r.durationMs).toBeLessThan(5_000)
      expect(growth.heapMb).toBeLessThan(150)
    }))

  // the tool's timeout is the executor's deadline, on the fiber's Clock: moved on the TestClock
  // (under countingSleeps, which sees the sleep) once the real server has the request
  it.effect("a server that never answers meets the tool's timeout; the request is abandoned", () =>
    Effect.gen(function*() {
      const server = yield* serve(() => undefined)
      const tool = makeFetchUrl({ timeout: "500 millis" })
      const call = yield* Effect.forkChild(fetchWith({ url: server.origin }, { tools: [tool] }))
      yield* until(() => server.requests.length === 1, "the request")
      // waiting at 499 ms of the clock, timed out at 500
      yield* sleepersUntil(500)
      yield* TestClock.adjust(499)
      expect(call.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust(1)
      const r = yield* joinUnmoved(call)
      expect(r.errorCode).toBe("TIMEOUT")
      // and the connection is closed within 2 s of real time
      yield* joinUnmoved(yield* Effect.forkChild(Deferred.await(server.requests[0]!.abandoned)), 2000)
    }).pipe(countingSleeps))
})
