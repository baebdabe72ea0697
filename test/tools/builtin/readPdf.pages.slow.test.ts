/**
 * The tests of `readPdf.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet machine:
 * real processes, worker starts, large inputs), kept in the slow lane so that the fast lane's
 * tests stay well under its 1 s CPU bound even on a loaded machine.
 *
 * `read_pdf` through the real executor, over real PDFs in a temp workspace: page headers,
 * a first page over `max_chars` in a 300-page document, encryption, image-only pages, damaged
 * and non-PDF input, a workspace escape, a parser failure, a closed pool. The proofs that read
 * many pages, run calls at once, start several workers or feed the parser a FlateDecode bomb
 * (passes by max_pages and by max_chars, the default max_chars, concurrent calls, the timeouts
 * that must kill the parsing worker, the memory cap) are in `readPdf.slow.test.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { NodeContext } from "@effect/platform-node"
import { Effect, Exit, Scope } from "effect"
import * as ChildProcess from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import type { PdfWorkersService } from "../../../src/index.js"
import { makePdfWorkerPool } from "../../../src/tools/builtin/pdf/workerPool.js"
import { READ_PDF_MAX_BYTES, READ_PDF_MEMORY_LIMIT_MB } from "../../../src/tools/builtin/readPdf.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"
import { imageOnlyPdf, longPdf, textPdf } from "./pdfFixtures.js"
import { prepareWorkerEntry } from "./pdfWorkerEntry.js"
import { headers, readPdfCall, text } from "./readPdfHarness.js"

const base = makeTempDirSync("read-pdf-")
const ws = path.join(base, "ws")
const FIXTURES = path.join(import.meta.dirname, "..", "..", "fixtures", "pdf")

const call = readPdfCall(ws)

/**
 * The pool of the tests that parse one PDF each: a system of their own would start a worker for
 * each (about 0.2 s of CPU); this one starts one in `beforeAll` and keeps it warm. "reads every
 * page…" parses in a fresh system's own pool, the one a user gets.
 */
let shared: PdfWorkersService
const sharedScope = Effect.runSync(Scope.make())

const write = (name: string, data: Uint8Array | string) => fs.writeFileSync(path.join(ws, name), data)

beforeAll(async () => {
  await prepareWorkerEntry() // the process's one-time set-up of PDF workers: no test's
  fs.mkdirSync(ws, { recursive: true })
  fs.mkdirSync(path.join(base, "outside"), { recursive: true })
  const three = await textPdf([["Hello page one", "second line"], ["Page two text"], ["Third page, café ünïcode"]])
  write("three.pdf", three)
  write("long.pdf", await longPdf(300))
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
  for (const name of ["encrypted-empty-password.pdf", "encrypted-needs-password.pdf"]) {
    fs.copyFileSync(path.join(FIXTURES, name), path.join(ws, name))
  }
  fs.writeFileSync(path.join(base, "outside", "secret.pdf"), three)
  shared = await Effect.runPromise(makePdfWorkerPool().pipe(Scope.extend(sharedScope), Effect.provide(NodeContext.layer)))
  await Effect.runPromise(Effect.scoped(Effect.asVoid(shared.borrow(READ_PDF_MEMORY_LIMIT_MB))))
})

afterAll(async () => {
  await Effect.runPromise(Scope.close(sharedScope, Exit.void))
  fs.rmSync(base, { recursive: true, force: true })
})

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
})
