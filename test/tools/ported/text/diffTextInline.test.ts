/**
 * Where `unifiedDiff` computes a diff: a differing part of at most `INLINE_MAX_LINES` lines and
 * `INLINE_MAX_CHARS` characters (both texts' parts together) on the calling thread, a larger one
 * in a worker thread; the answer is the same either way. Workers are counted by the process's
 * `worker` event.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { Worker } from "node:worker_threads"
import { INLINE_MAX_CHARS, INLINE_MAX_LINES, unifiedDiff } from "../../../../src/tools/ported/text/diffText.js"

/** `unifiedDiff`'s answer and how many worker threads it started. */
const diffCountingWorkers = (a: string, b: string, context: number) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const started: Array<Worker> = []
      const listener = (worker: Worker) => {
        started.push(worker)
      }
      process.on("worker", listener)
      return { started, listener }
    }),
    ({ started }) => Effect.map(unifiedDiff(a, b, context), (text) => ({ text, workers: started.length })),
    ({ listener }) => Effect.sync(() => process.off("worker", listener))
  )

const lines = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i}\n`).join("")

/** The diff of `count` lines all removed, on line 1 on. */
const removed = (text: string, count: number) =>
  `--- a\n+++ b\n@@ -1,${count} +0,0 @@\n${text.slice(0, -1).split("\n").map((line) => `-${line}`).join("\n")}`

describe("unifiedDiff on this thread or in a worker", () => {
  it.effect(`${INLINE_MAX_LINES} differing lines in all are diffed here, one more in a worker`, () =>
    Effect.gen(function*() {
      const half = INLINE_MAX_LINES / 2
      const here = yield* diffCountingWorkers(lines("a", half), lines("b", half), 0)
      expect(here.workers).toBe(0)
      expect(here.text.split("\n").slice(0, 4)).toEqual(["--- a", "+++ b", `@@ -1,${half} +1,${half} @@`, "-a0"])
      const there = yield* diffCountingWorkers(lines("a", half + 1), lines("b", half), 0)
      expect(there.workers).toBe(1)
      expect(there.text.split("\n").slice(0, 4)).toEqual(["--- a", "+++ b", `@@ -1,${half + 1} +1,${half} @@`, "-a0"])
    }), 20_000)

  it.effect(`${INLINE_MAX_LINES} lines removed, against an empty text, are diffed here`, () =>
    Effect.gen(function*() {
      const a = lines("a", INLINE_MAX_LINES)
      const here = yield* diffCountingWorkers(a, "", 0)
      expect(here).toEqual({ text: removed(a, INLINE_MAX_LINES), workers: 0 })
    }))

  it.effect(`${INLINE_MAX_CHARS} differing characters in all are diffed here, one more in a worker`, () =>
    Effect.gen(function*() {
      const tail = "x".repeat(INLINE_MAX_CHARS / 2 - 1)
      const here = yield* diffCountingWorkers(`a${tail}`, `b${tail}`, 0)
      expect(here.workers).toBe(0)
      expect(here.text.startsWith(`--- a\n+++ b\n@@ -1,1 +1,1 @@\n-a${tail}\n`)).toBe(true)
      const there = yield* diffCountingWorkers(`a${tail}!`, `b${tail}`, 0)
      expect(there.workers).toBe(1)
      expect(there.text.startsWith(`--- a\n+++ b\n@@ -1,1 +1,1 @@\n-a${tail}!\n`)).toBe(true)
    }), 20_000)
})
