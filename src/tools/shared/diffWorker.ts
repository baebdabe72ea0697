/**
 * The `diff` package's line diff and patch application, run in a worker thread with a deadline
 * (`shared/scriptWorker.ts`). Both are synchronous and can cost far more than the 100 ms an
 * event-loop turn may take: Myers' diff is O(N·D) (seconds on two dissimilar files of a few
 * MiB; its `timeout` option stops it, but only after that long, and its `callback` mode still
 * runs each step on the calling thread), and `applyPatch` splits and joins the whole file and
 * searches it for each hunk's place (about 90 ms for one hunk on a 50,000-line file). In a
 * worker none of that stalls the host, and an interruption (the call's timeout) terminates it.
 * At most one such worker runs per core (`DIFF_WORKERS`); more calls wait their turn (their
 * timeouts still fire): eight started at once on two cores kept the host's thread waiting for a
 * core for up to a second while they booted, and could only share the same two cores anyway.
 *
 * What crosses the thread boundary is kept flat: the texts to diff in shared memory
 * (`sharedText.ts`: serialising them into `workerData` held the host ~60 ms per 3 MiB file),
 * the formatted diff as one string and four numbers a hunk, the patched text as one string.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Semaphore from "effect/Semaphore"
import { availableParallelism } from "node:os"
import { modulePath, runScriptWorker, type ScriptWorkerFailed } from "./scriptWorker.js"
import { shareBytes, shareString, TEXT_OF_SOURCE } from "./sharedText.js"

/** The worker's heap cap: Myers' diff of two 4 MiB files keeps its paths in memory. */
export const DIFF_HEAP_MB = 512

/** How long applying a patch may take. */
export const APPLY_DEADLINE: Duration.Input = "20 seconds"

/** Most diff workers running at once in this process: one per core. */
export const DIFF_WORKERS = Math.max(1, availableParallelism())

/** The process's diff worker slots: cores are the process's, whatever tool system asks. */
const slots = Semaphore.makeUnsafe(DIFF_WORKERS)

/** Time the worker gets beyond the diff's own timeout, to start, split the texts and format the patch. */
const DIFF_MARGIN: Duration.Duration = Duration.seconds(5)

const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads")
const Diff = require(workerData.module)
const { job } = workerData
${TEXT_OF_SOURCE}const patchAnswer = () => {
  const a = textOf(job.a)
  const b = textOf(job.b)
  if (a === b) return { kind: "same" }
  const patch = Diff.structuredPatch(job.nameA, job.nameB, a, b, undefined, undefined, {
    context: job.context,
    timeout: job.timeoutMs
  })
  if (patch === undefined) return { kind: "tooDifferent" }
  for (const hunk of patch.hunks) {
    hunk.oldStart += job.shift
    hunk.newStart += job.shift
  }
  const text = Diff.formatPatch(patch, Diff.FILE_HEADERS_ONLY)
  const headers = Diff.formatPatch({ ...patch, hunks: [] }, Diff.FILE_HEADERS_ONLY).length
  const hunks = []
  let end = headers
  for (const hunk of patch.hunks) {
    end += Diff.formatPatch({ ...patch, hunks: [hunk] }, Diff.FILE_HEADERS_ONLY).length - headers
    let chars = 0
    for (const line of hunk.lines) chars += line.length + 1
    hunks.push(hunk.oldStart, hunk.newStart, chars, end)
  }
  return { kind: "diff", text, hunks }
}
const tryApply = (patch) => {
  try {
    return Diff.applyPatch(job.text, patch)
  } catch {
    return false
  }
}
const numbers = (hunk) => [hunk.oldStart, hunk.oldLines, hunk.newStart, hunk.newLines]
const applyAnswer = () => {
  let patches
  try {
    patches = Diff.parsePatch(job.diff)
  } catch (error) {
    return { kind: "unparsable", message: error instanceof Error ? error.message.trim() : String(error) }
  }
  const withHunks = patches.filter((p) => p.hunks.length > 0)
  if (withHunks.length !== 1) return { kind: "files", count: withHunks.length }
  const patch = withHunks[0]
  const hunks = patch.hunks
  // the file's lines (a final line feed ends the last line) and the patched file's: every hunk
  // must lie within them before applyPatch, which walks from a hunk's stated line to the file
  let lines = 0
  for (let i = job.text.indexOf("\\n"); i >= 0; i = job.text.indexOf("\\n", i + 1)) lines++
  if (job.text.length > 0 && !job.text.endsWith("\\n")) lines++
  let newLines = lines
  for (const hunk of hunks) newLines += hunk.newLines - hunk.oldLines
  for (let i = 0; i < hunks.length; i++) {
    const h = hunks[i]
    if (h.oldStart > lines + 1 || h.oldLines > lines || h.newStart > newLines + 1 || h.newLines > newLines) {
      return { kind: "outside", index: i, total: hunks.length, hunk: numbers(h), lines, newLines }
    }
  }
  const patched = tryApply(patch)
  if (patched !== false) {
    let added = 0
    let removed = 0
    for (const hunk of hunks) {
      for (const line of hunk.lines) {
        if (line.startsWith("+")) added++
        else if (line.startsWith("-")) removed++
      }
    }
    return { kind: "applied", text: patched, hunks: hunks.length, added, removed }
  }
  for (let i = 0; i < Math.min(hunks.length, job.diagnosed); i++) {
    if (tryApply({ ...patch, hunks: hunks.slice(0, i + 1) }) === false) {
      return { kind: "failed", index: i, total: hunks.length, hunk: numbers(hunks[i]) }
    }
  }
  return { kind: "failed", index: null, total: hunks.length, hunk: null }
}
parentPort.postMessage(job.op === "patch" ? patchAnswer() : applyAnswer())
`

/** What a diff is asked: two texts, their names for the headers, and how to shift the hunks' line numbers. */
export interface DiffJob {
  readonly nameA: string
  readonly nameB: string
  /** The old text, or its UTF-8 bytes (decoded in the worker as `decodeUtf8` does); copied, never serialised. */
  readonly a: string | Uint8Array
  /** The new text, or its UTF-8 bytes. */
  readonly b: string | Uint8Array
  readonly context: number
  /** The `diff` package's own deadline: past it the answer is `undefined`. */
  readonly timeoutMs: number
  /** Added to every hunk's start lines (the texts are parts that begin after `shift` lines). */
  readonly shift: number
}

/** One hunk of a formatted diff: where it starts in each text, the characters of its lines, where its text ends. */
export interface DiffHunk {
  readonly oldStart: number
  readonly newStart: number
  /** Its lines' characters, each with its line feed (the header not counted). */
  readonly lineChars: number
  /** The offset in `text` just after this hunk: `text.slice(0, end)` is the diff up to it. */
  readonly end: number
}

/** A computed diff: `---`/`+++` headers and hunks as `formatPatch` writes them (ending with a line feed). */
export interface Diff {
  readonly kind: "diff"
  readonly text: string
  readonly hunks: ReadonlyArray<DiffHunk>
}

/** What diffing two texts came to: equal (once decoded), too different to diff within the time, or their diff. */
export type DiffOutcome = { readonly kind: "same" } | { readonly kind: "tooDifferent" } | Diff

type PatchAnswer =
  | { readonly kind: "same" | "tooDifferent" }
  | { readonly kind: "diff"; readonly text: string; readonly hunks: Array<number> }

const isPatchAnswer = (u: unknown): u is PatchAnswer =>
  typeof u === "object" && u !== null && "kind" in u &&
  (u.kind === "same" || u.kind === "tooDifferent" ||
    (u.kind === "diff" && "text" in u && typeof u.text === "string" && "hunks" in u && Array.isArray(u.hunks)))

const share = (text: string | Uint8Array) =>
  typeof text === "string" ? shareString(text) : Effect.sync(() => shareBytes(text))

const unknownShape = Effect.die(new Error("the diff worker answered an unknown shape"))

/**
 * The unified diff of `job.a` and `job.b`, computed in a worker (`tooDifferent` when they differ
 * too much to diff within `job.timeoutMs`). The worker is terminated when the answer comes, at
 * its deadline, or when the calling fiber is interrupted (the call's timeout).
 */
export const diffInWorker = (job: DiffJob): Effect.Effect<DiffOutcome, ScriptWorkerFailed> =>
  Effect.all([share(job.a), share(job.b)]).pipe(
    Effect.flatMap(([a, b]) =>
      runScriptWorker(WORKER_SOURCE, { module: modulePath("diff"), job: { op: "patch", ...job, a, b } }, {
        deadline: Duration.sum(Duration.millis(job.timeoutMs), DIFF_MARGIN),
        heapMb: DIFF_HEAP_MB,
        what: "the diff"
      })
    ),
    slots.withPermits(1),
    Effect.flatMap((answer): Effect.Effect<DiffOutcome> => {
      if (!isPatchAnswer(answer)) return unknownShape
      if (answer.kind !== "diff") return Effect.succeed(answer)
      const flat = answer.hunks
      const hunks: Array<DiffHunk> = []
      for (let i = 0; i + 3 < flat.length; i += 4) {
        hunks.push({ oldStart: flat[i] ?? 0, newStart: flat[i + 1] ?? 0, lineChars: flat[i + 2] ?? 0, end: flat[i + 3] ?? 0 })
      }
      return Effect.succeed({ kind: "diff", text: answer.text, hunks })
    })
  )

/** A hunk's header numbers: `@@ -oldStart,oldLines +newStart,newLines @@`. */
export type HunkNumbers = readonly [oldStart: number, oldLines: number, newStart: number, newLines: number]

/** What applying a diff came to. */
export type Applied =
  /** `parsePatch` refused it. */
  | { readonly kind: "unparsable"; readonly message: string }
  /** It changes `count` files (0: it has no hunks), not one. */
  | { readonly kind: "files"; readonly count: number }
  /** Hunk `index` (0-based) of `total` lies outside the file's `lines` or the patched file's `newLines`. */
  | {
    readonly kind: "outside"
    readonly index: number
    readonly total: number
    readonly hunk: HunkNumbers
    readonly lines: number
    readonly newLines: number
  }
  /** It does not apply: hunk `index` is the first that does not (`null`: past the diagnosed ones). */
  | { readonly kind: "failed"; readonly index: number | null; readonly total: number; readonly hunk: HunkNumbers | null }
  | { readonly kind: "applied"; readonly text: string; readonly hunks: number; readonly added: number; readonly removed: number }

const KINDS: ReadonlySet<unknown> = new Set(["unparsable", "files", "outside", "failed", "applied"])

const isApplied = (u: unknown): u is Applied =>
  typeof u === "object" && u !== null && "kind" in u && KINDS.has(u.kind) && (u.kind !== "applied" || ("text" in u && typeof u.text === "string"))

/**
 * Parses `diff` (the diff of one file) and applies it to `text`, in a worker. Every hunk header
 * is checked against the file's real line count before `applyPatch` sees it; when the whole
 * patch does not apply, its first 1, 2, ... hunks are applied (up to `diagnosed` of them) to
 * find the first that does not.
 */
export const applyInWorker = (
  text: string,
  diff: string,
  diagnosed: number
): Effect.Effect<Applied, ScriptWorkerFailed> =>
  runScriptWorker(WORKER_SOURCE, { module: modulePath("diff"), job: { op: "apply", text, diff, diagnosed } }, {
    deadline: APPLY_DEADLINE,
    heapMb: DIFF_HEAP_MB,
    what: "applying the diff"
  }).pipe(slots.withPermits(1), Effect.flatMap((answer) => (isApplied(answer) ? Effect.succeed(answer) : unknownShape)))
