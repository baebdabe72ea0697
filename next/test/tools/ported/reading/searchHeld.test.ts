/**
 * What `searchTree` holds open, and its byte-level first look:
 * - a directory reopened for workers' jobs is closed once its visit is over and its jobs are
 *   answered, not at the end of the search: a search of a tree with many directories holds a
 *   few at a time (counted in `/proc/self/fd` while the walk is at its last directory), and
 *   every one is closed when it ends;
 * - a small file on the main thread is looked at as bytes for a case-sensitive literal: a
 *   literal at any offset is found (the second byte included).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import { makeWorkspace, searchWorkspace } from "./harness.js"

const DIRECTORIES = 150
const openDescriptors = () => Fs.readdirSync("/proc/self/fd").length

let fixture: ReturnType<typeof makeWorkspace>

beforeAll(() => {
  fixture = makeWorkspace("search-held-")
  for (let d = 0; d < DIRECTORIES; d++) {
    for (let f = 0; f < 3; f++) fixture.write(`d${String(d).padStart(3, "0")}/f${f}.txt`, `line\nhit ${d}-${f}\n`)
  }
  // the walk meets this link (and asks to resolve it) at its last directory
  fixture.write("zz/plain.txt", "hit last\n")
  Fs.symlinkSync("../d000/f0.txt", `${fixture.ws}/zz/link.txt`)
})
afterAll(() => fixture.remove())

/** A search with two workers from the first file on; `probe` runs when the walk resolves a link. */
const searchWithWorkers = (probe: () => void) => searchWorkspace(fixture.ws, "hit", { workers: 2, onLink: probe })

// the descriptors are counted in /proc, and the workers read through /proc/self/fd paths
describe.skipIf(process.platform !== "linux")("searchTree's open directories", () => {
  // live clock: real search worker threads, kept idle between the two searches by a Node timer
  it.live("holds a few reopened directories at a time, not one per directory searched, and closes them all", () =>
    Effect.gen(function*() {
      // a first search starts the workers, which stay idle for the next: the count below is the search's own
      yield* searchWithWorkers(() => {})
      const before = openDescriptors()
      let atLastDirectory: number | undefined
      const result = yield* searchWithWorkers(() => {
        atLastDirectory = openDescriptors()
      })
      // the link leads to a file searched already: it is not searched twice
      expect(result.lines).toHaveLength(DIRECTORIES * 3 + 1)
      expect(atLastDirectory).toBeDefined()
      expect(atLastDirectory! - before).toBeLessThan(40)
      expect(openDescriptors()).toBe(before)
    }))
})

describe("searchTree's first look at a small file", () => {
  it.effect("finds a literal at every offset of a small file, the second byte included", () =>
    Effect.gen(function*() {
      const local = makeWorkspace("search-offset-")
      try {
        for (let offset = 0; offset < 4; offset++) local.write(`o${offset}.txt`, `${" ".repeat(offset)}NEEDLE\n`)
        local.write("none.txt", "NEEDL E\n")
        const result = yield* searchWorkspace(local.ws, "NEEDLE")
        expect(result.lines).toEqual([
          "o0.txt:1: NEEDLE",
          "o1.txt:1:  NEEDLE",
          "o2.txt:1:   NEEDLE",
          "o3.txt:1:    NEEDLE"
        ])
      } finally {
        local.remove()
      }
    }))
})
