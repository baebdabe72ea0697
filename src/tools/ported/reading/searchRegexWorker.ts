/**
 * The regular expression of one `search_files` call, matched in a worker thread. re2js is
 * linear in the text, but its cost per byte grows with the expression (measured: `[a-z]+[0-9]`
 * about 40 ms per 64 KB, `[a-z]{1000}[0-9]` 1.5 s), so on the main thread even one small file
 * could block every fiber, and no timeout could fire. The main thread reads the files and hands
 * each piece of whole lines to the worker; it answers with the matching lines.
 *
 * The worker walks the lines as `searchMatch.ts`'s `searchText` does (a match counts on the
 * line it starts in, and when it runs past that line's end only if the line alone matches),
 * and cuts a long line around its match (as `common.ts`'s `around`, `MATCH_LINE_CHARS`) without
 * copying it whole, so an answer
 * is at most `limit` short lines. It is a scoped resource: terminated when the call ends, so an
 * interrupted call (its timeout) stops a search in progress.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { Worker } from "node:worker_threads"
import { modulePath } from "../../shared/scriptWorker.js"
import { type Hit, MATCH_LINE_CHARS } from "./searchMatch.js"

/** The worker's heap cap: it holds one piece (at most a read chunk) and its text. */
const REGEX_WORKER_HEAP_MB = 128

/** The worker stopped (out of memory, or failed) before it answered. */
export class RegexWorkerFailed extends Data.TaggedError("RegexWorkerFailed")<{
  readonly message: string
}> {}

/** Matches pieces of files in the worker. */
export interface RegexWorker {
  /** The matching lines of `bytes` (whole lines, the first being line `firstLine`), at most `limit`. */
  readonly search: (bytes: Uint8Array, firstLine: number, limit: number) => Effect.Effect<ReadonlyArray<Hit>, RegexWorkerFailed>
}

const WORKER_SOURCE = `"use strict"
const { parentPort, workerData } = require("node:worker_threads")
const { RE2JS } = require(workerData.re2Module)
const { pattern, flags, maxChars } = workerData
const re = RE2JS.compile(pattern, flags)
const decoder = new TextDecoder("utf-8")
/** The line from start to end as shown: without its CR, and cut around the match at \`at\` when long (as \`around\`). */
const shownLine = (text, start, end, at) => {
  const stop = end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end
  const length = stop - start
  if (length <= maxChars) return text.slice(start, stop)
  const from = Math.max(0, Math.min(at - start - Math.floor(maxChars / 3), length - maxChars))
  return (from > 0 ? "\u2026" : "") + text.slice(start + from, start + from + maxChars) + (from + maxChars < length ? "\u2026" : "")
}
parentPort.on("message", ({ id, bytes, firstLine, limit }) => {
  const text = decoder.decode(bytes)
  const matcher = re.matcher(text)
  const hits = []
  let line = firstLine
  let counted = 0
  let from = 0
  while (hits.length < limit) {
    const at = from <= text.length && matcher.find(from) ? matcher.start() : -1
    if (at === -1 || (at === text.length && (text.length === 0 || text.endsWith("\\n")))) break
    for (let nl = text.indexOf("\\n", counted); nl !== -1 && nl < at; nl = text.indexOf("\\n", nl + 1)) line++
    const start = at === 0 ? 0 : text.lastIndexOf("\\n", at - 1) + 1
    const nl = text.indexOf("\\n", at)
    const end = nl === -1 ? text.length : nl
    if (nl === -1 || matcher.end() <= nl) hits.push({ line, text: shownLine(text, start, end, at) })
    else {
      const alone = re.matcher(text.slice(start, end))
      if (alone.find(0)) hits.push({ line, text: shownLine(text, start, end, start + alone.start()) })
    }
    if (nl === -1) break
    line++
    counted = nl + 1
    from = nl + 1
  }
  parentPort.postMessage({ id, hits })
})
`

interface Answer {
  readonly id: number
  readonly hits: ReadonlyArray<Hit>
}

const isAnswer = (message: unknown): message is Answer =>
  typeof message === "object" && message !== null && "id" in message && typeof message.id === "number" &&
  "hits" in message && Array.isArray(message.hits)

/** Starts the worker of the RE2 expression `pattern` (re2js `flags`); terminated when the scope closes. */
export const startRegexWorker = (pattern: string, flags: number): Effect.Effect<RegexWorker, never, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(
      Effect.sync(() => {
        const worker = new Worker(WORKER_SOURCE, {
          eval: true,
          // not the host's loaders or inspector flags; its output is not the host's
          execArgv: [],
          stdout: true,
          stderr: true,
          workerData: { re2Module: modulePath("re2js"), pattern, flags, maxChars: MATCH_LINE_CHARS },
          resourceLimits: { maxOldGenerationSizeMb: REGEX_WORKER_HEAP_MB }
        })
        worker.stdout.resume()
        worker.stderr.resume()
        const waiting = new Map<number, (answer: Effect.Effect<ReadonlyArray<Hit>, RegexWorkerFailed>) => void>()
        let stopped: RegexWorkerFailed | undefined
        const stop = (failure: RegexWorkerFailed) => {
          stopped ??= failure
          for (const resume of waiting.values()) resume(Effect.fail(stopped))
          waiting.clear()
        }
        worker.on("message", (message: unknown) => {
          if (!isAnswer(message)) return
          const resume = waiting.get(message.id)
          waiting.delete(message.id)
          resume?.(Effect.succeed(message.hits))
        })
        worker.on("error", (error) => stop(new RegexWorkerFailed({ message: `the regular expression search failed: ${error.message}` })))
        worker.once("exit", (code) => stop(new RegexWorkerFailed({ message: `the regular expression search stopped (exit code ${code})` })))
        let nextId = 0
        const search: RegexWorker["search"] = (bytes, firstLine, limit) =>
          Effect.callback((resume) => {
            if (stopped !== undefined) return resume(Effect.fail(stopped))
            const id = nextId++
            waiting.set(id, resume)
            worker.postMessage({ id, bytes, firstLine, limit })
            return Effect.sync(() => {
              waiting.delete(id)
            })
          })
        return { worker, search }
      }),
      ({ worker }) => Effect.promise(() => worker.terminate())
    ),
    ({ search }): RegexWorker => ({ search })
  )
