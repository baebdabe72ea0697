/**
 * `read_pdf` where it reads many pages, runs calls at once, starts several workers or meets a
 * FlateDecode bomb: passes of max_pages over a 300-page document, and of max_chars over a
 * 30-page one, each from the start_page the last named, cover every page once; with the
 * defaults it stops at 20,000 characters; concurrent calls are not mixed up; a timeout
 * terminates the parsing workers (and the pool recovers), and one inside an endless page kills
 * the worker at once; a bomb ends at the memory cap, and two reads at once may each take their
 * limit. In the slow lane: about 0.7-5 s of CPU a test, and the 1 GiB bomb alone takes 2 s of
 * CPU to make. The rest of the tool's tests are in `readPdf.test.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeReadPdf } from "../../../src/tools/builtin/readPdf.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"
import { flateBombPdf, longPdf, pageMarker, textPdf } from "./pdfFixtures.js"
import { prepareWorkerEntry } from "./pdfWorkerEntry.js"
import { body, headers, readPdfCall, text, withPool } from "./readPdfHarness.js"

const base = makeTempDirSync("read-pdf-slow-")
const ws = path.join(base, "ws")

const call = readPdfCall(ws)

const write = (name: string, data: Uint8Array | string) => fs.writeFileSync(path.join(ws, name), data)

beforeAll(async () => {
  await prepareWorkerEntry() // the process's one-time set-up of PDF workers: no test's
  fs.mkdirSync(ws, { recursive: true })
  write("three.pdf", await textPdf([["Hello page one", "second line"], ["Page two text"], ["Third page, café ünïcode"]]))
  write("long.pdf", await longPdf(300))
  write("thirty.pdf", await longPdf(30))
  write("bomb.pdf", await flateBombPdf(1024))
})

afterAll(() => fs.rmSync(base, { recursive: true, force: true }))

describe("read_pdf", () => {
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
