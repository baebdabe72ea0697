import { afterAll, describe, expect, it } from "@effect/vitest"
import { applyPatch } from "diff"
import { Effect } from "effect"
import * as Fs from "node:fs"
import { unifiedDiff } from "../../../../src/tools/ported/text/diffText.js"
import { textTools } from "../../../../src/tools/ported/text/index.js"
import { textStats } from "../../../../src/tools/ported/text/textStats.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"
import { runner, underMutationTesting } from "../../../helpers/portedRunner.js"

const ws = makeTempDirSync("ported-text-")
const run = runner(textTools, () => ws)

afterAll(() => {
  Fs.rmSync(ws, { recursive: true, force: true })
})

describe("text_stats", () => {
  it.effect("counts characters, words, lines, sentences and paragraphs", () =>
    Effect.gen(function*() {
      const r = yield* run("text_stats", { text: "Hello world. How are you?\n\nFine!" })
      expect(r.output).toBe([
        "characters: 32 (26 not white space; 32 UTF-16 code units; 32 bytes as UTF-8)",
        "words: 6",
        "lines: 3 (line endings: LF)",
        "sentences: 3",
        "paragraphs: 2"
      ].join("\n"))
    }))

  it("edges: empty, CRLF, a final line break, unicode, a sentence without a terminator", () => {
    expect(textStats("")).toMatchObject({ characters: 0, words: 0, lines: 0, sentences: 0, paragraphs: 0, lineEndings: "none" })
    expect(textStats("a\r\nb\r\n")).toMatchObject({ characters: 6, lines: 2, lineEndings: "CRLF", words: 2 })
    expect(textStats("a\nb\r\nc")).toMatchObject({ lines: 3, lineEndings: "mixed" })
    expect(textStats("a\rb")).toMatchObject({ lines: 2, lineEndings: "CR" })
    expect(textStats("😀 東京。日本！")).toMatchObject({ characters: 8, codeUnits: 9, utf8Bytes: 23, words: 2, sentences: 2 })
    expect(textStats("no end here")).toMatchObject({ sentences: 1, words: 3 })
    expect(textStats("He said \"Stop!\" Then left.")).toMatchObject({ sentences: 2 })
    expect(textStats("v1.2 is out")).toMatchObject({ sentences: 1 })
    expect(textStats("   \n\t ")).toMatchObject({ words: 0, sentences: 0, paragraphs: 0, lines: 2 })
    expect(textStats("a\u00a0b")).toMatchObject({ words: 2 })
  })
  // a 30 Mi-character text counted in one linear pass: text.slow.test.ts
})

describe("format_json", () => {
  it.effect("validates and pretty-prints with the indent asked for", () =>
    Effect.gen(function*() {
      expect((yield* run("format_json", { text: "{\"a\":[1,2],\"b\":{}}" })).output).toBe("{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {}\n}")
      expect((yield* run("format_json", { text: " {\"a\" : 1 } ", indent: 0 })).output).toBe("{\"a\":1}")
      expect((yield* run("format_json", { text: "[\"é\",\"😀\"]", indent: 4 })).output).toBe("[\n    \"é\",\n    \"😀\"\n]")
      expect((yield* run("format_json", { text: "{}", indent: 9 })).errorCode).toBe("INVALID_ARGUMENTS")
    }))

  it.effect("an error names line and column (CRLF lines counted once) and shows the line", () =>
    Effect.gen(function*() {
      const r = yield* run("format_json", { text: "{\r\n  \"a\": 1,\r\n  \"b\" 2\r\n}" })
      expect(r.errorCode).toBe("TOOL_ERROR")
      expect(r.error).toBe("not valid JSON: line 3, column 7: expected ':' after the property name, found '2'\n    \"b\" 2\n        ^")
      expect((yield* run("format_json", { text: "" })).error).toContain("line 1, column 1")
      expect((yield* run("format_json", { text: "{\"a\":1}}" })).error).toContain(
        "line 1, column 8: expected the end of the text after the JSON value, found '}'"
      )
      expect((yield* run("format_json", { text: "{'a': 1}" })).error).toContain("expected a property name in double quotes, found '''")
    }))

  it.effect("deep nesting is refused; a long result is cut with how to get the rest", () =>
    Effect.gen(function*() {
      expect((yield* run("format_json", { text: "{\"a\":".repeat(100_000) })).error).toBe("the JSON is nested deeper than 256 levels")
      const numbers = Array.from({ length: 50_000 }, (_, i) => i)
      const big = JSON.stringify(numbers)
      const rest = "use query_json with a pointer to format a part"
      // indented: cut at the last line break before 256 Ki characters, after the line "  30360,"
      const indented = JSON.stringify(numbers, null, 2)
      expect(indented.slice(262_130, 262_141)).toBe(",\n  30360,\n")
      expect((yield* run("format_json", { text: big })).output).toBe(
        `${indented.slice(0, 262_140)}\n... (cut after 262140 of 438892 characters; ${rest})`
      )
      // one compact line: cut at the cap itself
      expect((yield* run("format_json", { text: big, indent: 0 })).output).toBe(
        `${big.slice(0, 262_144)}\n... (cut after 262144 of 288891 characters; ${rest})`
      )
    }))
})

describe("diff_text", () => {
  it.effect("a unified diff with context; identical texts and line endings said plainly", () =>
    Effect.gen(function*() {
      const r = yield* run("diff_text", { a: "one\ntwo\nthree\n", b: "one\n2\nthree\n" })
      expect(r.output).toBe("--- a\n+++ b\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three")
      expect((yield* run("diff_text", { a: "x\n", b: "x\n" })).output).toBe("The texts are identical.")
      expect((yield* run("diff_text", { a: "x\r\ny\r\n", b: "x\ny\n" })).output).toBe(
        "The texts differ only in their line endings (a: CRLF, b: LF)."
      )
      expect((yield* run("diff_text", { a: "", b: "new\n" })).output).toBe("--- a\n+++ b\n@@ -0,0 +1,1 @@\n+new")
      expect((yield* run("diff_text", { a: "x", b: "x\n" })).output).toBe(
        "--- a\n+++ b\n@@ -1,1 +1,1 @@\n-x\n\\ No newline at end of file\n+x"
      )
      expect((yield* run("diff_text", { a: "é 😀\n", b: "é 😁\n" })).output).toBe("--- a\n+++ b\n@@ -1,1 +1,1 @@\n-é 😀\n+é 😁")
    }))

  it.effect("line numbers stay right when the shared start and end are set aside", () =>
    Effect.gen(function*() {
      const lines = Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`)
      const a = `${lines.join("\n")}\n`
      const changed = [...lines]
      changed[499] = "CHANGED"
      changed.splice(800, 1)
      const b = `${changed.join("\n")}\n`
      expect((yield* run("diff_text", { a, b, context_lines: 1 })).output).toBe([
        "--- a",
        "+++ b",
        "@@ -499,3 +499,3 @@",
        " line 499",
        "-line 500",
        "+CHANGED",
        " line 501",
        "@@ -800,3 +800,2 @@",
        " line 800",
        "-line 801",
        " line 802"
      ].join("\n"))
      expect((yield* run("diff_text", { a: "a\nb\nc\n", b: "a\nb\nc\nd\n", context_lines: 0 })).output).toBe(
        "--- a\n+++ b\n@@ -3,0 +4,1 @@\n+d"
      )
      expect((yield* run("diff_text", { a: "same\nx", b: "same\ny" })).output).toBe(
        "--- a\n+++ b\n@@ -1,2 +1,2 @@\n same\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file"
      )
    }))

  it.effect.skipIf(underMutationTesting)("huge texts that differ a little are diffed quickly; ones that differ everywhere are refused", () =>
    Effect.gen(function*() {
      // two texts of 8 Mi characters each (the arguments of one call hold at most 32 Mi)
      const a = "x\n".repeat(4 * 1024 * 1024)
      const started = performance.now()
      const r = yield* run("diff_text", { a, b: `${a}y\n`, context_lines: 1 })
      expect(r.output).toBe(`--- a\n+++ b\n@@ -${4 * 1024 * 1024},1 +${4 * 1024 * 1024},2 @@\n x\n+y`)
      const wide = yield* run("diff_text", {
        a: Array.from({ length: 150_000 }, (_, i) => `${i}`).join("\n"),
        b: Array.from({ length: 150_000 }, (_, i) => `${i * 3}`).join("\n")
      })
      expect(wide.error).toMatch(/^the texts differ between line 1 and line 150000: more than 100000 lines/)
      expect(performance.now() - started).toBeLessThan(10_000)
    }))
})

describe("unifiedDiff", () => {
  /** A deterministic pseudo-random generator (xorshift), so a failure can be replayed. */
  const random = (seed: number) => () => {
    seed ^= seed << 13
    seed ^= seed >>> 17
    seed ^= seed << 5
    return ((seed >>> 0) % 1_000_000) / 1_000_000
  }

  it("its patches apply: setting aside the shared start and end never breaks a hunk", () => {
    const next = random(12345)
    const pieces = ["a", "b", "c", "", "a\r", "x y"]
    const textOf = () => {
      const n = Math.floor(next() * 8)
      const lines = Array.from({ length: n }, () => pieces[Math.floor(next() * pieces.length)] ?? "")
      return lines.join("\n") + (next() < 0.5 ? "\n" : "")
    }
    for (let k = 0; k < 1500; k++) {
      const a = textOf()
      const b = next() < 0.2 ? a : textOf()
      const context = Math.floor(next() * 4)
      const diff = Effect.runSync(unifiedDiff(a, b, context))
      if (diff.startsWith("The texts")) {
        expect(a.replace(/\r\n?/g, "\n") === b.replace(/\r\n?/g, "\n"), JSON.stringify([a, b])).toBe(true)
        continue
      }
      expect(applyPatch(a, `${diff}\n`, { autoConvertLineEndings: false }), JSON.stringify([a, b, context])).toBe(b)
    }
  })
})
