import { describe, expect, it } from "@effect/vitest"
import { contentLines, eolOf, joinLines, spliceLines, splitLines, withEol } from "../../../../src/tools/ported/editing/lines.js"

describe("the line model of the editing tools", () => {
  it("splits and joins back to the same text, whatever the endings", () => {
    for (const text of ["", "\n", "a", "a\n", "a\r\nb\r\n", "a\nb\r\nc", "\r\n\r\n", "x\ry\n", "é😀\n中"]) {
      expect(joinLines(splitLines(text))).toBe(text)
    }
    expect(splitLines("")).toEqual([])
    expect(splitLines("a\r\nb")).toEqual([{ text: "a", end: "\r\n" }, { text: "b", end: "" }])
    // a lone CR is part of a line, not an ending
    expect(splitLines("x\ry\n")).toEqual([{ text: "x\ry", end: "\n" }])
  })

  it("finds the ending most lines use", () => {
    expect(eolOf("a")).toBeUndefined()
    expect(eolOf("a\nb\n")).toBe("\n")
    expect(eolOf("a\r\nb\r\n")).toBe("\r\n")
    expect(eolOf("a\r\nb\r\nc\n")).toBe("\r\n")
    expect(eolOf("a\r\nb\nc\n")).toBe("\n")
    expect(withEol("a\nb\r\nc", "\r\n")).toBe("a\r\nb\r\nc")
  })

  it("reads a content argument as lines, its final line break optional", () => {
    expect(contentLines("a")).toEqual(["a"])
    expect(contentLines("a\n")).toEqual(["a"])
    expect(contentLines("a\r\nb\r\n")).toEqual(["a", "b"])
    expect(contentLines("")).toEqual([""])
    expect(contentLines("a\n\n")).toEqual(["a", ""])
  })

  it("keeps a file's lack of a final newline, and each replaced line's own ending", () => {
    const noFinal = splitLines("a\nb")
    expect(joinLines(spliceLines(noFinal, 2, 2, ["c"], "\n"))).toBe("a\nb\nc")
    expect(joinLines(spliceLines(noFinal, 1, 2, [], "\n"))).toBe("a")
    expect(joinLines(spliceLines(noFinal, 0, 2, [], "\n"))).toBe("")
    expect(joinLines(spliceLines(noFinal, 1, 2, ["x", "y"], "\n"))).toBe("a\nx\ny")
    const final = splitLines("a\nb\n")
    expect(joinLines(spliceLines(final, 2, 2, ["c"], "\n"))).toBe("a\nb\nc\n")
    expect(joinLines(spliceLines(final, 1, 2, [], "\n"))).toBe("a\n")
    const mixed = splitLines("a\r\nb\nc\r\n")
    expect(joinLines(spliceLines(mixed, 1, 2, ["B"], "\r\n"))).toBe("a\r\nB\nc\r\n")
    expect(joinLines(spliceLines(mixed, 1, 2, ["B1", "B2"], "\r\n"))).toBe("a\r\nB1\r\nB2\nc\r\n")
  })
})

describe("the line model at its edges", () => {
  it("a text that starts with a line break has an empty first line", () => {
    expect(splitLines("\nb")).toEqual([{ text: "", end: "\n" }, { text: "b", end: "" }])
    expect(splitLines("\r\n")).toEqual([{ text: "", end: "\r\n" }])
    expect(eolOf("\nb")).toBe("\n")
    expect(eolOf("\r\nb")).toBe("\r\n")
  })

  it("as many LF as CRLF lines is LF", () => {
    expect(eolOf("a\nb\r\n")).toBe("\n")
    expect(eolOf("a\r\nb\n")).toBe("\n")
  })

  it("an insertion (an empty range) takes no ending from the line before it", () => {
    const mixed = splitLines("a\r\nb\n")
    expect(spliceLines(mixed, 1, 1, ["x"], "\n")).toEqual([
      { text: "a", end: "\r\n" },
      { text: "x", end: "\n" },
      { text: "b", end: "\n" }
    ])
    expect(joinLines(spliceLines(splitLines("a\r\n"), 1, 1, ["x", "y"], "\n"))).toBe("a\r\nx\ny\n")
  })
})
