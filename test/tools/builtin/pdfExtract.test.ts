/**
 * `extractText`, the page scheduler under `read_pdf`, over real PDF workers: which chunks it
 * asks of which worker, where `max_pages` and `max_chars` stop it, and when a second worker
 * joins. `read_pdf`'s own tests see only the formatted answer, which trims to `max_chars`
 * again and so hides a scheduler that reads a page too many or a chunk too few.
 *
 * The pool is the real one; the service handed to `extractText` forwards every request to it
 * and writes down what was asked of which worker.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Scope } from "effect"
import { availableParallelism } from "node:os"
import { PdfWorkers, type PdfWorkersService } from "../../../src/services/PdfWorkers.js"
import { CHUNK_PAGES, extractText, type ExtractOptions, SPLIT_MIN_PAGES } from "../../../src/tools/builtin/pdf/extract.js"
import { pageBlock } from "../../../src/tools/builtin/pdf/format.js"
import type { PooledWorker } from "../../../src/layers/PdfWorkers.js"
import { makePdfWorkerPool } from "../../../src/layers/PdfWorkers.js"
import { longPdf } from "./pdfFixtures.js"
import { prepareWorkerEntry } from "./pdfWorkerEntry.js"

let twenty: Uint8Array
let pool: PdfWorkersService
const poolScope = Effect.runSync(Scope.make())

beforeAll(async () => {
  await prepareWorkerEntry() // the process's one-time set-up of PDF workers: no test's
  twenty = await longPdf(20, 6)
  pool = await Effect.runPromise(makePdfWorkerPool().pipe(Scope.provide(poolScope), Effect.provide(NodeServices.layer)))
  // the two workers the tests that split a document use (at extract's 256 MB), started with the
  // pool and kept warm in it (two idle at most, 30 s each): about 0.2 s of CPU for the second
  // worker's start, which otherwise fell on whichever of those tests ran first
  await Effect.runPromise(Effect.scoped(Effect.all([pool.borrow(256), pool.borrow(256)], { concurrency: 2 })))
})

afterAll(() => Effect.runPromise(Scope.close(poolScope, Exit.void)))

/** What one extraction asked: each request as `worker#: Open` or `worker#: Pages a-b`. */
interface Asked {
  readonly log: Array<string>
  readonly workers: Set<number>
}

/**
 * Runs `extractText` on the shared pool, writing down every request it makes. With
 * `holdFirst`, the first worker's later chunks wait (up to 15 s each) until a second worker has
 * opened the document, so that a second worker that runs beside the first is sure to find a
 * chunk left (a worker that has to start may otherwise come up after the first has read all).
 */
const extract = (bytes: Uint8Array, options: Partial<ExtractOptions>, holdFirst = false) =>
  Effect.gen(function*() {
    const asked: Asked = { log: [], workers: new Set() }
    const ids = new Map<PooledWorker, number>()
    const secondOpened = yield* Deferred.make<void>()
    const recording: PdfWorkersService = {
      ...pool,
      request: (worker, message) => {
        const id = ids.get(worker) ?? ids.size + 1
        ids.set(worker, id)
        if (message._tag === "Pages") asked.workers.add(id)
        asked.log.push(message._tag === "Pages" ? `${id}: Pages ${message.from}-${message.to}` : `${id}: ${message._tag}`)
        const forward = pool.request(worker, message)
        if (holdFirst && id === 2 && message._tag === "Open") return Effect.tap(forward, () => Deferred.succeed(secondOpened, undefined))
        if (holdFirst && id === 1 && message._tag === "Pages" && message.from > 1) {
          return Effect.andThen(Effect.timeout(Deferred.await(secondOpened), "15 seconds").pipe(Effect.ignore), forward)
        }
        return forward
      }
    }
    const full: ExtractOptions = { startPage: 1, maxPages: 1000, maxChars: 10_000_000, memoryLimitMb: 256, ...options }
    const extraction = yield* extractText(bytes, full).pipe(Effect.provideService(PdfWorkers, recording))
    return { ...extraction, pageNumbers: extraction.pages.map((p) => p.page), asked }
  })

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)

describe("extractText", () => {
  it.effect("asks for chunks of four pages from start_page, the last one cut at max_pages", () =>
    Effect.gen(function*() {
      expect(CHUNK_PAGES).toBe(4)
      const r = yield* extract(twenty, { startPage: 3, maxPages: 10, parallel: false })
      expect(r.numPages).toBe(20)
      expect(r.pageNumbers).toEqual(range(3, 12))
      expect(r.asked.log).toEqual(["1: Open", "1: Pages 3-6", "1: Pages 7-10", "1: Pages 11-12"])
    }))

  it.effect("cuts the last chunk at the end of the document", () =>
    Effect.gen(function*() {
      const r = yield* extract(twenty, { startPage: 14, maxPages: 10, parallel: false })
      expect(r.pageNumbers).toEqual(range(14, 20))
      expect(r.asked.log).toEqual(["1: Open", "1: Pages 14-17", "1: Pages 18-20"])
    }))

  it.effect("a start_page past the end reads no page", () =>
    Effect.gen(function*() {
      const r = yield* extract(twenty, { startPage: 21, parallel: false })
      expect(r).toMatchObject({ numPages: 20, pages: [] })
      expect(r.asked.log).toEqual(["1: Open"])
    }))

  it.effect("stops at the page that goes over max_chars, and asks for no chunk after it", () =>
    Effect.gen(function*() {
      const all = yield* extract(twenty, { parallel: false })
      expect(all.pageNumbers).toEqual(range(1, 20))
      const upTo = (n: number) => all.pages.slice(0, n).reduce((sum, page) => sum + pageBlock(page).length, 0)

      // pages 1-5 together are one character over: page 5 is the last
      const over = yield* extract(twenty, { maxChars: upTo(5) - 1, parallel: false })
      expect(over.pageNumbers).toEqual(range(1, 5))
      expect(over.pages).toEqual(all.pages.slice(0, 5))
      expect(over.asked.log).toEqual(["1: Open", "1: Pages 1-4", "1: Pages 5-8"])

      // exactly at the budget is not over it: page 6 is the one that goes over
      const exact = yield* extract(twenty, { maxChars: upTo(5), parallel: false })
      expect(exact.pageNumbers).toEqual(range(1, 6))

      // a budget the first page alone passes: that page only
      const first = yield* extract(twenty, { maxChars: 10, parallel: false })
      expect(first.pageNumbers).toEqual([1])
    }))

  it.effect("a second worker joins when at least 12 pages are left after the first chunk", () =>
    Effect.gen(function*() {
      expect(SPLIT_MIN_PAGES).toBe(12)
      // after pages 1-4, pages 5-16 are left: 12
      const split = yield* extract(twenty, { maxPages: 16, parallel: true }, true)
      expect(split.pageNumbers).toEqual(range(1, 16))
      expect(split.asked.log.filter((line) => line.endsWith("Open"))).toEqual(["1: Open", "2: Open"])
      // both pulled chunks (side by side, not one after the other)
      expect([...split.asked.workers].sort()).toEqual([1, 2])

      // 11 left: one worker
      const alone = yield* extract(twenty, { maxPages: 15, parallel: true })
      expect(alone.pageNumbers).toEqual(range(1, 15))
      expect(alone.asked.log.filter((line) => line.endsWith("Open"))).toEqual(["1: Open"])

      // never with parallel off
      const off = yield* extract(twenty, { maxPages: 16, parallel: false })
      expect(off.asked.log.filter((line) => line.endsWith("Open"))).toEqual(["1: Open"])

      // by default, when the machine has more than one core
      const byDefault = yield* extract(twenty, { maxPages: 16 })
      expect(byDefault.asked.log.filter((line) => line.endsWith("Open")).length).toBe(availableParallelism() > 1 ? 2 : 1)
      expect(byDefault.pageNumbers).toEqual(range(1, 16))
    }), { timeout: 60_000 })

  it.effect("judges the pages left from the first chunk's characters per page and the budget left", () =>
    Effect.gen(function*() {
      const all = yield* extract(twenty, { parallel: false })
      const firstChunk = all.pages.slice(0, 4).reduce((sum, page) => sum + pageBlock(page).length, 0)
      const perPage = firstChunk / 4
      // the budget that leaves room for exactly 12 more pages of the first chunk's size
      const twelve = 4 * firstChunk
      expect((twelve - firstChunk) / perPage).toBeGreaterThanOrEqual(12)
      expect((twelve - 1 - firstChunk) / perPage).toBeLessThan(12)

      const split = yield* extract(twenty, { maxChars: twelve, parallel: true })
      expect(split.asked.log.filter((line) => line.endsWith("Open"))).toEqual(["1: Open", "2: Open"])
      const alone = yield* extract(twenty, { maxChars: twelve - 1, parallel: true })
      expect(alone.asked.log.filter((line) => line.endsWith("Open"))).toEqual(["1: Open"])
      // both stop where the budget runs out, whatever the workers
      const serial = yield* extract(twenty, { maxChars: twelve - 1, parallel: false })
      expect(alone.pages).toEqual(serial.pages)
      const serialTwelve = yield* extract(twenty, { maxChars: twelve, parallel: false })
      expect(split.pages).toEqual(serialTwelve.pages)
    }))
})
