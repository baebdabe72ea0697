/**
 * The search of `search_files`: the tree walked by `shared/safeFsScan.ts`, the files of each
 * directory searched in chunks, the matching lines put out in walk order (breadth first,
 * names sorted) by `searchOutput.ts`, up to a limit.
 *
 * - The main thread searches a chunk of `CHUNK_FILES` itself, with synchronous calls through
 *   the directory's descriptor: a file shorter than a block is read once (`readSmallChildSync`)
 *   and, for a case-sensitive literal, looked at only as bytes; any other file takes the long
 *   way (`searchSmallSync`).
 * - Once the search has met `parallel.minFiles` files (at once when idle workers are waiting
 *   from an earlier search: they cost nothing to start), it starts worker threads
 *   (`searchWorkers.ts`) and hands a worker with room a job of up to `JOB_FILES` files, which
 *   tells the files without a first match from the others off the main thread. For jobs, the
 *   directory is opened again (through the walk's descriptor, `reopenDirectorySync`) and held
 *   until the visit is over and every job is answered, so the walk goes on meanwhile; held
 *   directories are closed only after the workers are let go (their finalizer is added first:
 *   a worker with a job unanswered is terminated, one without is kept idle).
 * - Larger files and links to files are streamed on the main thread (`searchStreamed`), at most
 *   `SEARCH_STREAMS` at a time.
 * - A regular expression is never matched on the main thread, whose event loop it could block
 *   for seconds (`searchRegexWorker.ts`): every file a worker's first test does not rule out is
 *   streamed, its lines matched in the search's regex worker.
 * - The walk stops once `limit` lines are out; jobs still out are dropped with the workers.
 * - A call with a progress listener hears the files reached so far, one report a directory
 *   (`reportProgress`; the channel throttles). No total: the tree's size is not known ahead.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as NodePath from "node:path"
import { reportProgress } from "../../../services/CallProgress.js"
import type { OpenDirectory } from "../../shared/safeFs.js"
import type { SafeFsError } from "../../shared/safeFsError.js"
import { childOf, hasFdPaths } from "../../shared/safeFsNode.js"
import { FIRST_BLOCK_BYTES } from "../../shared/safeFsRead.js"
import { scan, type ScanDirectory, type ScanEntry, type ScanResult } from "../../shared/safeFsScan.js"
import { closeSync, readSmallChildSync, reopenDirectorySync } from "../../shared/safeFsSync.js"
import { SKIP_NAMES } from "./common.js"
import type { GlobMatcher } from "./glob.js"
import { searchSmallSync, searchStreamed, SYNC_MAX_BYTES } from "./searchFile.js"
import type { Matcher } from "./searchMatch.js"
import { type Chunk, type FileEntry, type Held, makeChunk, makeOutput, noHits, searchWhole } from "./searchOutput.js"
import { FOUND, NONE } from "./searchWorkerSource.js"
import { type RegexWorker, startRegexWorker } from "./searchRegexWorker.js"
import { type Answered, idleWorkers, type SearchWorkers, startSearchWorkers } from "./searchWorkers.js"

/** Files streamed at the same time. */
export const SEARCH_STREAMS = 8
/** Files the main thread searches in one synchronous step (it looks for answers and the limit between steps). */
export const CHUNK_FILES = 32
/** Most files of one worker's job: a whole directory of a source tree, few enough messages. */
export const JOB_FILES = 256

/** How the waiting files are streamed. */
// the outcomes are written into the chunks and the result dropped; the concurrency only speeds the streams
const streaming = { concurrency: SEARCH_STREAMS, discard: true } as const

/** When and how widely a search runs in parallel. */
export interface Parallelism {
  /** Worker threads (0: none). */
  readonly workers: number
  /** Files met before the workers are started (a small search does not pay for starting them). */
  readonly minFiles: number
}

/** What to search. */
export interface SearchRequest {
  /** The directory (resolved, real). */
  readonly directory: string
  /** The directory as the lines show it. */
  readonly shownDir: string
  readonly matcher: Matcher
  readonly glob: GlobMatcher | undefined
  /** Lines wanted; the search stops once it has this many. */
  readonly limit: number
  /** Files searched before the search stops, with what it found. */
  readonly maxFiles: number
  readonly resolveLink: (path: string) => Effect.Effect<Option.Option<string>>
  readonly parallel: Parallelism
}

/** What the search found. */
export interface SearchResult {
  /** `path:line: text`, at most `limit`. */
  readonly lines: ReadonlyArray<string>
  readonly walked: ScanResult
  /** Files given to the search (`maxFiles` reached: it stopped there). */
  readonly searched: number
  /** Files that could not be read. */
  readonly unreadable: number
  /** Files searched only in their first `SEARCH_FILE_MAX_BYTES`. */
  readonly partial: number
}

/** The directory a visit reopened for jobs, if it did (or could not). */
interface Lease {
  current: Held | undefined
  failed: boolean
}

/** Searches the tree; workers (if any) live in the scope. */
export const searchTree = (request: SearchRequest): Effect.Effect<SearchResult, SafeFsError, Scope.Scope> =>
  Effect.gen(function*() {
    const { glob, limit, matcher, maxFiles, parallel, shownDir } = request
    const buffer = Buffer.allocUnsafe(SYNC_MAX_BYTES)
    const output = makeOutput(limit)
    const { flush } = output
    const byJob = new Map<number, Chunk>()
    let searched = 0
    let workers: SearchWorkers | undefined
    const { prefilter } = matcher
    const regex: RegexWorker | undefined = prefilter.kind === "re2"
      ? yield* startRegexWorker(prefilter.pattern, prefilter.flags)
      : undefined

    // the directories held for jobs: closed after the workers are terminated (acquired before them)
    const held = new Set<Held>()
    const closeFailures: Array<{ readonly path: string; readonly error: unknown }> = []
    const closeHeld = (lease: Held) => {
      if (!held.delete(lease)) return
      try {
        closeSync(lease.dir.fd, lease.dir.path)
      } catch (error) {
        closeFailures.push({ path: lease.dir.path, error })
      }
    }
    yield* Effect.addFinalizer(() => Effect.sync(() => held.forEach(closeHeld)))
    const letGo = (lease: Held | undefined) => {
      if (lease !== undefined && --lease.users === 0) closeHeld(lease)
    }
    const release = (chunk: Chunk) => {
      const lease = chunk.held
      chunk.held = undefined
      letGo(lease)
    }

    /**
     * Searches a file on the main thread through the open directory `dir`: a file shorter than a
     * block in one read (as a worker does), any other the long way (`searchSmallSync`).
     */
    const searchHere = (chunk: Chunk, index: number, dir: OpenDirectory) => {
      const file = chunk.files[index]
      if (file === undefined) return
      if (file.target !== undefined || regex !== undefined) return void chunk.streams.push(index)
      const n = readSmallChildSync(dir, file.name, buffer, FIRST_BLOCK_BYTES)
      if (n !== undefined) {
        const bytes = buffer.subarray(0, n)
        chunk.outcomes[index] = matcher.needle !== undefined && bytes.indexOf(matcher.needle) === -1
          ? noHits
          : searchWhole(bytes, matcher, limit)
        return
      }
      const outcome = searchSmallSync(dir, file.name, matcher, limit, buffer)
      if (outcome._tag === "Large") chunk.streams.push(index)
      else chunk.outcomes[index] = outcome
    }

    /** Takes in the answers of the workers (a worker that stopped answers `undefined`: its files are searched here). */
    const settle = (answers: ReadonlyArray<Answered>) => {
      for (const { answer, id } of answers) {
        const chunk = byJob.get(id)
        byJob.delete(id)
        if (chunk === undefined) continue
        const dir = chunk.held?.dir
        // the job held the chunk's files that are not links, in order: `asked` counts them, `found` those sent back
        let asked = 0
        let found = 0
        for (let i = 0; i < chunk.files.length; i++) {
          const file = chunk.files[i]
          if (file === undefined || file.target !== undefined) continue
          const code = answer?.codes[asked++]
          if (code === NONE) chunk.outcomes[i] = noHits
          else if (code === FOUND && regex !== undefined) chunk.streams.push(i)
          else if (code === FOUND && answer !== undefined) {
            const start = found === 0 ? 0 : answer.ends[found - 1] ?? 0
            const end = answer.ends[found] ?? start
            found++
            chunk.outcomes[i] = searchWhole(Buffer.from(answer.data.buffer, answer.data.byteOffset + start, end - start), matcher, limit)
          } else if (dir !== undefined) searchHere(chunk, i, dir)
          else chunk.streams.push(i)
        }
        release(chunk)
      }
    }

    /** Streams the files waiting for it, at most `SEARCH_STREAMS` at a time. */
    const stream = Effect.suspend(() => {
      const work: Array<readonly [Chunk, number]> = []
      for (const chunk of output.waiting()) {
        for (const index of chunk.streams.splice(0)) work.push([chunk, index])
      }
      return Effect.forEach(work, ([chunk, index]) => {
        const file = chunk.files[index]
        if (file === undefined) return Effect.void
        return Effect.map(
          searchStreamed(file.target ?? NodePath.join(chunk.dirPath, file.name), matcher, limit, regex),
          (outcome) => {
            chunk.outcomes[index] = outcome
          }
        )
      }, streaming)
    })

    /**
     * Hands a chunk to a worker if one has room (the directory opened again and held for it,
     * once per directory); false when none has, or the directory cannot be opened again.
     */
    const handOver = (chunk: Chunk, dir: ScanDirectory, lease: Lease): boolean => {
      // Which thread searches a file is not behaviour: the lines, `walked` and `searched` are the same.
      // The `return false` of a directory that cannot be opened again, or of a worker that lost its room since
      // `room()`, is not reached by a test (a race).
      if (workers === undefined || lease.failed || !workers.room()) return false
      if (lease.current === undefined) {
        let reopened: OpenDirectory
        try {
          reopened = reopenDirectorySync(dir)
        } catch {
          // changed meanwhile: searched through the descriptor the walk holds
          lease.failed = true
          return false
        }
        // the visit's own hold, let go at its end: the descriptor never closes while a job may still be given it
        lease.current = { dir: reopened, users: 1 }
        held.add(lease.current)
      }
      // the links among the files are streamed here; the others are the job
      const names: Array<string> = []
      const links: Array<number> = []
      for (let i = 0; i < chunk.files.length; i++) {
        const file = chunk.files[i]
        if (file === undefined) continue
        if (file.target === undefined) names.push(file.name)
        else links.push(i)
      }
      const job = names.length === 0 ? undefined : workers.submit(childOf(lease.current.dir.fd, lease.current.dir.path, ""), names)
      if (names.length > 0 && job === undefined) return false
      chunk.streams.push(...links)
      if (job === undefined) return true
      lease.current.users++
      chunk.held = lease.current
      byJob.set(job, chunk)
      return true
    }

    /** Searches the files of one open directory; `false` stops the walk. */
    const visit = (dir: ScanDirectory, entries: ReadonlyArray<ScanEntry>) =>
      Effect.gen(function*() {
        if (searched >= maxFiles) return false
        const files = entries.filter((entry): entry is FileEntry =>
          entry._tag === "File" && !entry.repeat && (glob === undefined || glob(entry.name, dir.rel))
        )
        if (files.length === 0) return true
        searched += files.length
        yield* reportProgress({ progress: searched, message: `${searched} files searched` })
        if (
          workers === undefined && parallel.workers > 0 && hasFdPaths() &&
          (searched >= parallel.minFiles || idleWorkers() >= parallel.workers)
        ) workers = yield* startSearchWorkers(parallel.workers, matcher.prefilter, FIRST_BLOCK_BYTES)
        const shown = NodePath.join(shownDir, dir.rel)
        const lease: Lease = { current: undefined, failed: false }
        for (let from = 0; from < files.length;) {
          // a worker with room gets a job's worth of files; else the main thread searches a chunk
          const toWorker = workers !== undefined && workers.room()
          const part = files.slice(from, from + (toWorker ? JOB_FILES : CHUNK_FILES))
          from += part.length
          const chunk = makeChunk(dir.path, shown, part)
          output.add(chunk)
          const full = yield* Effect.sync(() => {
            if (workers !== undefined) settle(workers.poll())
            if (flush()) return true
            if (toWorker && handOver(chunk, dir, lease)) return false
            for (let i = 0; i < part.length; i++) {
              searchHere(chunk, i, dir)
              // early out once the lines wanted are found
              const outcome = chunk.outcomes[i]
              if (outcome?._tag === "Searched" && outcome.hits.length > 0 && flush()) return true
            }
            return flush()
          })
          if (full) break
        }
        letGo(lease.current)
        yield* stream
        return !flush()
      })

    const walked = yield* scan(request.directory, {
      maxDepth: Number.POSITIVE_INFINITY,
      skipNames: SKIP_NAMES,
      resolveLink: request.resolveLink,
      visit
    })
    // the jobs still out, unless the lines are all there
    while (!flush() && workers !== undefined && workers.outstanding() > 0) {
      yield* workers.wait
      const answers = workers.poll()
      yield* Effect.sync(() => settle(answers))
      yield* stream
    }
    yield* stream
    flush()
    yield* Effect.forEach(closeFailures, ({ error, path }) => Effect.logWarning(`could not close "${path}"`, error), { discard: true })
    yield* Effect.forEach(workers?.errors() ?? [], (error) =>
      Effect.logWarning("a search worker failed; the main thread searched its files", error), { discard: true })
    return { lines: output.lines, walked, searched, unreadable: output.unreadable(), partial: output.partial() }
  })
