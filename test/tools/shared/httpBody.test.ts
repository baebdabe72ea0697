import { describe, expect, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Option } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpClient from "effect/http/HttpClient"
import { Transform } from "node:stream"
import * as Zlib from "node:zlib"
import {
  BodyTooLarge,
  discardBody,
  formatBytes,
  HTTP_BODY_MAX_BYTES,
  readBodyCapped,
  readBodyPrefix,
  readTextCapped,
  readTextPrefix
} from "../../../src/tools/shared/httpBody.js"
import { type Produced, repeated, sendStream, sendText, testServer } from "../../helpers/httpServer.js"
import { measureGrowth } from "./memorySampler.js"

const MiB = 1024 * 1024
const GiB = 1024 * MiB
const block = (byte: number) => new Uint8Array(64 * 1024).fill(byte)

/** GETs `origin` with the fetch client. */
const get = (origin: string) => HttpClient.get(origin).pipe(Effect.provide(FetchHttpClient.layer))

/** A Transform that counts the bytes passing through it. */
const counting = (count: Produced) =>
  new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      count.bytes += chunk.length
      callback(null, chunk)
    }
  })

/** Completes when the client closed the connection of the first request before its end. */
const abandoned = (server: { readonly requests: ReadonlyArray<{ readonly abandoned: Deferred.Deferred<void> }> }) =>
  Deferred.await(server.requests[0]!.abandoned).pipe(Effect.timeout("2 seconds"), Effect.result)

// live clock: a real HTTP server on 127.0.0.1 (Node sockets, undici's own timers)
describe("httpBody", () => {
  it.live("reads a body of exactly the cap whole, and one byte more is BodyTooLarge", () =>
    Effect.gen(function*() {
      const server = yield* testServer((request, response) => {
        const size = request.path === "/over" ? MiB + 1 : MiB
        sendStream(response, 200, { "content-type": "application/octet-stream" }, repeated(block(7), size))
      })
      const exact = yield* readBodyCapped(yield* get(`${server.origin}/exact`), MiB)
      expect(exact.length).toBe(MiB)
      expect(exact.every((b) => b === 7)).toBe(true)
      const over = yield* Effect.exit(readBodyCapped(yield* get(`${server.origin}/over`), MiB))
      expect(over).toStrictEqual(Exit.fail(new BodyTooLarge({ maxBytes: MiB })))
      expect(new BodyTooLarge({ maxBytes: MiB }).message).toBe("the answer is larger than 1 MiB")
    }))

  it.live("stops a 600 MB answer at the cap: connection closed, little of it made, memory flat", () =>
    Effect.gen(function*() {
      const produced: Produced = { bytes: 0 }
      const server = yield* testServer((_, response) =>
        sendStream(response, 200, { "content-type": "text/plain" }, repeated(block(0x61), 600 * 1000 * 1000, produced))
      )
      const started = Date.now()
      const [prefix, growth] = yield* measureGrowth(Effect.flatMap(get(server.origin), (r) => readBodyPrefix(r)))
      expect(Date.now() - started).toBeLessThan(2_000)
      expect(prefix.complete).toBe(false)
      expect(prefix.bytes.length).toBe(HTTP_BODY_MAX_BYTES)
      expect((yield* abandoned(server))._tag).toBe("Success")
      expect(produced.bytes).toBeLessThan(64 * MiB)
      expect(growth.rssMb).toBeLessThan(100)
      expect(growth.heapMb).toBeLessThan(100)
    }))

  it.live("counts a gzip bomb (2 GiB of zeros) after decompression and stops it at the cap", () =>
    Effect.gen(function*() {
      const produced: Produced = { bytes: 0 }
      const wire: Produced = { bytes: 0 }
      const server = yield* testServer((_, response) =>
        sendStream(
          response,
          200,
          { "content-type": "application/json", "content-encoding": "gzip" },
          repeated(block(0), 2 * GiB, produced),
          Zlib.createGzip({ level: 9 }),
          counting(wire)
        )
      )
      const [prefix, growth] = yield* measureGrowth(Effect.flatMap(get(server.origin), (r) => readBodyPrefix(r)))
      // what was counted is the inflated body: 1 MiB of zeros, from a few KiB on the wire
      expect(prefix.complete).toBe(false)
      expect(prefix.bytes.length).toBe(MiB)
      expect(prefix.bytes.every((b) => b === 0)).toBe(true)
      expect(wire.bytes).toBeLessThan(MiB / 8)
      expect((yield* abandoned(server))._tag).toBe("Success")
      expect(produced.bytes).toBeLessThan(256 * MiB)
      expect(growth.rssMb).toBeLessThan(100)
      expect(growth.heapMb).toBeLessThan(100)
    }))

  it.live("a gzip body small on the wire but over the cap inflated is too large; a larger cap reads it", () =>
    Effect.gen(function*() {
      const compressed = Zlib.gzipSync(new Uint8Array(2 * MiB).fill(0x20))
      expect(compressed.length).toBeLessThan(16 * 1024)
      const server = yield* testServer((_, response) => {
        response.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" })
        response.end(compressed)
      })
      const over = yield* Effect.exit(readBodyCapped(yield* get(server.origin), MiB))
      expect(over).toStrictEqual(Exit.fail(new BodyTooLarge({ maxBytes: MiB })))
      const whole = yield* readTextCapped(yield* get(server.origin), 4 * MiB)
      expect(whole).toBe(" ".repeat(2 * MiB))
    }))

  it.live("an empty body and a 204 read as empty and complete", () =>
    Effect.gen(function*() {
      const server = yield* testServer((request, response) => {
        if (request.path === "/none") {
          response.writeHead(204)
          response.end()
        } else {
          sendText(response, 200, "")
        }
      })
      const empty = yield* readBodyPrefix(yield* get(`${server.origin}/empty`), MiB)
      expect(empty).toStrictEqual({ bytes: new Uint8Array(0), complete: true })
      const none = yield* readBodyPrefix(yield* get(`${server.origin}/none`), MiB)
      expect(none).toStrictEqual({ bytes: new Uint8Array(0), complete: true })
    }))

  it.live("readTextPrefix decodes UTF-8 up to the cap and says whether it was all", () =>
    Effect.gen(function*() {
      const server = yield* testServer((_, response) => sendText(response, 500, "héllo wörld"))
      const all = yield* readTextPrefix(yield* get(server.origin), 1024)
      expect(all).toStrictEqual({ text: "héllo wörld", complete: true })
      // 6 bytes: "h", "é" (2 bytes), "llo"
      const cut = yield* readTextPrefix(yield* get(server.origin), 6)
      expect(cut).toStrictEqual({ text: "héllo", complete: false })
    }))

  it.live("discardBody closes the connection of a body nobody reads", () =>
    Effect.gen(function*() {
      const produced: Produced = { bytes: 0 }
      const server = yield* testServer((_, response) =>
        sendStream(response, 401, { "content-type": "text/plain" }, repeated(block(0x62), 600 * 1000 * 1000, produced))
      )
      yield* discardBody(yield* get(server.origin))
      expect((yield* abandoned(server))._tag).toBe("Success")
      expect(produced.bytes).toBeLessThan(64 * MiB)
    }))

  it.effect("formatBytes names whole MiB and KiB", () =>
    Effect.sync(() => {
      expect(formatBytes(MiB)).toBe("1 MiB")
      expect(formatBytes(16 * 1024)).toBe("16 KiB")
      expect(formatBytes(1000)).toBe("1000 bytes")
      // the edges: exactly one unit, a multiple of the smaller unit only, zero, one byte past
      expect(formatBytes(1024)).toBe("1 KiB")
      expect(formatBytes(3 * MiB)).toBe("3 MiB")
      expect(formatBytes(1536 * 1024)).toBe("1536 KiB")
      expect(formatBytes(MiB + 1)).toBe(`${MiB + 1} bytes`)
      expect(formatBytes(1025)).toBe("1025 bytes")
      expect(formatBytes(0)).toBe("0 bytes")
    }))

  it.live("a body that breaks off mid-way is the client's error, not a short body", () =>
    Effect.gen(function*() {
      const server = yield* testServer((_, response) => {
        // promises 1 MiB, sends 64 KiB, then drops the connection
        response.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(MiB) })
        response.write(block(1), () => response.socket?.destroy())
      })
      const cut = yield* Effect.exit(readBodyPrefix(yield* get(server.origin), MiB))
      expect(Exit.isFailure(cut) && Cause.findErrorOption(cut.cause).pipe(Option.map((e) => [e._tag, e.reason._tag]))).toEqual(
        // Effect 3's ResponseError (reason Decode) is Effect 4's HttpClientError, its reason a DecodeError
        Option.some(["HttpClientError", "DecodeError"])
      )
    }))
})
