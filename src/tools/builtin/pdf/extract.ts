/**
 * Text extraction over PDF workers: opens the document in a worker, hands out the wanted
 * pages a chunk at a time, and stops handing out once `max_pages` or `max_chars` is reached.
 * When the pages still to read are many (judged from the first chunk's text), a second worker
 * opens the same bytes and the two pull chunks side by side, on two cores.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { availableParallelism } from "node:os"
import { pageBlock } from "./format.js"
import type { Failed, PageText } from "./protocol.js"
import { PdfWorkers } from "../../../services/PdfWorkers.js"
import { type PooledWorker, PdfWorkerError } from "../../../layers/PdfWorkers.js"

/** Pages asked of a worker at a time. */
export const CHUNK_PAGES = 4
/** A second worker joins when at least this many pages are estimated to be still needed. */
export const SPLIT_MIN_PAGES = 12

/** What to read. */
export interface ExtractOptions {
  readonly startPage: number
  readonly maxPages: number
  readonly maxChars: number
  /** The heap cap of each worker. */
  readonly memoryLimitMb: number
  /** Allow a second worker. Default: when the machine has more than one core. */
  readonly parallel?: boolean
}

/** What was read: the page count and consecutive pages from `startPage` (empty when it is past the end). */
export interface Extraction {
  readonly numPages: number
  readonly pages: ReadonlyArray<PageText>
}

/** A worker with the document open. */
interface Session {
  readonly numPages: number
  readonly pages: (from: number, to: number) => Effect.Effect<ReadonlyArray<PageText>, PdfWorkerError>
}

const failed = (answer: typeof Failed.Type) => new PdfWorkerError({ reason: answer.reason, message: answer.message })

const unexpected = (what: string) =>
  new PdfWorkerError({ reason: "crashed", message: `the PDF parser answered ${what} out of turn` })

const openSession = (
  bytes: Uint8Array,
  options: ExtractOptions
): Effect.Effect<Session, PdfWorkerError, Scope.Scope | PdfWorkers> =>
  Effect.gen(function*() {
    const { borrow, request } = yield* PdfWorkers
    const worker: PooledWorker = yield* borrow(options.memoryLimitMb)
    const opened = yield* request(worker, { _tag: "Open", data: bytes, password: "" })
    if (opened._tag === "Failed") return yield* failed(opened)
    if (opened._tag !== "Opened") return yield* unexpected(opened._tag)
    return {
      numPages: opened.numPages,
      pages: (from, to) =>
        Effect.flatMap(request(worker, { _tag: "Pages", from, to, maxChars: options.maxChars }), (answer) => {
          if (answer._tag === "Failed") return Effect.fail(failed(answer))
          if (answer._tag !== "PagesText") return Effect.fail(unexpected(answer._tag))
          return Effect.succeed(answer.pages)
        })
    }
  })

/**
 * Reads the text of `maxPages` pages from `startPage` on, stopping early once the pages read
 * (as `pageBlock`s) pass `maxChars`. The last page returned may be the one that went over.
 */
export const extractText = (
  bytes: Uint8Array,
  options: ExtractOptions
): Effect.Effect<Extraction, PdfWorkerError, PdfWorkers> =>
  Effect.scoped(
    Effect.gen(function*() {
      const first = yield* openSession(bytes, options)
      const numPages = first.numPages
      const { maxChars, startPage } = options
      // a shortcut: past the end, take() hands out no chunk and no page is collected
      if (startPage > numPages) return { numPages, pages: [] }

      const texts = new Map<number, PageText>()
      let next = startPage
      let stopAt = Math.min(numPages, startPage + options.maxPages - 1)
      let used = 0
      let counted = startPage // the first page not yet counted in `used`

      const take = (): readonly [number, number] | undefined => {
        if (next > stopAt) return undefined
        const from = next
        next = Math.min(stopAt, from + CHUNK_PAGES - 1) + 1
        return [from, next - 1]
      }
      const record = (from: number, to: number, pages: ReadonlyArray<PageText>) => {
        for (const page of pages) texts.set(page.page, page)
        // the worker stopped early: the chunk alone is over the budget, later pages cannot fit
        if (pages.length < to - from + 1) stopAt = Math.min(stopAt, from + Math.max(pages.length, 1) - 1)
        for (let page = texts.get(counted); page !== undefined && counted <= stopAt; page = texts.get(counted)) {
          used += pageBlock(page).length
          if (used > maxChars) stopAt = Math.min(stopAt, counted)
          counted++
        }
      }
      const pull = (session: Session): Effect.Effect<void, PdfWorkerError> =>
        Effect.suspend(() => {
          const chunk = take()
          if (chunk === undefined) return Effect.void
          return session.pages(chunk[0], chunk[1]).pipe(
            Effect.tap((pages) => Effect.sync(() => record(chunk[0], chunk[1], pages))),
            Effect.andThen(pull(session))
          )
        })

      const firstChunk = take()
      if (firstChunk !== undefined) record(firstChunk[0], firstChunk[1], yield* first.pages(firstChunk[0], firstChunk[1]))
      // perPage > 0: a page block is never empty. Nothing counted means the first chunk came back
      // empty, which set stopAt to startPage: no page is left whatever perPage is
      const perPage = counted > startPage ? used / (counted - startPage) : maxChars
      const pagesLeft = Math.min(stopAt - next + 1, (maxChars - used) / perPage)
      const parallel = options.parallel ?? availableParallelism() > 1
      if (parallel && pagesLeft >= SPLIT_MIN_PAGES) {
        const second = Effect.flatMap(openSession(bytes, options), pull)
        yield* Effect.all([pull(first), second], { concurrency: 2, discard: true })
      } else {
        yield* pull(first)
      }

      const pages: Array<PageText> = []
      for (let n = startPage; n <= stopAt; n++) {
        const page = texts.get(n)
        if (page === undefined) break
        pages.push(page)
      }
      return { numPages, pages }
    })
  )
