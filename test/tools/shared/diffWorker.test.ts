/**
 * `diffWorker.ts` below the tools (`diff_files`, `diff_text`, `apply_diff` use it): the diff of
 * two texts computed in a worker comes back as its formatted text and, for each hunk, its start
 * lines, its lines' characters and where it ends in the text; texts given as UTF-8 bytes are
 * diffed as their text; equal texts are `same`, texts too different for the timeout
 * `tooDifferent`. Applying a diff answers what it came to, whatever the kind; a worker that
 * outlasts its deadline fails saying which work it stopped.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { applyInWorker, diffInWorker, type DiffJob } from "../../../src/tools/shared/diffWorker.js"
import { reasonAndMessage } from "../../helpers/reasonAndMessage.js"
import { countingSleeps, joinUnmoved, sleepersUntil } from "../../helpers/testClock.js"

/** `count` lines, each ended by a line feed, line `n` being `line(n)`. */
const lines = (count: number, line: (n: number) => string) =>
  Array.from({ length: count }, (_, i) => `${line(i + 1)}\n`).join("")

const OLD = lines(20, (n) => `line ${n}`)
const NEW = lines(20, (n) => (n === 3 ? "LINE three" : n === 17 ? "LINE seventeen" : `line ${n}`))

const HEADERS = "--- a.txt\n+++ b.txt\n"
const FIRST_HUNK = "@@ -2,3 +2,3 @@\n line 2\n-line 3\n+LINE three\n line 4\n"
const SECOND_HUNK = "@@ -16,3 +16,3 @@\n line 16\n-line 17\n+LINE seventeen\n line 18\n"

const job = (a: string | Uint8Array, b: string | Uint8Array, more: Partial<DiffJob> = {}): DiffJob => ({
  nameA: "a.txt",
  nameB: "b.txt",
  a,
  b,
  context: 1,
  timeoutMs: 10_000,
  shift: 0,
  ...more
})

const utf8 = (text: string) => new TextEncoder().encode(text)

describe("diffInWorker", () => {
  it.live("two changes far apart: the unified diff and, per hunk, its start lines, line characters and end in the text", () =>
    Effect.gen(function*() {
      const outcome = yield* diffInWorker(job(OLD, NEW))
      expect(outcome).toEqual({
        kind: "diff",
        text: HEADERS + FIRST_HUNK + SECOND_HUNK,
        hunks: [
          // " line 2\n" + "-line 3\n" + "+LINE three\n" + " line 4\n": 36 characters, the header line not counted
          { oldStart: 2, newStart: 2, lineChars: 36, end: (HEADERS + FIRST_HUNK).length },
          { oldStart: 16, newStart: 16, lineChars: 43, end: (HEADERS + FIRST_HUNK + SECOND_HUNK).length }
        ]
      })
    }))

  it.live("texts given as UTF-8 bytes are diffed as their text; the shift moves every hunk's start lines", () =>
    Effect.gen(function*() {
      const outcome = yield* diffInWorker(job(utf8(OLD), utf8(NEW.replace("LINE three", "LINE thrée")), { shift: 100 }))
      expect(outcome.kind === "diff" && outcome.text).toBe(
        HEADERS + "@@ -102,3 +102,3 @@\n line 2\n-line 3\n+LINE thrée\n line 4\n" +
          "@@ -116,3 +116,3 @@\n line 16\n-line 17\n+LINE seventeen\n line 18\n"
      )
      expect(outcome.kind === "diff" && outcome.hunks.map((hunk) => [hunk.oldStart, hunk.newStart, hunk.lineChars])).toEqual([
        [102, 102, 36],
        [116, 116, 43]
      ])
    }))

  it.live("a text and its own UTF-8 bytes are the same", () =>
    Effect.gen(function*() {
      expect(yield* diffInWorker(job("dé\nfin\n", utf8("dé\nfin\n")))).toEqual({ kind: "same" })
    }))

  it.live("texts too different to diff within the timeout: tooDifferent", () =>
    Effect.gen(function*() {
      // 4,000 lines each, no line shared: thousands of Myers steps, far past a 0 ms timeout
      const a = lines(4_000, (n) => `${(n * 7) % 9973} seven`)
      const b = lines(4_000, (n) => `${(n * 13) % 9973} thirteen`)
      expect(yield* diffInWorker(job(a, b, { timeoutMs: 0 }))).toEqual({ kind: "tooDifferent" })
    }))

  it.effect("a diff still running at its timeout plus the 5 s margin is stopped: a deadline failure that names the diff", () =>
    Effect.gen(function*() {
      const run = yield* Effect.forkChild(reasonAndMessage(diffInWorker(job(OLD, NEW, { timeoutMs: 1_000 }))))
      // the worker takes tens of ms of real time to start; the clock reaches the deadline before that
      yield* sleepersUntil(6_000)
      yield* TestClock.adjust(6_000)
      expect(yield* joinUnmoved(run, 5_000)).toEqual(["deadline", "the diff did not finish within 6s"])
    }).pipe(countingSleeps))
})

describe("applyInWorker", () => {
  it.live("a diff that applies: the patched text, its hunks, the lines added and removed", () =>
    Effect.gen(function*() {
      expect(yield* applyInWorker(OLD, HEADERS + FIRST_HUNK + SECOND_HUNK, 5)).toEqual({
        kind: "applied",
        text: NEW,
        hunks: 2,
        added: 2,
        removed: 2
      })
    }))

  it.live("each way a diff does not apply is answered as it is: unparsable, no hunk, a hunk outside the file, a hunk that does not match", () =>
    Effect.gen(function*() {
      expect(yield* applyInWorker(OLD, `${HEADERS}@@ -1,1 +1,1 @@\n?line 1\n`, 5)).toEqual({
        kind: "unparsable",
        message: "Hunk at line 3 contained invalid line ?line 1"
      })
      expect(yield* applyInWorker(OLD, "not a diff", 5)).toEqual({ kind: "files", count: 0 })
      expect(yield* applyInWorker(OLD, `${HEADERS}@@ -50,1 +50,1 @@\n-x\n+y\n`, 5)).toEqual({
        kind: "outside",
        index: 0,
        total: 1,
        hunk: [50, 1, 50, 1],
        lines: 20,
        newLines: 20
      })
      expect(yield* applyInWorker(OLD, `${HEADERS}${FIRST_HUNK}@@ -10,1 +10,1 @@\n-no such line\n+y\n`, 5)).toEqual({
        kind: "failed",
        index: 1,
        total: 2,
        hunk: [10, 1, 10, 1]
      })
    }))

  it.effect("applying still running after 20 s is stopped: a deadline failure that names it", () =>
    Effect.gen(function*() {
      const run = yield* Effect.forkChild(reasonAndMessage(applyInWorker(OLD, HEADERS + FIRST_HUNK, 5)))
      yield* sleepersUntil(20_000)
      yield* TestClock.adjust(20_000)
      expect(yield* joinUnmoved(run, 5_000)).toEqual(["deadline", "applying the diff did not finish within 20s"])
    }).pipe(countingSleeps))
})
