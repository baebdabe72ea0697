/**
 * `read_pdf` through the real executor, over real PDFs in a temp workspace: page headers,
 * a first page over `max_chars` in a 300-page document, encryption, image-only pages, damaged
 * and non-PDF input, a missing file in a workspace at /, a workspace escape, a parser failure,
 * a worker out of memory, a closed pool. (On Effect 4:
 * `Cause.hasDies`/`Cause.findDefect` for `isDie`/`dieOption`.) The proofs that read
 * many pages, run calls at once, start several workers or feed the parser a FlateDecode bomb
 * (passes by max_pages and by max_chars, the default max_chars, concurrent calls, the timeouts
 * that must kill the parsing worker, the memory cap) are in `readPdf.slow.test.ts`.
 */
import { describe, expect, it } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Cause, Effect, Exit, Result, Scope } from "effect"
import { PathTraversalError } from "../../../src/domain/errors.js"
import type { PdfWorkersService } from "../../../src/services/PdfWorkers.js"
import { makePdfWorkerPool, PdfWorkerError } from "../../../src/layers/PdfWorkers.js"
import { READ_PDF_MAX_BYTES, READ_PDF_MEMORY_LIMIT_MB, readPdf } from "../../../src/tools/builtin/readPdf.js"
import { pageMarker } from "./pdfFixtures.js"
import { body, headers, readPdfCall, readPdfWorkspace, text, withPool } from "./readPdfHarness.js"

const { call, callShared } = readPdfWorkspace()

describe("read_pdf", () => {

  it.effect("marks a page without text among pages with text", () =>
    Effect.gen(function*() {
      const out = text((yield* callShared({ filepath: "mixed.pdf" })).output)
      expect(out).toContain("--- Page 2 ---\n[no extractable text on this page]\n")
      expect(out).toContain("Words on the third page")
    }))

  it.effect("cuts a first page that alone is over max_chars, and says so", () =>
    Effect.gen(function*() {
      const out = text((yield* callShared({ filepath: "long.pdf", start_page: 7, max_chars: 120 })).output)
      expect(headers(out)).toEqual([7])
      expect(out).toContain(pageMarker(7))
      expect(body(out).length).toBeLessThanOrEqual(125)
      expect(out).toContain("[Page 7 of 300 was cut at max_chars=120; pass a larger max_chars")
      expect(out).toContain("Continue with start_page=8.]")
    }))

  it.effect("opens a PDF encrypted with an empty user password", () =>
    Effect.gen(function*() {
      const r = yield* callShared({ filepath: "encrypted-empty-password.pdf" })
      expect(r.success).toBe(true)
      const out = text(r.output)
      expect(out).toContain("--- Page 1 ---\nEncrypted page one says hello")
      expect(out).toContain("--- Page 2 ---\nEncrypted page two says goodbye")
    }))

  it.effect("refuses a PDF that needs a real password, clearly", () =>
    Effect.gen(function*() {
      const r = yield* callShared({ filepath: "encrypted-needs-password.pdf" })
      expect(r.success).toBe(false)
      expect(r.errorCode).toBe("TOOL_ERROR")
      expect(r.error).toBe(
        "\"encrypted-needs-password.pdf\" is encrypted and needs a password (the empty password does not open it); " +
          "read_pdf cannot read password-protected PDFs"
      )
    }))

  it.effect("answers 'no extractable text, no OCR' for image-only pages", () =>
    Effect.gen(function*() {
      const r = yield* callShared({ filepath: "images.pdf" })
      expect(r.success).toBe(true)
      expect(text(r.output)).toBe(
        "\"images.pdf\": no extractable text, no OCR: pages 1-2 of 2 have no text layer (scanned or image-only pages)."
      )
    }))

  // its calls share the file's worker pool: a pool of its own for each would start a worker for each PDF parsed
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
        const r = yield* callShared({ filepath: file })
        expect(r.success, file).toBe(false)
        expect(r.errorCode, file).toBe("TOOL_ERROR")
        expect(r.error, file).toContain(message)
        expect(r.durationMs, file).toBeLessThan(5000)
      }
    }))

  // its calls share the file's worker pool: a pool of its own for each would start a worker each time
  it.effect("fails clearly when start_page is past the last page", () =>
    Effect.gen(function*() {
      const r = yield* callShared({ filepath: "three.pdf", start_page: 4 })
      expect(r.errorCode).toBe("TOOL_ERROR")
      expect(r.error).toContain("start_page=4 is past the end of \"three.pdf\", which has 3 pages")
      const one = yield* callShared({ filepath: "one.pdf", start_page: 2 })
      expect(one.error).toBe("start_page=2 is past the end of \"one.pdf\", which has 1 page")
      // the last page is not past the end
      const last = yield* callShared({ filepath: "three.pdf", start_page: 3 })
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

  it.effect("a missing file is named by its workspace path also where the workspace is /", () =>
    Effect.gen(function*() {
      const r = yield* readPdfCall("/")({ filepath: "tmp/no-such-dir-of-read-pdf/missing.pdf" })
      expect(r.errorCode).toBe("TOOL_ERROR")
      expect(r.error).toBe("\"tmp/no-such-dir-of-read-pdf/missing.pdf\" does not exist")
    }))

  it.effect("a worker out of memory is the tool's memory limit, MEMORY_LIMIT", () =>
    Effect.gen(function*() {
      const outOfMemory = new PdfWorkerError({ reason: "out-of-memory", message: "the PDF worker ran out of memory" })
      const exhausted: PdfWorkersService = {
        borrow: () => Effect.fail(outOfMemory),
        request: () => Effect.fail(outOfMemory),
        stats: Effect.die("not asked")
      }
      const r = yield* call({ filepath: "three.pdf" }, readPdf, exhausted)
      expect(r.errorCode).toBe("MEMORY_LIMIT")
      expect(r.error).toBe(`Tool "read_pdf" exceeded its memory limit of ${READ_PDF_MEMORY_LIMIT_MB} MB`)
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
        expect(Cause.hasDies(exit.cause)).toBe(true)
        expect(Result.getOrNull(Cause.findDefect(exit.cause))).toBeInstanceOf(PathTraversalError)
      }
    }))

  it.effect("closing the pool's scope ends every worker it started", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const pool = yield* makePdfWorkerPool().pipe(Scope.provide(scope))
      expect((yield* pool.stats).live).toBe(0) // nothing starts before the first request
      yield* call({ filepath: "three.pdf" }, undefined, pool)
      expect((yield* pool.stats).idle).toBeGreaterThan(0)
      yield* Scope.close(scope, Exit.void)
      expect(yield* pool.stats).toMatchObject({ live: 0, idle: 0, busy: 0 })
    }).pipe(Effect.provide(NodeServices.layer)))
})
