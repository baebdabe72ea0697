/**
 * `makeOutput` (`reading/searchOutput.ts`), the ordering side of `search_files`, fed by hand:
 * lines come out in walk order however late the outcomes arrive, stop at the limit, and the
 * notes count only files put out (a file that vanished is not unreadable).
 */
import { describe, expect, it } from "@effect/vitest"
import { SafeFsError } from "../../../../src/tools/shared/safeFsError.js"
import type { Outcome } from "../../../../src/tools/ported/reading/searchFile.js"
import { type FileEntry, makeChunk, makeOutput, noHits } from "../../../../src/tools/ported/reading/searchOutput.js"

const files = (...names: ReadonlyArray<string>): ReadonlyArray<FileEntry> => names.map((name) => ({ _tag: "File", name, repeat: false }))
const hits = (...lines: ReadonlyArray<number>): Outcome => ({
  _tag: "Searched",
  hits: lines.map((line) => ({ line, text: `text ${line}` })),
  partial: false
})
const unreadable = (reason: SafeFsError["reason"]): Outcome => ({
  _tag: "Unreadable",
  error: new SafeFsError({ reason, path: "/x", message: "m" })
})

describe("makeOutput", () => {
  it("puts lines out in walk order, each file once everything before it is known", () => {
    const output = makeOutput(100)
    const first = makeChunk("/ws/a", "a", files("one.txt", "two.txt"))
    const second = makeChunk("/ws/b", "b", files("three.txt"))
    output.add(first)
    output.add(second)
    // the second chunk is known first: nothing comes out yet
    second.outcomes[0] = hits(7)
    expect(output.flush()).toBe(false)
    expect(output.lines).toEqual([])
    // the first file is known: it comes out, the second still waits
    first.outcomes[0] = hits(1, 2)
    expect(output.flush()).toBe(false)
    expect(output.lines).toEqual(["a/one.txt:1: text 1", "a/one.txt:2: text 2"])
    expect([...output.waiting()]).toEqual([first, second])
    first.outcomes[1] = noHits
    expect(output.flush()).toBe(false)
    expect(output.lines).toEqual(["a/one.txt:1: text 1", "a/one.txt:2: text 2", "b/three.txt:7: text 7"])
    expect([...output.waiting()]).toEqual([])
  })

  it("stops at the limit, inside a file; files past it are neither put out nor counted", () => {
    const output = makeOutput(3)
    const chunk = makeChunk("/ws", ".", files("a", "b", "c", "d"))
    chunk.outcomes[0] = hits(1, 2)
    chunk.outcomes[1] = hits(5, 6, 7)
    chunk.outcomes[2] = { _tag: "Searched", hits: [], partial: true }
    chunk.outcomes[3] = unreadable("Io")
    output.add(chunk)
    expect(output.flush()).toBe(true)
    expect(output.lines).toEqual(["a:1: text 1", "a:2: text 2", "b:5: text 5"])
    expect(output.partial()).toBe(0)
    expect(output.unreadable()).toBe(0)
    expect(output.flush()).toBe(true)
    expect(output.lines).toHaveLength(3)
    // the chunk was not put out whole: it still waits (its directory is let go by whoever holds it)
    expect([...output.waiting()]).toEqual([chunk])
  })

  it("counts files searched in part and files that could not be read (one that vanished is not counted); binary files say nothing", () => {
    const output = makeOutput(100)
    const chunk = makeChunk("/ws/d", "d", files("p", "q", "r", "s", "t", "u"))
    chunk.outcomes[0] = { _tag: "Searched", hits: [{ line: 3, text: "x" }], partial: true }
    chunk.outcomes[1] = unreadable("NotFound")
    chunk.outcomes[2] = unreadable("Changed")
    chunk.outcomes[3] = { _tag: "Binary" }
    chunk.outcomes[4] = { _tag: "Searched", hits: [], partial: true }
    chunk.outcomes[5] = unreadable("Io")
    output.add(chunk)
    expect(output.flush()).toBe(false)
    expect(output.lines).toEqual(["d/p:3: x"])
    expect(output.partial()).toBe(2)
    expect(output.unreadable()).toBe(2)
  })

  it("shows a path with a control character quoted", () => {
    const output = makeOutput(10)
    const chunk = makeChunk("/ws/x", "x", files("new\nline.txt"))
    chunk.outcomes[0] = hits(1)
    output.add(chunk)
    output.flush()
    expect(output.lines).toEqual(["\"x/new\\nline.txt\":1: text 1"])
  })
})
