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
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { headers, readPdfWorkspace, text } from "./readPdfHarness.js"

const { call } = readPdfWorkspace()

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
