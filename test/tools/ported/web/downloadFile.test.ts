import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Option } from "effect"
import { TestClock } from "effect/testing"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Zlib from "node:zlib"
import { type ExecuteOptions, pathTraversalOf, ToolSystem } from "../../../../src/index.js"
import { UrlPolicy } from "../../../../src/services/UrlPolicy.js"
import { downloadFile, makeDownloadFile } from "../../../../src/tools/ported/web/downloadFile.js"
import { repeated, sendStream, sendText, testServer } from "../../../helpers/httpServer.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"
import { countingSleeps, joinUnmoved, sleepersUntil, until } from "../../../helpers/testClock.js"
import { callTool, type WebSystem, webSystem } from "./support.js"

let base: string
let ws: string
let outside: string

beforeAll(() => {
  base = makeTempDirSync("download-file-")
  ws = Path.join(base, "ws")
  outside = Path.join(base, "outside")
  Fs.mkdirSync(ws)
  Fs.mkdirSync(outside)
})

afterAll(() => {
  Fs.rmSync(base, { recursive: true, force: true })
})

const MiB = 1024 * 1024

/** A confirmed call (replacing a file needs confirmation; `confirmSideDoors.test.ts` covers the unconfirmed one). */
const download = (args: unknown, over: Partial<WebSystem> = {}, options: ExecuteOptions = { confirm: true }) =>
  callTool({ dir: ws, tools: [downloadFile], ...over }, "download_file", args, options)

/** Every entry below `dir` (temp files included), relative to it. */
const tree = (dir: string) => Fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).sort()

/** A fresh directory inside the workspace for one test, and its workspace-relative name. */
const fresh = (name: string) => {
  Fs.mkdirSync(Path.join(ws, name))
  return { abs: Path.join(ws, name), rel: name }
}

// live clock (it.live): a real HTTP server on 127.0.0.1 (Node sockets, undici's own timers)
describe("download_file", () => {
  it.live("streams the answer into a new file, creating directories, and says what it saved", () =>
    Effect.gen(function*() {
      const body = Buffer.from(Array.from({ length: 300_000 }, (_, i) => i % 251))
      const server = yield* testServer((_, response) => {
        response.writeHead(200, { "content-type": "application/octet-stream" })
        response.end(body)
      })
      const dir = fresh("new")
      const r = yield* download({ url: `${server.origin}/data.bin`, filepath: "new/sub/data.bin" })
      expect(r.output).toBe(`Downloaded 300000 bytes of application/octet-stream from ${server.origin}/data.bin to new/sub/data.bin`)
      expect(Fs.readFileSync(Path.join(dir.abs, "sub/data.bin")).equals(body)).toBe(true)
      expect(tree(dir.abs)).toEqual(["sub", "sub/data.bin"])
    }))

  it.live("replaces an existing file, keeps its mode, and says so", () =>
    Effect.gen(function*() {
      const server = yield* testServer((_, response) => sendText(response, 200, "new content"))
      const dir = fresh("replace")
      const file = Path.join(dir.abs, "notes.txt")
      Fs.writeFileSync(file, "old")
      Fs.chmodSync(file, 0o640)
      const r = yield* download({ url: server.origin, filepath: `${dir.rel}/notes.txt` })
      expect(r.output).toBe(`Downloaded 11 bytes of text/plain from ${server.origin}/ to replace/notes.txt (overwrote an existing file)`)
      expect(Fs.readFileSync(file, "utf8")).toBe("new content")
      expect(Fs.statSync(file).mode & 0o777).toBe(0o640)
    }))

  it.live("past the size cap (no length declared, or a gzip bomb): an error, no partial file, the old file kept", () =>
    Effect.gen(function*() {
      const server = yield* testServer((request, response) =>
        request.path === "/bomb"
          ? sendStream(
            response,
            200,
            { "content-encoding": "gzip" },
            repeated(new Uint8Array(65_536), 1024 * MiB),
            Zlib.createGzip({ level: 9 })
          )
          : sendStream(response, 200, {}, repeated(new Uint8Array(65_536).fill(7), 5 * MiB))
      )
      const dir = fresh("capped")
      Fs.writeFileSync(Path.join(dir.abs, "keep.bin"), "previous")
      const tool = makeDownloadFile({ maxBytes: MiB })
      for (const path of ["/big", "/bomb"]) {
        const r = yield* download({ url: `${server.origin}${path}`, filepath: `${dir.rel}/keep.bin` }, { tools: [tool] })
        expect(r.error).toBe(`${server.origin}${path} is larger than 1 MiB, the download limit; nothing was saved`)
        expect(r.durationMs).toBeLessThan(5_000)
        expect(tree(dir.abs)).toEqual(["keep.bin"])
        expect(Fs.readFileSync(Path.join(dir.abs, "keep.bin"), "utf8")).toBe("previous")
      }
    }))

  it.live("a declared Content-Length over the cap is refused before reading", () =>
    Effect.gen(function*() {
      const server = yield* testServer((_, response) => {
        response.writeHead(200, { "content-length": String(50 * MiB) })
        response.write(Buffer.alloc(1024))
      })
      const dir = fresh("declared")
      const r = yield* download({ url: server.origin, filepath: `${dir.rel}/x.bin` }, { tools: [makeDownloadFile({ maxBytes: MiB })] })
      expect(r.error).toBe(`${server.origin}/ is larger than 1 MiB, the download limit; nothing was saved`)
      expect(tree(dir.abs)).toEqual([])
    }))

  it.live("a body of exactly the cap is saved, by declared length or streamed, also gzip-encoded past the cap; one byte more is not", () =>
    Effect.gen(function*() {
      const cap = 64 * 1024
      const exact = Buffer.from(Array.from({ length: cap }, (_, i) => (i * 7919) % 256))
      // random bytes do not compress: the encoded body is longer than the cap, the decoded one is not
      const random = Buffer.from(Array.from({ length: cap }, () => Math.floor(Math.random() * 256)))
      const gzipped = Zlib.gzipSync(random)
      expect(gzipped.length).toBeGreaterThan(cap)
      const server = yield* testServer((request, response) => {
        if (request.path === "/gzip") {
          response.writeHead(200, { "content-encoding": "gzip", "content-length": String(gzipped.length) })
          response.end(gzipped)
        } else if (request.path === "/over") {
          response.writeHead(200, { "content-length": String(cap + 1) })
          response.end(Buffer.concat([exact, Buffer.from([1])]))
        } else if (request.path === "/declared") {
          response.writeHead(200, { "content-length": String(cap) })
          response.end(exact)
        } else {
          // written in two parts with no length: sent chunked, counted as it streams
          const body = request.path === "/over-streamed" ? Buffer.concat([exact, Buffer.from([1])]) : exact
          response.writeHead(200, {})
          response.write(body.subarray(0, 1000))
          response.end(body.subarray(1000))
        }
      })
      const tools = [makeDownloadFile({ maxBytes: cap })]
      const dir = fresh("exact")
      for (const name of ["declared", "streamed"]) {
        const r = yield* download({ url: `${server.origin}/${name}`, filepath: `${dir.rel}/${name}.bin` }, { tools })
        expect(r.error, name).toBeNull()
        expect(Fs.readFileSync(Path.join(dir.abs, `${name}.bin`)).equals(exact), name).toBe(true)
      }
      const encoded = yield* download({ url: `${server.origin}/gzip`, filepath: `${dir.rel}/gzip.bin` }, { tools })
      expect(encoded.error).toBeNull()
      expect(Fs.readFileSync(Path.join(dir.abs, "gzip.bin")).equals(random)).toBe(true)
      for (const name of ["over", "over-streamed"]) {
        const over = yield* download({ url: `${server.origin}/${name}`, filepath: `${dir.rel}/${name}.bin` }, { tools })
        expect(over.error, name).toBe(`${server.origin}/${name} is larger than 64 KiB, the download limit; nothing was saved`)
        expect(server.requests.at(-1)?.path).toBe(`/${name}`)
      }
      expect(tree(dir.abs)).toEqual(["declared.bin", "gzip.bin", "streamed.bin"])
    }))

  it.live("says who it is (User-Agent), and a final 300 is an error status like any outside 2xx", () =>
    Effect.gen(function*() {
      const agents: Array<string | undefined> = []
      const server = yield* testServer((request, response) => {
        agents.push(request.headers["user-agent"])
        sendText(response, request.path === "/choices" ? 300 : 200, "body")
      })
      const dir = fresh("agent")
      const ok = yield* download({ url: `${server.origin}/ok`, filepath: `${dir.rel}/ok.txt` })
      expect(ok.error).toBeNull()
      expect(agents[0]).toBe("effect-tool-system")
      const choices = yield* download({ url: `${server.origin}/choices`, filepath: `${dir.rel}/choices.txt` })
      expect(choices.errorCode).toBe("TOOL_ERROR")
      expect(choices.error).toContain("answered HTTP 300")
      expect(tree(dir.abs)).toEqual(["ok.txt"])
    }))

  it.live("a connection that breaks off mid-body leaves no partial file", () =>
    Effect.gen(function*() {
      const server = yield* testServer((_, response) => {
        response.writeHead(200, { "content-length": String(MiB) })
        response.write(Buffer.alloc(200_000, 1), () => response.destroy())
      })
      const dir = fresh("broken")
      const r = yield* download({ url: server.origin, filepath: `${dir.rel}/part.bin` })
      expect(r.errorCode).toBe("TOOL_ERROR")
      expect(r.error).toMatch(new RegExp(`^the download of ${server.origin}/ broke off: .*; nothing was saved$`))
      expect(tree(dir.abs)).toEqual([])
    }))

  // the tool's timeout is the executor's deadline, on the fiber's Clock: moved on the TestClock
  // (under countingSleeps, which sees the sleep) once the download has begun its temp file
  it.effect("a stalled download meets the timeout: no partial file", () =>
    Effect.gen(function*() {
      const server = yield* testServer((_, response) => {
        response.writeHead(200)
        response.write(Buffer.alloc(100_000, 2))
      })
      const dir = fresh("stalled")
      const call = yield* Effect.forkChild(
        download({ url: server.origin, filepath: `${dir.rel}/slow.bin` }, { tools: [makeDownloadFile({ timeout: "700 millis" })] })
      )
      yield* until(() => tree(dir.abs).length > 0, "the download's temp file")
      // downloading at 699 ms of the clock, timed out at 700
      yield* sleepersUntil(700)
      yield* TestClock.adjust(699)
      expect(call.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust(1)
      const r = yield* joinUnmoved(call)
      expect(r.errorCode).toBe("TIMEOUT")
      expect(tree(dir.abs)).toEqual([])
    }).pipe(countingSleeps))

  it.live("an error status saves nothing and shows an excerpt", () =>
    Effect.gen(function*() {
      const server = yield* testServer((_, response) => sendText(response, 403, "forbidden here"))
      const dir = fresh("status")
      const r = yield* download({ url: server.origin, filepath: `${dir.rel}/x` })
      expect(r.error).toBe(`${server.origin}/ answered HTTP 403 Forbidden: forbidden here`)
      expect(tree(dir.abs)).toEqual([])
    }))

  it.live("a path out of the workspace is the PathTraversal defect: nothing is fetched, nothing written outside", () =>
    Effect.gen(function*() {
      const server = yield* testServer((_, response) => sendText(response, 200, "payload"))
      for (const filepath of ["../outside/evil.txt", Path.join(outside, "evil.txt")]) {
        const exit = yield* Effect.exit(download({ url: server.origin, filepath }))
        expect(Exit.isFailure(exit) && Option.isSome(pathTraversalOf(exit.cause)), filepath).toBe(true)
      }
      expect(server.requests).toHaveLength(0)
      expect(tree(outside)).toEqual([])
    }))

  it.live("a symlink to outside as the target's directory is refused by the resolver", () =>
    Effect.gen(function*() {
      const server = yield* testServer((_, response) => sendText(response, 200, "payload"))
      Fs.symlinkSync(outside, Path.join(ws, "link-out"))
      const exit = yield* Effect.exit(download({ url: server.origin, filepath: "link-out/evil.txt" }))
      expect(Exit.isFailure(exit) && Option.isSome(pathTraversalOf(exit.cause))).toBe(true)
      expect(tree(outside)).toEqual([])
    }))

  it.live("a directory at the target is an error; a refused URL saves nothing", () =>
    Effect.gen(function*() {
      const server = yield* testServer((_, response) => sendText(response, 200, "payload"))
      const dir = fresh("targets")
      Fs.mkdirSync(Path.join(dir.abs, "adir"))
      const r = yield* download({ url: server.origin, filepath: `${dir.rel}/adir` })
      expect(r.error).toMatch(/is a directory/)
      const refused = yield* download({ url: server.origin, filepath: `${dir.rel}/x.txt` }, { policy: UrlPolicy.layer })
      expect(refused.error).toBe(`refused ${server.origin}/: 127.0.0.1 is a loopback address, which the URL policy refuses`)
      expect(tree(dir.abs)).toEqual(["adir"])
      expect(server.requests).toHaveLength(1)
    }))
  it.live("an unconfirmed call onto an existing file asks first: nothing is sent, the file is kept", () =>
    Effect.gen(function*() {
      const server = yield* testServer((_, response) => sendText(response, 200, "new content"))
      const dir = fresh("unconfirmed")
      Fs.writeFileSync(Path.join(dir.abs, "notes.txt"), "old")
      const r = yield* download({ url: server.origin, filepath: `${dir.rel}/notes.txt` }, {}, { confirm: false })
      expect(r).toMatchObject({
        success: false,
        errorCode: "CONFIRMATION_REQUIRED",
        confirmed: false,
        error: "Confirmation required: would overwrite unconfirmed/notes.txt"
      })
      expect(server.requests).toHaveLength(0)
      expect(Fs.readFileSync(Path.join(dir.abs, "notes.txt"), "utf8")).toBe("old")
      expect(tree(dir.abs)).toEqual(["notes.txt"])
    }))

  it.live("an unconfirmed call to a path below a file is the write's error, not a question", () =>
    Effect.gen(function*() {
      const server = yield* testServer((_, response) => sendText(response, 200, "payload"))
      const dir = fresh("below-file")
      Fs.writeFileSync(Path.join(dir.abs, "plain.txt"), "a file")
      const r = yield* download({ url: server.origin, filepath: `${dir.rel}/plain.txt/x.bin` }, {}, { confirm: false })
      expect(r.errorCode).toBe("TOOL_ERROR")
      expect(r.error).toBe(`"${dir.rel}/plain.txt" is not a directory`)
      expect(tree(dir.abs)).toEqual(["plain.txt"])
    }))

  it.effect("explain says when it asks for confirmation", () =>
    Effect.gen(function*() {
      const explained = yield* Effect.flatMap(ToolSystem, (tools) =>
        tools.explain("download_file", { url: "http://127.0.0.1:1/", filepath: "x.bin" }))
      expect(explained.gates.find((g) => g.gate === "confirmation")?.reason).toBe(
        "the tool asks for confirmation as it acts, when it would overwrite an existing file; " +
          "then this unconfirmed call ends CONFIRMATION_REQUIRED"
      )
    }).pipe(Effect.provide(webSystem({ dir: ws, tools: [downloadFile] }))))
})
