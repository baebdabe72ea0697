/**
 * `read_pdf` through the real executor, over real PDFs in a temp workspace: page headers,
 * passes over a 300-page document, `max_chars`, encryption, image-only pages, damaged and
 * non-PDF input, a workspace escape, a timeout that must kill the parsing worker, and a
 * FlateDecode bomb that must hit the memory cap.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { NodeContext } from "@effect/platform-node"
import { Cause, Duration, Effect, Exit, Layer, Option, Scope } from "effect"
import * as ChildProcess from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { PathTraversalError } from "../../../src/domain/errors.js"
import { PdfWorkers, type PdfWorkersService, type Tool, type ToolServices, ToolSystem, Workspace } from "../../../src/index.js"
import { makePdfWorkerPool } from "../../../src/tools/builtin/pdf/workerPool.js"
import { makeReadPdf, READ_PDF_MAX_BYTES, readPdf } from "../../../src/tools/builtin/readPdf.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"
import { flateBombPdf, imageOnlyPdf, longPdf, pageMarker, textPdf } from "./pdfFixtures.js"

const base = makeTempDirSync("read-pdf-")
const ws = path.join(base, "ws")
const FIXTURES = path.join(import.meta.dirname, "..", "..", "fixtures", "pdf")

const system = (tool: Tool.Tool<ToolServices> = readPdf, pool?: PdfWorkersService) =>
  ToolSystem.layerNode({
    builtins: false,
    tools: [tool],
    workspace: Workspace.layerFixed(ws),
    ...(pool === undefined ? {} : { pdfWorkers: Layer.succeed(PdfWorkers, pool) })
  })

/** One call in a fresh system; with `pool`, the system parses in that (shared) worker pool. */
const call = (args: Record<string, unknown>, tool?: Tool.Tool<ToolServices>, pool?: PdfWorkersService) =>
  Effect.gen(function*() {
    const ts = yield* ToolSystem
    return yield* ts.execute("read_pdf", args)
  }).pipe(Effect.provide(system(tool, pool)))

/** Runs `body` with one worker pool shared by its calls, closed (every worker ended) afterwards. */
const withPool = <A, E>(body: (pool: PdfWorkersService) => Effect.Effect<A, E>) =>
  Effect.flatMap(makePdfWorkerPool(), body).pipe(Effect.scoped, Effect.provide(NodeContext.layer))

const text = (output: unknown): string => {
  expect(typeof output).toBe("string")
  return String(output)
}

/** The page numbers of the `--- Page N ---` headers, in order. */
const headers = (output: string): Array<number> =>
  [...output.matchAll(/^--- Page (\d+) ---$/gm)].map((m) => Number(m[1]))

/** The body of an answer: everything before the closing `[...]` note. */
const body = (output: string): string => output.slice(0, output.lastIndexOf("\n["))

const write = (name: string, data: Uint8Array | string) => fs.writeFileSync(path.join(ws, name), data)

beforeAll(async () => {
  fs.mkdirSync(ws, { recursive: true })
  fs.mkdirSync(path.join(base, "outside"), { recursive: true })
  const three = await textPdf([["Hello page one", "second line"], ["Page two text"], ["Third page, café ünïcode"]])
  write("three.pdf", three)
  write("long.pdf", await longPdf(300))
  write("thirty.pdf", await longPdf(30))
  write("images.pdf", await imageOnlyPdf(2))
  write("mixed.pdf", await textPdf([["Words on the first page"], [], ["Words on the third page"]]))
  write("truncated.pdf", three.slice(0, Math.floor(three.length * 0.6)))
  write("garbage.pdf", Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(4096, 0xa7)]))
  write("notes.txt", "just some text, not a PDF\n")
  // readers look for the header in the first KiB only
  write("late-header.pdf", Buffer.concat([Buffer.alloc(1500, 0x20), three]))
  write("empty.pdf", "")
  write("one.pdf", await textPdf([["Only page"]]))
  fs.mkdirSync(path.join(ws, "folder.pdf"))
  ChildProcess.execFileSync("mkfifo", [path.join(ws, "pipe.pdf")])
  write("huge.pdf", "%PDF-1.7\n")
  fs.truncateSync(path.join(ws, "huge.pdf"), READ_PDF_MAX_BYTES + 1)
  write("bomb.pdf", await flateBombPdf(1024))
  for (const name of ["encrypted-empty-password.pdf", "encrypted-needs-password.pdf"]) {
    fs.copyFileSync(path.join(FIXTURES, name), path.join(ws, name))
  }
  fs.writeFileSync(path.join(base, "outside", "secret.pdf"), three)
})

afterAll(() => fs.rmSync(base, { recursive: true, force: true }))

describe("read_pdf", () => {
  it.effect("reads every page under its numbered header", () =>
    Effect.gen(function*() {
      const r = yield* call({ filepath: "three.pdf" })
      expect(r.success).toBe(true)
      const out = text(r.output)
      expect(headers(out)).toEqual([1, 2, 3])
      expect(out).toContain("--- Page 1 ---\nHello page one\nsecond line\n")
      expect(out).toContain("--- Page 2 ---\nPage two text\n")
      expect(out).toContain("--- Page 3 ---\nThird page, café ünïcode\n")
      expect(out.endsWith("[End of document: pages 1-3 of 3.]")).toBe(true)
    }))

  it.effect("marks a page without text among pages with text", () =>
    Effect.gen(function*() {
      const out = text((yield* call({ filepath: "mixed.pdf" })).output)
      expect(out).toContain("--- Page 2 ---\n[no extractable text on this page]\n")
      expect(out).toContain("Words on the third page")
    }))

  // the passes share one worker pool, as an application's calls do: a pool of its own for each
  // pass would start a worker and load pdf.js again each time
  it.effect("stops at max_pages, names start_page and the page count, and the next pass continues", () =>
    withPool((pool) => Effect.gen(function*() {
      const first = text((yield* call({ filepath: "long.pdf", max_pages: 40, max_chars: 1_000_000 }, undefined, pool)).output)
      expect(headers(first)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1))
      expect(first).toContain(pageMarker(40))
      expect(first).not.toContain(pageMarker(41))
      expect(first).toContain("[Truncated at max_pages=40: showing pages 1-40 of 300. Continue with start_page=41.]")

      const second = text((yield* call({ filepath: "long.pdf", start_page: 41, max_pages: 40, max_chars: 1_000_000 }, undefined, pool))
        .output)
      expect(headers(second)).toEqual(Array.from({ length: 40 }, (_, i) => i + 41))
      expect(second).toContain(pageMarker(41))
      expect(second).toContain("start_page=81")

      const last = text((yield* call({ filepath: "long.pdf", start_page: 281, max_pages: 40, max_chars: 1_000_000 }, undefined, pool))
        .output)
      expect(headers(last)).toEqual(Array.from({ length: 20 }, (_, i) => i + 281))
      expect(last.endsWith("[End of document: pages 281-300 of 300.]")).toBe(true)
    })))

  it.effect("stops between pages at max_chars; passes from the named start_page cover every page once", () =>
    withPool((pool) => Effect.gen(function*() {
      const seen: Array<number> = []
      let start = 1
      for (let pass = 0; pass < 40; pass++) {
        const r = yield* call({ filepath: "thirty.pdf", start_page: start, max_chars: 7000 }, undefined, pool)
        expect(r.success).toBe(true)
        const out = text(r.output)
        expect(body(out).length).toBeLessThanOrEqual(7000)
        const pages = headers(out)
        expect(pages.length).toBeGreaterThan(0)
        for (const p of pages) expect(out).toContain(pageMarker(p))
        seen.push(...pages)
        const next = /Continue with start_page=(\d+)\.\]$/.exec(out)
        if (next === null) {
          expect(out.endsWith(`of 30.]`)).toBe(true)
          expect(out).toContain("[End of document:")
          break
        }
        expect(out).toContain(`[Truncated at max_chars=7000: showing pages ${start}-${pages.at(-1)} of 30.`)
        expect(Number(next[1])).toBe((pages.at(-1) ?? 0) + 1)
        start = Number(next[1])
      }
      expect(seen).toEqual(Array.from({ length: 30 }, (_, i) => i + 1))
    })))

  it.effect("with the defaults, stops at 20000 characters", () =>
    Effect.gen(function*() {
      const out = text((yield* call({ filepath: "long.pdf" })).output)
      const pages = headers(out)
      expect(body(out).length).toBeLessThanOrEqual(20000)
      expect(pages.length).toBeGreaterThan(1)
      expect(pages.length).toBeLessThan(40)
      expect(out).toContain(`[Truncated at max_chars=20000: showing pages 1-${pages.at(-1)} of 300.`)
    }))

  it.effect("cuts a first page that alone is over max_chars, and says so", () =>
    Effect.gen(function*() {
      const out = text((yield* call({ filepath: "long.pdf", start_page: 7, max_chars: 120 })).output)
      expect(headers(out)).toEqual([7])
      expect(out).toContain(pageMarker(7))
      expect(body(out).length).toBeLessThanOrEqual(125)
      expect(out).toContain("[Page 7 of 300 was cut at max_chars=120; pass a larger max_chars")
      expect(out).toContain("Continue with start_page=8.]")
    }))

  it.effect("opens a PDF encrypted with an empty user password", () =>
    Effect.gen(function*() {
      const r = yield* call({ filepath: "encrypted-empty-password.pdf" })
      expect(r.success).toBe(true)
      const out = text(r.output)
      expect(out).toContain("--- Page 1 ---\nEncrypted page one says hello")
      expect(out).toContain("--- Page 2 ---\nEncrypted page two says goodbye")
    }))

  it.effect("refuses a PDF that needs a real password, clearly", () =>
    Effect.gen(function*() {
      const r = yield* call({ filepath: "encrypted-needs-password.pdf" })
      expect(r.success).toBe(false)
      expect(r.errorCode).toBe("TOOL_ERROR")
      expect(r.error).toBe(
        "\"encrypted-needs-password.pdf\" is encrypted and needs a password (the empty password does not open it); " +
          "read_pdf cannot read password-protected PDFs"
      )
    }))

  it.effect("answers 'no extractable text, no OCR' for image-only pages", () =>
    Effect.gen(function*() {
      const r = yield* call({ filepath: "images.pdf" })
      expect(r.success).toBe(true)
      expect(text(r.output)).toBe(
        "\"images.pdf\": no extractable text, no OCR: pages 1-2 of 2 have no text layer (scanned or image-only pages)."
      )
    }))

  it.effect("fails clearly and fast on damaged, empty and non-PDF files", () =>
    Effect.gen(function*() {
      const cases = [
        ["truncated.pdf", "\"truncated.pdf\" is not a valid PDF or is damaged"],
        ["garbage.pdf", "\"garbage.pdf\" is not a valid PDF or is damaged"],
        ["notes.txt", "\"notes.txt\" is not a PDF (no %PDF- header)"],
        ["late-header.pdf", "\"late-header.pdf\" is not a PDF (no %PDF- header)"],
        ["empty.pdf", "\"empty.pdf\" is empty, not a PDF"],
        ["missing.pdf", "\"missing.pdf\" does not exist"]
      ] as const
      for (const [file, message] of cases) {
        const r = yield* call({ filepath: file })
        expect(r.success, file).toBe(false)
        expect(r.errorCode, file).toBe("TOOL_ERROR")
        expect(r.error, file).toContain(message)
        expect(r.durationMs, file).toBeLessThan(5000)
      }
    }))

  it.effect("fails clearly when start_page is past the last page", () =>
    Effect.gen(function*() {
      const r = yield* call({ filepath: "three.pdf", start_page: 4 })
      expect(r.errorCode).toBe("TOOL_ERROR")
      expect(r.error).toContain("start_page=4 is past the end of \"three.pdf\", which has 3 pages")
      const one = yield* call({ filepath: "one.pdf", start_page: 2 })
      expect(one.error).toBe("start_page=2 is past the end of \"one.pdf\", which has 1 page")
      // the last page is not past the end
      const last = yield* call({ filepath: "three.pdf", start_page: 3 })
      expect(headers(text(last.output))).toEqual([3])
    }))

  it.effect("refuses a directory, a FIFO and a file over the size limit before reading any", () =>
    Effect.gen(function*() {
      const dir = yield* call({ filepath: "folder.pdf" })
      expect(dir.error).toBe("\"folder.pdf\" is a directory, not a regular file")
      // a FIFO is refused when opened, not waited on
      const fifo = yield* call({ filepath: "pipe.pdf" })
      expect(fifo.error).toBe("\"pipe.pdf\" is a FIFO, not a regular file")
      // sparse: nothing of it is read
      const huge = yield* call({ filepath: "huge.pdf" })
      expect(huge.error).toBe(`"huge.pdf" is ${READ_PDF_MAX_BYTES + 1} bytes, over the ${READ_PDF_MAX_BYTES}-byte limit`)
    }))

  it.effect("a missing file and a path through a file are named as such, not as a directory", () =>
    Effect.gen(function*() {
      const missing = yield* call({ filepath: "missing.pdf" })
      expect(missing.error).toBe("\"missing.pdf\" does not exist")
      const through = yield* call({ filepath: "notes.txt/inner.pdf" })
      expect(through.errorCode).toBe("TOOL_ERROR")
      expect(through.error).toBe("\"notes.txt/inner.pdf\" is not a directory")
    }))

  it.effect("a parser failure that is not about the PDF says it could not read the file, with the parser's message", () =>
    withPool((pool) =>
      Effect.gen(function*() {
        const failing: PdfWorkersService = {
          ...pool,
          request: (worker, message) =>
            message._tag === "Open"
              ? Effect.succeed({ _tag: "Failed", reason: "error", message: "Unknown failure in the parser" } as const)
              : pool.request(worker, message)
        }
        const r = yield* call({ filepath: "three.pdf" }, readPdf, failing)
        expect(r.errorCode).toBe("TOOL_ERROR")
        expect(r.error).toBe("could not read \"three.pdf\": Unknown failure in the parser")
      })
    ))

  it.effect("validates its arguments", () =>
    Effect.gen(function*() {
      const r = yield* call({ filepath: "three.pdf", start_page: 0, max_pages: 1.5 })
      expect(r.errorCode).toBe("INVALID_ARGUMENTS")
      expect(r.error).toContain("start_page")
      expect(r.error).toContain("max_pages")
    }))

  it.effect("dies with PathTraversalError for a path outside the workspace", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(call({ filepath: "../outside/secret.pdf" }))
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) {
        expect(Cause.isDie(exit.cause)).toBe(true)
        expect(Option.getOrNull(Cause.dieOption(exit.cause))).toBeInstanceOf(PathTraversalError)
      }
    }))

  it.effect("serves concurrent calls without mixing them up", () =>
    withPool((pool) => Effect.gen(function*() {
      const starts = [3, 100, 250]
      const results = yield* Effect.all(
        starts.map((s) => call({ filepath: "long.pdf", start_page: s, max_pages: 2, max_chars: 100_000 }, undefined, pool)),
        { concurrency: "unbounded" }
      )
      results.forEach((r, i) => {
        const s = starts[i] ?? 0
        expect(headers(text(r.output))).toEqual([s, s + 1])
        expect(text(r.output)).toContain(pageMarker(s + 1))
      })
      expect((yield* pool.stats).busy).toBe(0)
    })))

  it.effect("closing the pool's scope ends every worker it started", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const pool = yield* makePdfWorkerPool().pipe(Scope.extend(scope))
      expect((yield* pool.stats).live).toBe(0) // nothing starts before the first request
      yield* call({ filepath: "three.pdf" }, undefined, pool)
      expect((yield* pool.stats).idle).toBeGreaterThan(0)
      yield* Scope.close(scope, Exit.void)
      expect(yield* pool.stats).toMatchObject({ live: 0, idle: 0, busy: 0 })
    }).pipe(Effect.provide(NodeContext.layer)))

  // the tool's timeout follows the fiber's Clock: these run on the live one
  it.live("on timeout, answers TIMEOUT and terminates the parsing worker", () =>
    withPool((pool) => Effect.gen(function*() {
      yield* call({ filepath: "three.pdf" }, undefined, pool) // a warm worker is waiting in the pool
      const before = yield* pool.stats
      expect(before.idle).toBeGreaterThan(0)
      const hasty = makeReadPdf({ timeout: Duration.millis(150) })
      const r = yield* call({ filepath: "long.pdf", max_pages: 300, max_chars: 10_000_000 }, hasty, pool)
      expect(r.errorCode).toBe("TIMEOUT")
      const after = yield* pool.stats
      expect(after.busy).toBe(0)
      expect(after.live).toBe(after.idle)
      // every worker this call started is gone, and so is the warm one it took from the pool
      expect(after.exited - before.exited).toBeGreaterThan(after.spawned - before.spawned)
      // the pool recovers: the next call gets a working worker
      const again = yield* call({ filepath: "three.pdf", max_pages: 1 }, undefined, pool)
      expect(headers(text(again.output))).toEqual([1])
    })))

  it.live("on timeout inside one endless page, kills the worker at once", () =>
    withPool((pool) => Effect.gen(function*() {
      yield* call({ filepath: "three.pdf" }, undefined, pool) // the worker script is ready before the clock starts
      const before = yield* pool.stats
      // a 1 GiB content stream: minutes of work in a single page; no memory cap in the way
      const hasty = makeReadPdf({ timeout: Duration.millis(300), memoryLimitMb: 16_384 })
      const r = yield* call({ filepath: "bomb.pdf" }, hasty, pool)
      expect(r.errorCode).toBe("TIMEOUT")
      expect(r.durationMs).toBeLessThan(1500) // terminated, not waited for
      const after = yield* pool.stats
      expect(after.busy).toBe(0)
      expect(after.live).toBe(after.idle)
      expect(after.exited - before.exited).toBeGreaterThanOrEqual(after.spawned - before.spawned)
      expect(after.spawned - before.spawned).toBe(1) // its own limit: a fresh worker, now gone
    })))

  it.effect("ends a FlateDecode bomb at the memory cap: MEMORY_LIMIT", () =>
    withPool((pool) => Effect.gen(function*() {
      yield* call({ filepath: "three.pdf" }, undefined, pool) // the worker script is ready before the clock starts
      const capped = makeReadPdf({ memoryLimitMb: 128 })
      const r = yield* call({ filepath: "bomb.pdf" }, capped, pool)
      expect(r.errorCode).toBe("MEMORY_LIMIT")
      expect(r.error).toBe("Tool \"read_pdf\" exceeded its memory limit of 128 MB")
      expect((yield* pool.stats).busy).toBe(0)
    })), 60_000)

  it.live("two reads at once may each take their memory limit: the process grows past one limit before they end", () =>
    withPool((pool) => Effect.gen(function*() {
      yield* call({ filepath: "three.pdf" }, undefined, pool) // the worker script is ready before the bombs start
      const capped = makeReadPdf({ memoryLimitMb: 128 })
      const before = process.memoryUsage.rss()
      let grown = 0
      const sampler = setInterval(() => (grown = Math.max(grown, process.memoryUsage.rss() - before)), 5)
      const results = yield* Effect.all([call({ filepath: "bomb.pdf" }, capped, pool), call({ filepath: "bomb.pdf" }, capped, pool)], {
        concurrency: "unbounded"
      }).pipe(Effect.ensuring(Effect.sync(() => clearInterval(sampler))))
      expect(results.map((r) => r.errorCode)).toEqual(["MEMORY_LIMIT", "MEMORY_LIMIT"])
      // the watchdog allows the limit per busy worker, so neither read is ended before the process has grown by
      // 2 × 128 MB (seen: 268 to 334 MB); were one limit shared by both, they would end near one limit plus the time
      // terminating takes (seen: 195 to 212 MB)
      expect(grown / (1024 * 1024)).toBeGreaterThan(1.9 * 128)
      expect((yield* pool.stats).busy).toBe(0)
    })), 60_000)
})
