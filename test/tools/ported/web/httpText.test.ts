/**
 * The web tools' text helpers (`web/http.ts`) as pure functions: status lines, media types,
 * which types are text and HTML, the charset from the header or an HTML page's first KiB,
 * and decoding with an unknown charset. (The web tools cut text with `headOf`, tested in
 * test/tools/shared/outputCap.test.ts.)
 */
import { describe, expect, it } from "@effect/vitest"
import * as HttpClientError from "effect/http/HttpClientError"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import {
  decodeText,
  isHtmlType,
  isTextType,
  looksBinary,
  mediaType,
  requestFailure,
  statusLine
} from "../../../../src/tools/ported/web/http.js"

describe("web text helpers", () => {
  it("status lines with and without a reason phrase", () => {
    expect(statusLine(200)).toBe("200 OK")
    expect(statusLine(404)).toBe("404 Not Found")
    expect(statusLine(299)).toBe("299")
  })

  it("media types: lower case, without parameters; which are text, which HTML", () => {
    expect(mediaType("Text/HTML; charset=UTF-8")).toBe("text/html")
    expect(mediaType(" application/json ")).toBe("application/json")
    expect(mediaType(undefined)).toBe("")
    expect(mediaType("")).toBe("")
    for (const text of ["text/plain", "text/csv", "application/json", "application/ld+json", "application/vnd.api+json", "application/xml", "application/atom+xml", "application/javascript", "application/x-www-form-urlencoded", "application/yaml", "application/toml", "application/graphql", "application/sql", "application/csv", "application/x-sh"]) {
      expect(isTextType(text), text).toBe(true)
    }
    for (const binary of ["", "image/png", "application/octet-stream", "application/pdf", "application/jsonx", "xtext/plain", "application/x-json5", "video/mp4"]) {
      expect(isTextType(binary), binary).toBe(false)
    }
    expect(isHtmlType("text/html")).toBe(true)
    expect(isHtmlType("application/xhtml+xml")).toBe(true)
    expect(isHtmlType("text/plain")).toBe(false)
  })

  it("looksBinary: nothing is not binary; NUL bytes are", () => {
    expect(looksBinary(new Uint8Array())).toBe(false)
    expect(looksBinary(Buffer.from("plain text\n"))).toBe(false)
    expect(looksBinary(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 0, 1, 2, 3]))).toBe(true)
  })

  it("decodes with the header's charset, else an HTML page's meta charset, else UTF-8; an unknown label is UTF-8", () => {
    const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9])
    expect(decodeText(latin1, "text/plain; charset=ISO-8859-1")).toBe("café")
    expect(decodeText(latin1, "text/plain; Charset=\"latin1\"")).toBe("café")
    expect(decodeText(Buffer.from("café"), "text/plain")).toBe("café")
    expect(decodeText(latin1, "text/plain")).toBe("caf\ufffd")
    expect(decodeText(latin1, "text/plain; charset=no-such-charset")).toBe("caf\ufffd")
    const page = Buffer.concat([Buffer.from("<html><head><meta charset=\"windows-1252\"></head><body>"), latin1])
    expect(decodeText(page, "text/html", true)).toContain("café")
    // a meta charset counts only for HTML, and only in the first KiB
    expect(decodeText(page, "text/plain", false)).toContain("caf\ufffd")
    const late = Buffer.concat([Buffer.from(`<html>${" ".repeat(1100)}<meta charset="windows-1252">`), latin1])
    expect(decodeText(late, "text/html", true)).toContain("caf\ufffd")
    // the header wins over the page
    const utf8Page = Buffer.concat([Buffer.from("<meta charset=\"windows-1252\">"), Buffer.from("café")])
    expect(decodeText(utf8Page, "text/html; charset=utf-8", true)).toContain("café")
  })

  it("charset declarations as pages and servers write them: spaces, no quotes, http-equiv; html defaults to false", () => {
    const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9])
    expect(decodeText(latin1, "text/plain;  charset = iso-8859-1")).toBe("café")
    const page = (head: string) => Buffer.concat([Buffer.from(`<html><head>${head}</head><body>`), latin1])
    expect(decodeText(page("<meta charset=windows-1252>"), "text/html", true)).toContain("café")
    expect(decodeText(page("<meta charset = 'windows-1252'>"), "text/html", true)).toContain("café")
    expect(decodeText(page("<META HTTP-EQUIV=\"Content-Type\" CONTENT=\"text/html; charset=windows-1252\">"), "text/html", true))
      .toContain("café")
    // without html = true, a page's own declaration is not read
    expect(decodeText(page("<meta charset=windows-1252>"), "text/html")).toContain("caf\ufffd")
  })
})

describe("requestFailure: why a request failed, from its innermost cause", () => {
  const request = HttpClientRequest.get("http://127.0.0.1:9/x")
  const failure = (cause: unknown) =>
    requestFailure("fetch_url", "http://127.0.0.1:9/x", new HttpClientError.HttpClientError({ reason: new HttpClientError.TransportError({ request, cause }) })).message

  it("the innermost message with text, past causes without one", () => {
    const inner = new Error("connect ECONNREFUSED 127.0.0.1:9")
    const empty = new Error("", { cause: new Error("") })
    expect(failure(new Error("fetch failed", { cause: inner }))).toBe("could not fetch http://127.0.0.1:9/x: connect ECONNREFUSED 127.0.0.1:9")
    expect(failure(new Error("fetch failed", { cause: empty }))).toBe("could not fetch http://127.0.0.1:9/x: fetch failed")
  })

  it("no text anywhere in the chain: the client error's own message", () => {
    expect(failure(new Error(""))).toBe("could not fetch http://127.0.0.1:9/x: Transport error (GET http://127.0.0.1:9/x)")
    expect(failure(undefined)).toBe("could not fetch http://127.0.0.1:9/x: Transport error (GET http://127.0.0.1:9/x)")
  })

  it("a chain of causes that loops, or runs deeper than 8, is followed 8 levels and no further", () => {
    const a = new Error("a")
    const b = new Error("b", { cause: a })
    Object.assign(a, { cause: b })
    expect(failure(a)).toMatch(/^could not fetch http:\/\/127\.0\.0\.1:9\/x: [ab]$/)
    let deep = new Error("level 0")
    for (let i = 1; i <= 20; i++) deep = new Error(`level ${i}`, { cause: deep })
    expect(failure(deep)).toBe("could not fetch http://127.0.0.1:9/x: level 12")
  })
})
