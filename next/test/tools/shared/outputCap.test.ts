/**
 * `outputCap.ts`: the cap on a tool's answer (never inside a surrogate pair, at a line break
 * when one is near, with a note saying what was left out).
 */
import { describe, expect, it } from "@effect/vitest"
import { capOutput, headOf, OUTPUT_MAX_CHARS } from "../../../src/tools/shared/outputCap.js"

describe("headOf", () => {
  it("keeps a text within the cap; cuts a longer one, never between the halves of a surrogate pair", () => {
    expect(headOf("abc", 3)).toBe("abc")
    // within the cap, a text ending in a lone high surrogate is kept whole
    expect(headOf("a\ud83d", 2)).toBe("a\ud83d")
    expect(headOf("abcd", 3)).toBe("abc")
    // "a😀b": the cut at 2 would leave the pair's high half
    expect(headOf("a😀b", 2)).toBe("a")
    expect(headOf("a😀b", 3)).toBe("a😀")
    expect(headOf("😀", 0)).toBe("")
    // the ends of the high-surrogate range, and the code units just outside it
    expect(headOf("a\ud800\udc00", 2)).toBe("a")
    expect(headOf("a\udbff\udfff", 2)).toBe("a")
    expect(headOf("a\ud7ffb", 2)).toBe("a\ud7ff")
    expect(headOf("a\udc00b", 2)).toBe("a\udc00")
  })
})

describe("capOutput", () => {
  it("leaves a text within the cap as it is; cuts a longer one with a note of what was left out", () => {
    expect(capOutput("x".repeat(10), { maxChars: 10, rest: "ask for less" })).toBe("x".repeat(10))
    expect(capOutput("x".repeat(11), { maxChars: 10, rest: "ask for less" })).toBe(
      `${"x".repeat(10)}\n... (cut after 10 of 11 characters; ask for less)`
    )
  })

  it("caps at OUTPUT_MAX_CHARS by default", () => {
    const text = "y".repeat(OUTPUT_MAX_CHARS + 1)
    expect(capOutput("y".repeat(OUTPUT_MAX_CHARS), { rest: "r" })).toHaveLength(OUTPUT_MAX_CHARS)
    expect(capOutput(text, { rest: "r" })).toBe(`${"y".repeat(OUTPUT_MAX_CHARS)}\n... (cut after ${OUTPUT_MAX_CHARS} of ${OUTPUT_MAX_CHARS + 1} characters; r)`)
  })

  it("atLine: cuts after the last line break when it lies in the kept part's second half", () => {
    // kept: "aaaa\nbbbbb" (10): the break at 4 is in the first half, so the cut stays at 10
    expect(capOutput("aaaa\nbbbbbbbbbb", { maxChars: 10, atLine: true, rest: "r" })).toBe(
      "aaaa\nbbbbb\n... (cut after 10 of 15 characters; r)"
    )
    // the break at 5 of 10 (exactly half): cut there
    expect(capOutput("aaaaa\nbbbbbbbbb", { maxChars: 10, atLine: true, rest: "r" })).toBe(
      "aaaaa\n... (cut after 5 of 15 characters; r)"
    )
    expect(capOutput("aaaaaaa\nbbbbbbb", { maxChars: 10, atLine: true, rest: "r" })).toBe(
      "aaaaaaa\n... (cut after 7 of 15 characters; r)"
    )
    // without atLine the break is ignored
    expect(capOutput("aaaaaaa\nbbbbbbb", { maxChars: 10, rest: "r" })).toBe(
      "aaaaaaa\nbb\n... (cut after 10 of 15 characters; r)"
    )
  })
})
