/**
 * `search_files` on a text file longer than `SEARCH_FILE_MAX_BYTES`: only its first bytes are
 * searched, the lines found there are shown, and a note says how many files were searched
 * only in part; a file read whole gets no such note. In the slow lane: searching up to the cap
 * costs 0.7-1.1 s of CPU, at the fast lane's 1 s bound.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { SEARCH_FILE_MAX_BYTES } from "../../../../src/tools/ported/reading/searchFile.js"
import { call, makeWorkspace, outputOf } from "./harness.js"

let fixture: ReturnType<typeof makeWorkspace>

const LINE = "some text line\n"

beforeAll(() => {
  fixture = makeWorkspace("search-partial-")
  // a first match, text up to past the cap, then a match past it
  const fd = Fs.openSync(Path.join(fixture.ws, "huge.txt"), "w")
  Fs.writeSync(fd, "NEEDLE early\n")
  const block = LINE.repeat(Math.floor((1024 * 1024) / LINE.length))
  for (let written = 0; written <= SEARCH_FILE_MAX_BYTES; written += block.length) Fs.writeSync(fd, block)
  Fs.writeSync(fd, "NEEDLE late\n")
  Fs.closeSync(fd)
  fixture.write("small.txt", "NEEDLE small\n")
})

afterAll(() => fixture.remove())

describe("search_files on a file past its read cap", () => {
  it.effect("only the first bytes are searched, and the note says one file was searched only in part", () =>
    Effect.gen(function*() {
      expect(Fs.statSync(Path.join(fixture.ws, "huge.txt")).size).toBeGreaterThan(SEARCH_FILE_MAX_BYTES)
      expect(outputOf(yield* call(fixture.ws, "search_files", { pattern: "NEEDLE" }))).toBe([
        "huge.txt:1: NEEDLE early",
        "small.txt:1: NEEDLE small",
        `(1 file was searched only in the first ${SEARCH_FILE_MAX_BYTES} bytes)`
      ].join("\n"))
      // a regular expression reads the same way
      expect(outputOf(yield* call(fixture.ws, "search_files", { pattern: "NEEDLE l", regex: true }))).toBe([
        "No matches for \"NEEDLE l\" in the workspace.",
        `(1 file was searched only in the first ${SEARCH_FILE_MAX_BYTES} bytes)`
      ].join("\n"))
    }), 60_000)

  it.effect("two files searched in part are counted in the plural", () =>
    Effect.acquireUseRelease(
      // a second name of the same file: a second file to the walk, without writing 64 MiB again
      Effect.sync(() => Fs.linkSync(Path.join(fixture.ws, "huge.txt"), Path.join(fixture.ws, "huge2.txt"))),
      () =>
        Effect.gen(function*() {
          expect(outputOf(yield* call(fixture.ws, "search_files", { pattern: "NEEDLE", glob: "huge*" }))).toBe([
            "huge.txt:1: NEEDLE early",
            "huge2.txt:1: NEEDLE early",
            `(2 files were searched only in the first ${SEARCH_FILE_MAX_BYTES} bytes)`
          ].join("\n"))
        }),
      () => Effect.sync(() => Fs.unlinkSync(Path.join(fixture.ws, "huge2.txt")))
    ), 60_000)

  it.effect("files read whole get no note", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* call(fixture.ws, "search_files", { pattern: "NEEDLE", glob: "small.txt" }))).toBe(
        "small.txt:1: NEEDLE small"
      )
    }))
})
