/**
 * `closest`, the "did you mean" hints: candidates within an edit distance of a third of the
 * name (at least 2), or containing it, or contained in it; nearest first, then alphabetical;
 * at most `max`.
 */
import { describe, expect, it } from "@effect/vitest"
import { closest, MAX_COMPARED_NAME } from "../../src/layers/closest.js"

describe("closest", () => {
  it("keeps the candidates within a third of the name's length, nearest first", () => {
    // "abcdefghi": 9 characters, so at most 3 edits
    const candidates = ["abcdexxxx", "abcdefxxx", "zzzzzzzzz", "abcdefgxx", "xbcdefghi", "abcdefghx"]
    expect(closest("abcdefghi", candidates, 10)).toEqual(["abcdefghx", "xbcdefghi", "abcdefgxx", "abcdefxxx"])
  })

  it("counts insertions, deletions and substitutions anywhere in either name", () => {
    // one edit each: an insertion, a deletion, a substitution
    expect(closest("kitten", ["kitteen", "kiten", "kitsen"], 10)).toEqual(["kiten", "kitsen", "kitteen"])
    // two edits: still within the floor of 2 for a short name; three are not
    expect(closest("cat", ["dog", "cut", "act", "cbx", "dogc"], 10)).toEqual(["cut", "act", "cbx"])
    expect(closest("sitting", ["kitten"], 10)).toEqual([])
    expect(closest("abc", ["bcd"], 10)).toEqual(["bcd"])
  })

  it("a candidate containing the name, or contained in it, counts as one edit away", () => {
    expect(closest("file", ["read_file_lines", "fil", "files", "abcd"], 10)).toEqual(["fil", "files", "read_file_lines"])
    expect(closest("read_file", ["read", "write_file_now"], 10)).toEqual(["read"])
  })

  it("breaks ties alphabetically and returns at most max (3 by default)", () => {
    const candidates = ["tool_c", "tool_b", "tolo", "tool_a", "too"]
    expect(closest("tool", candidates, 10)).toEqual(["too", "tool_a", "tool_b", "tool_c", "tolo"])
    expect(closest("tool", candidates)).toEqual(["too", "tool_a", "tool_b"])
    expect(closest("tool", candidates, 1)).toEqual(["too"])
    expect(closest("tool", [])).toEqual([])
  })

  it("compares a long name by its first MAX_COMPARED_NAME characters", () => {
    const head = "a".repeat(MAX_COMPARED_NAME - 1)
    // one substitution from the name's first 128 characters; 73 edits from the whole 200
    const near = `${head}X`
    expect(closest(`${head}${"b".repeat(200 - MAX_COMPARED_NAME + 1)}`, [near, "zzz"], 10)).toEqual([near])
  })
})
