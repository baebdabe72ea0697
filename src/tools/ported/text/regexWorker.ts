/**
 * Matching a regular expression in a worker thread with a deadline.
 *
 * `re2js` runs in time linear in the text, but the constant is large for some patterns: the
 * capturing groups of a match cost about the match's length times the pattern's program size,
 * and a case-insensitive or nested-quantifier search falls back from the DFA. Measured here on
 * one million characters: `(.*a){20}` 19 s, `(\w+\s?)+$` 1.9 s, `(a+)+$` 1 s, all of it
 * synchronous; on the 32 Mi characters a call may carry, minutes. On the main thread that
 * would stall every fiber and no timeout could stop it, so the matching runs in a short-lived
 * worker (about 70 ms to start) that the deadline, an interruption or the end terminates.
 *
 * The worker (`shared/scriptWorker.ts`) loads `re2js` from the path resolved here and reads
 * the text from shared memory. It returns
 * at most `max` matches (and where the next one starts), each with at most `groups` groups cut
 * at `chars + 1` characters and their full lengths.
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { modulePath, runScriptWorker, type ScriptWorkerFailed } from "../../shared/scriptWorker.js"
import { shareString, TEXT_OF_SOURCE } from "../../shared/sharedText.js"

/** How long a search may take. */
export const REGEX_DEADLINE: Duration.Input = "20 seconds"

/** The worker's heap cap. */
export const REGEX_HEAP_MB = 512

/** A group as the worker returns it: its start (cut) and its full length, or `null` when it did not take part. */
export type RawGroup = readonly [text: string, length: number] | null

/** One match: its index (UTF-16) and groups 0 (the match) to n. */
export type RawMatch = readonly [index: number, groups: ReadonlyArray<RawGroup>]

/** What the worker found: the matches, and the index of the next match when it stopped at `max`. */
export interface RawMatches {
  readonly matches: ReadonlyArray<RawMatch>
  readonly next: number | null
}

/** What the worker is asked. */
export interface RegexJob {
  /** The pattern in RE2 syntax (translated) and RE2 flags. */
  readonly pattern: string
  readonly flags: number
  readonly text: string
  /** Most matches returned. */
  readonly max: number
  /** Most groups returned per match (group 0 included). */
  readonly groups: number
  /** Characters kept of each group (one more is sent, so the receiver knows it was cut). */
  readonly chars: number
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads")
const { RE2JS } = require(workerData.module)
${TEXT_OF_SOURCE}
const { chars, flags, groups, max, pattern } = workerData.job
const text = textOf(workerData.text)
const re = RE2JS.compile(pattern, flags)
const matches = []
let next = null
for (const m of re.matchAll(text)) {
  if (matches.length === max) {
    next = m.index
    break
  }
  const kept = []
  for (let i = 0; i < m.length && i < groups; i++) {
    const g = m[i]
    kept.push(g === undefined || g === null ? null : [g.length > chars ? g.slice(0, chars + 1) : g, g.length])
  }
  matches.push([m.index, kept])
}
parentPort.postMessage({ matches, next })
`

const isRawMatches = (u: unknown): u is RawMatches =>
  typeof u === "object" && u !== null && "matches" in u && Array.isArray(u.matches) && "next" in u

/**
 * Runs `job` in a worker that is terminated at `deadline`, on interruption, or when it is done.
 * The text crosses through shared memory, copied in slices (`shared/sharedText.ts`): in
 * `workerData` it was serialised in one synchronous call, 160-270 ms for 30 Mi characters.
 */
export const searchInWorker = (
  job: RegexJob,
  deadline: Duration.Input = REGEX_DEADLINE
): Effect.Effect<RawMatches, ScriptWorkerFailed> =>
  Effect.gen(function*() {
    const { text, ...rest } = job
    const shared = yield* shareString(text)
    const answer = yield* runScriptWorker(
      WORKER_SOURCE,
      { module: modulePath("re2js"), job: rest, text: shared },
      { deadline, heapMb: REGEX_HEAP_MB, what: "the search" }
    )
    return isRawMatches(answer) ? answer : yield* Effect.die(new Error("the regex worker answered an unknown shape"))
  })
