import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import { textTools } from "../../../../src/tools/ported/text/index.js"
import { renderStats, textStats } from "../../../../src/tools/ported/text/textStats.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"
import { runner } from "../../../helpers/portedRunner.js"

const ws = makeTempDirSync("ported-stats-")
const run = runner(textTools, () => ws)

afterAll(() => {
  Fs.rmSync(ws, { recursive: true, force: true })
})

describe("textStats", () => {
  it("white space is tab to carriage return, space and Unicode spaces; other control characters are not", () => {
    expect(textStats("a\u0001b")).toEqual({
      characters: 3,
      nonWhitespace: 3,
      codeUnits: 3,
      utf8Bytes: 3,
      words: 1,
      lines: 1,
      sentences: 1,
      paragraphs: 1,
      lineEndings: "none"
    })
    expect(textStats("a\u000bb\u000cc\u2003d\u3000e")).toMatchObject({ words: 5, nonWhitespace: 5 })
    expect(textStats("a\u007fb\u001fc")).toMatchObject({ words: 1, nonWhitespace: 5 })
  })

  it("characters count code points: a pair of surrogates is one, a lone surrogate one", () => {
    const characters = (text: string) => textStats(text).characters
    expect(characters("😀")).toBe(1)
    expect(characters("\ud800\udc00")).toBe(1) // U+10000, the first pair
    expect(characters("\udbff\udfff")).toBe(1) // U+10FFFF, the last pair
    expect(characters("\ud800a")).toBe(2) // a lone high surrogate, then a letter
    expect(characters("\ud800\ue000")).toBe(2) // U+E000 is no low surrogate
    expect(characters("a\udc00")).toBe(2) // a lone low surrogate after a letter
    expect(characters("\udc00\udc00")).toBe(2) // two lone low surrogates
    expect(characters("\udc00")).toBe(1)
  })

  it("sentences end at . ! ? … and their CJK forms, also before closing quotes and brackets", () => {
    const sentences = (text: string) => textStats(text).sentences
    expect(sentences("好！再见")).toBe(2)
    expect(sentences("好？再见")).toBe(2)
    expect(sentences("Wait… ok")).toBe(2)
    expect(sentences("Hi.\rYo")).toBe(2)
    expect(sentences("'Yes.' No.")).toBe(2)
    expect(sentences("(Yes.) No.")).toBe(2)
    expect(sentences("[Yes.] No.")).toBe(2)
    expect(sentences("“Yes.” No.")).toBe(2)
    expect(sentences("‘Yes.’ No.")).toBe(2)
    expect(sentences("«Oui.» Non.")).toBe(2)
    // a closer after the end opens no new sentence
    expect(sentences("「はい。」")).toBe(1)
    expect(sentences("He said \"Stop!\"")).toBe(1)
    // terminators with no text before them end nothing
    expect(sentences("Hi!! Yo")).toBe(2)
    expect(sentences("...")).toBe(0)
  })

  it("paragraphs are separated by blank lines only", () => {
    expect(textStats("a\nb")).toMatchObject({ paragraphs: 1, lines: 2 })
    expect(textStats("a b\nc\nd")).toMatchObject({ paragraphs: 1, lines: 3 })
    expect(textStats("a\n\nb")).toMatchObject({ paragraphs: 2, lines: 3 })
    expect(textStats("a\n \t\nb\nc\n\n\nd")).toMatchObject({ paragraphs: 3, lines: 7 })
  })

  it("a final CR or LF ends the last line", () => {
    expect(textStats("a\r")).toMatchObject({ lines: 1, lineEndings: "CR" })
    expect(textStats("a\rb\r")).toMatchObject({ lines: 2, lineEndings: "CR" })
    expect(textStats("a\n")).toMatchObject({ lines: 1, lineEndings: "LF" })
    expect(textStats("\r")).toMatchObject({ lines: 1, lineEndings: "CR" })
  })

  it("renderStats names the line endings only when there are some", () => {
    expect(renderStats(textStats("x\ry"))).toContain("\nlines: 2 (line endings: CR)\n")
  })
})

describe("text_stats", () => {
  it.effect("a text without line breaks", () =>
    Effect.gen(function*() {
      const r = yield* run("text_stats", { text: "One line, no end" })
      expect(r.output).toBe([
        "characters: 16 (13 not white space; 16 UTF-16 code units; 16 bytes as UTF-8)",
        "words: 4",
        "lines: 1",
        "sentences: 1",
        "paragraphs: 1"
      ].join("\n"))
    }))
  it.effect("a text longer than one counting step is counted to its end", () =>
    Effect.gen(function*() {
      const r = yield* run("text_stats", { text: "ab ".repeat(100_000) })
      expect(r.output).toBe([
        "characters: 300000 (200000 not white space; 300000 UTF-16 code units; 300000 bytes as UTF-8)",
        "words: 100000",
        "lines: 1",
        "sentences: 1",
        "paragraphs: 1"
      ].join("\n"))
    }))
})
