/**
 * `extractText` over workers that answer as the test says (the pool's workers are borrowed for
 * real, but their requests are answered here): an answer out of turn, and a chunk that its
 * worker cut short (the chunk alone went over `max_chars`) while an earlier chunk is still
 * being read by the other worker, which must stop the scheduler from handing out later chunks.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Scope } from "effect"
import { PdfWorkers, type PdfWorkersService } from "../../../src/services/PdfWorkers.js"
import { extractText, type ExtractOptions } from "../../../src/tools/builtin/pdf/extract.js"
import type { PageText, WorkerResponse } from "../../../src/tools/builtin/pdf/protocol.js"
import { makePdfWorkerPool, type PooledWorker } from "../../../src/layers/PdfWorkers.js"
import { replaceBuiltinExport } from "../../helpers/replaceBuiltin.js"
import { prepareWorkerEntry } from "./pdfWorkerEntry.js"

let pool: PdfWorkersService
const poolScope = Effect.runSync(Scope.make())

beforeAll(async () => {
  await prepareWorkerEntry() // the process's one-time set-up of PDF workers: no test's
  pool = await Effect.runPromise(makePdfWorkerPool().pipe(Scope.provide(poolScope), Effect.provide(NodeServices.layer)))
})

afterAll(() => Effect.runPromise(Scope.close(poolScope, Exit.void)))

const options: ExtractOptions = { startPage: 1, maxPages: 1000, maxChars: 2000, memoryLimitMb: 256, parallel: true }

/** Pages `from..to` of `text(n)`, cut after the page that takes the chunk's text past `maxChars` (as the worker does). */
const answerPages = (from: number, to: number, maxChars: number, text: (page: number) => string): WorkerResponse => {
  const pages: Array<PageText> = []
  let chars = 0
  for (let n = from; n <= to; n++) {
    pages.push({ page: n, text: text(n) })
    chars += text(n).length
    if (chars > maxChars) break
  }
  return { _tag: "PagesText", pages }
}

/** For the current scope: `os.availableParallelism()` says the machine has `cores` cores. */
const withCores = (cores: number) =>
  Effect.acquireRelease(
    Effect.sync(() => replaceBuiltinExport<() => number>("node:os", "availableParallelism", () => () => cores)),
    (restore) => Effect.sync(restore)
  )

describe("extractText with answers made up by the test", () => {
  it.effect("an answer out of turn fails the extraction as a crash that names it", () =>
    Effect.gen(function*() {
      const confused: PdfWorkersService = {
        ...pool,
        request: (worker, message) => (message._tag === "Open" ? Effect.succeed({ _tag: "Closed" }) : pool.request(worker, message))
      }
      const error = yield* Effect.flip(extractText(new Uint8Array(8), options).pipe(Effect.provideService(PdfWorkers, confused)))
      expect({ reason: error.reason, message: error.message }).toEqual({
        reason: "crashed",
        message: "the PDF parser answered Closed out of turn"
      })
    }))

  // live clock: the pool's real workers are borrowed, and the first worker's answer waits up to
  // 300 ms of real time for the scheduler to ask for a later chunk (a broken one asks at once)
  it.live("a chunk cut short by its worker ends the reading there: no later chunk is asked for", () =>
    Effect.gen(function*() {
      // 20 short pages but page 11, which alone is over max_chars: the second worker's chunk
      // 9-12 comes back as pages 9-11 while the first worker still reads 5-8
      const text = (page: number) => (page === 11 ? "x".repeat(3000) : `text of page ${page}`)
      const ids = new Map<PooledWorker, number>()
      const asked: Array<string> = []
      const cutShort = yield* Deferred.make<void>()
      const askedLater = yield* Deferred.make<void>()
      const scripted: PdfWorkersService = {
        ...pool,
        request: (worker, message) => {
          const id = ids.get(worker) ?? ids.size + 1
          ids.set(worker, id)
          if (message._tag === "Open") return Effect.succeed({ _tag: "Opened", numPages: 20 })
          if (message._tag !== "Pages") return pool.request(worker, message)
          asked.push(`${id}: Pages ${message.from}-${message.to}`)
          const answer = Effect.sync(() => answerPages(message.from, message.to, message.maxChars, text))
          if (id === 2 && message.from === 9) return Effect.tap(answer, Deferred.succeed(cutShort, undefined))
          if (id === 2) return Effect.andThen(Deferred.succeed(askedLater, undefined), answer)
          if (message.from === 5) {
            // the first worker answers once the second has had its chance to ask for more
            // (at once when it does, else after a while)
            return Effect.andThen(
              Effect.andThen(Deferred.await(cutShort), Effect.timeout(Deferred.await(askedLater), "300 millis").pipe(Effect.ignore)),
              answer
            )
          }
          return answer
        }
      }
      const extraction = yield* extractText(new Uint8Array(8), options).pipe(Effect.provideService(PdfWorkers, scripted))
      expect(extraction.pages.map((p) => p.page)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
      expect([...asked].sort()).toEqual(["1: Pages 1-4", "1: Pages 5-8", "2: Pages 9-12"])
    }), 60_000)
  it.effect("without `parallel`, a second worker joins on a machine of more than one core only", () =>
    Effect.gen(function*() {
      const { parallel: _, ...byDefault } = options
      const opensOn = (cores: number) =>
        Effect.scoped(Effect.gen(function*() {
          yield* withCores(cores)
          let opens = 0
          const scripted: PdfWorkersService = {
            ...pool,
            request: (worker, message) => {
              if (message._tag === "Open") {
                opens++
                return Effect.succeed({ _tag: "Opened", numPages: 20 })
              }
              if (message._tag !== "Pages") return pool.request(worker, message)
              return Effect.succeed(answerPages(message.from, message.to, message.maxChars, (page) => `page ${page}`))
            }
          }
          const extraction = yield* extractText(new Uint8Array(8), { ...byDefault, maxPages: 16 }).pipe(
            Effect.provideService(PdfWorkers, scripted)
          )
          expect(extraction.pages.map((p) => p.page)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1))
          return opens
        }))
      expect(yield* opensOn(1)).toBe(1)
      expect(yield* opensOn(2)).toBe(2)
    }))
})
