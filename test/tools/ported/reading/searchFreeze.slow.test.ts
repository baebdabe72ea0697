/**
 * `search_files` never blocks the event loop for more than 100 ms (issue 47, item 6), whatever
 * the shape of the files or the cost of the expression: a regular expression is matched in a
 * worker thread (re2js is linear in the text, but its cost per byte grows with the expression:
 * `[a-z]+[0-9]` took 5-7 ms per 64 KB here on Node 22), a long line is decoded only around its match, one
 * line is put out once however many pieces it is searched in, and the call's timeout fires.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { measureBlocking, MAX_BLOCK_MS } from "../../../helpers/loopDelay.js"
import { call, makeWorkspace, outputOf } from "./harness.js"

const MB = 1024 * 1024
/** An expression re2js matches slowly (a class repeated, then another). */
const SLOW = "[a-z]+[0-9]"

let fixture: ReturnType<typeof makeWorkspace>
// the first call loads the system's modules (ToolSystem.layerNode imports them lazily): not the search's cost
beforeAll(async () => {
  const warm = makeWorkspace("search-freeze-warm-")
  await Effect.runPromise(call(warm.ws, "search_files", { pattern: "x", regex: true }))
  warm.remove()
})
beforeEach(() => {
  fixture = makeWorkspace("search-freeze-")
})
afterEach(() => fixture.remove())

/** Runs one search_files call, timed out after `timeoutMs`, measuring the longest block. */
const searchTimed = (args: Record<string, unknown>, timeoutMs: number) =>
  measureBlocking(async () => {
    const started = Date.now()
    const result = await Effect.runPromise(Effect.timeoutOption(call(fixture.ws, "search_files", args), timeoutMs))
    return { result, ms: Date.now() - started }
  })

describe("search_files: no call blocks the event loop", () => {
  it("a slow expression over a 10 MB line: the timeout fires on time, without a long block", async () => {
    fixture.write("big.txt", Buffer.alloc(10 * MB, "a"))
    const { maxBlockMs, value } = await searchTimed({ pattern: SLOW, regex: true }, 600)
    // timed out (None); on a failure, what the call answered instead is in the message
    expect(Option.getOrUndefined(value.result)).toBeUndefined()
    expect(value.ms).toBeLessThan(1500)
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  })

  it("many small files and a slow expression: the timeout fires on time, without a long block", async () => {
    // 40 MB: the whole search takes seconds (8 MB of this took 0.67-0.95 s on Node 22), far past the 600 ms timeout
    for (let i = 0; i < 40; i++) fixture.write(`f${String(i).padStart(2, "0")}.txt`, Buffer.alloc(MB, "a"))
    const { maxBlockMs, value } = await searchTimed({ pattern: SLOW, regex: true }, 600)
    // timed out (None); on a failure, what the call answered instead is in the message
    expect(Option.getOrUndefined(value.result)).toBeUndefined()
    expect(value.ms).toBeLessThan(1500)
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  })

  it("100k matches on one 10 MB line: one capped line, searched without a long block", async () => {
    fixture.write("many.txt", Buffer.alloc(10 * MB, "ab1 "))
    for (const regex of [true, false]) {
      const { maxBlockMs, value } = await searchTimed({ pattern: regex ? "b[0-9]" : "b1", regex }, 20_000)
      const lines = outputOf(Option.getOrThrow(value.result)).split("\n")
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^many\.txt:1: ab1 ab1 /)
      expect(lines[0]!.length).toBeLessThan(320)
      expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
    }
  })

  it("a match-everything expression over long lines: each line once, capped, without a long block", async () => {
    fixture.write("long.txt", `${"x".repeat(3 * MB)}\n${"y".repeat(3 * MB)}\n`)
    const { maxBlockMs, value } = await searchTimed({ pattern: ".*", regex: true }, 20_000)
    const lines = outputOf(Option.getOrThrow(value.result)).split("\n")
    expect(lines.map((line) => line.slice(0, 12))).toEqual(["long.txt:1: ", "long.txt:2: "])
    expect(lines.every((line) => line.length < 320)).toBe(true)
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  })
})
