/**
 * What a person is shown of text a model or a client sent (`shownText.ts`): each hiding character
 * (C0 and C1 controls, DEL, bidi marks, embeddings, overrides and isolates) as a visible escape,
 * and nothing else touched; a cut at exactly `max` characters, never inside a surrogate pair, with
 * the note of how much is shown; `capText` the same cut without escaping; `showName` at 100.
 */
import { describe, expect, it } from "@effect/vitest"
import { capText, escapeHiding, MAX_SHOWN_NAME, showName, showText } from "../../src/domain/shownText.js"

const ch = (code: number) => String.fromCharCode(code)

describe("escapeHiding", () => {
  it("writes newline, carriage return and tab by their names", () => {
    expect(escapeHiding("a\nb\rc\td")).toBe("a\\nb\\rc\\td")
  })

  it("writes the other hiding characters as upper-case four-digit \\u escapes", () => {
    expect(escapeHiding("\u0000")).toBe("\\u0000")
    expect(escapeHiding("x\u0001y")).toBe("x\\u0001y")
    expect(escapeHiding("\u001b[31m")).toBe("\\u001B[31m")
    expect(escapeHiding("\u001f")).toBe("\\u001F")
    expect(escapeHiding("\u007f\u0085\u009f")).toBe("\\u007F\\u0085\\u009F")
    expect(escapeHiding("\u061c")).toBe("\\u061C")
    expect(escapeHiding("\u200e\u200f")).toBe("\\u200E\\u200F")
    expect(escapeHiding("abc\u202edef")).toBe("abc\\u202Edef")
    expect(escapeHiding("\u202a\u202b\u202c\u202d")).toBe("\\u202A\\u202B\\u202C\\u202D")
    expect(escapeHiding("\u2066\u2067\u2068\u2069")).toBe("\\u2066\\u2067\\u2068\\u2069")
  })

  it("leaves the characters just outside those ranges, and ordinary text, as they are", () => {
    const kept = [0x20, 0x7e, 0xa0, 0x61b, 0x61d, 0x200d, 0x2010, 0x2029, 0x202f, 0x2065, 0x206a].map(ch).join("")
    expect(escapeHiding(kept)).toBe(kept)
    expect(escapeHiding("plain text, ünïcödé and 😀")).toBe("plain text, ünïcödé and 😀")
    expect(escapeHiding("")).toBe("")
  })

  it("escapes every occurrence, not only the first", () => {
    expect(escapeHiding("\n\n\u202e\u202e")).toBe("\\n\\n\\u202E\\u202E")
  })
})

describe("capText", () => {
  it("keeps text of at most max characters as it is", () => {
    expect(capText("abc", 3)).toBe("abc")
    expect(capText("abc", 4)).toBe("abc")
    expect(capText("", 0)).toBe("")
  })

  it("cuts text longer than max to max characters and says so", () => {
    expect(capText("abcd", 3)).toBe("abc… (cut: showing 3 of 4 characters)")
    expect(capText("abcdef", 1)).toBe("a… (cut: showing 1 of 6 characters)")
  })

  it("does not escape what it keeps", () => {
    expect(capText("a\nb", 3)).toBe("a\nb")
    expect(capText("a\nbc", 3)).toBe("a\nb… (cut: showing 3 of 4 characters)")
  })

  it("takes the whole part of a fractional max, and nothing for a max below one", () => {
    expect(capText("abcdef", 2.5)).toBe("ab… (cut: showing 2 of 6 characters)")
    expect(capText("abc", 0)).toBe("… (cut: showing 0 of 3 characters)")
    expect(capText("abc", -2)).toBe("… (cut: showing 0 of 3 characters)")
  })

  it("never ends on the first half of a surrogate pair", () => {
    // "a😀b": the emoji is two UTF-16 units, 0xD83D 0xDE00
    expect(capText("a😀b", 2)).toBe("a… (cut: showing 1 of 4 characters)")
    expect(capText("a😀b", 3)).toBe("a😀… (cut: showing 3 of 4 characters)")
  })

  it("steps back over a high surrogate at either end of its range, and over nothing else", () => {
    for (const high of [0xd800, 0xdbff]) {
      expect(capText(`ab${ch(high)}${ch(0xdc00)}`, 3)).toBe("ab… (cut: showing 2 of 4 characters)")
    }
    // the code units just outside the high surrogates are kept
    for (const other of [0xd7ff, 0xdc00]) {
      expect(capText(`ab${ch(other)}z`, 3)).toBe(`ab${ch(other)}… (cut: showing 3 of 4 characters)`)
    }
  })
})

describe("showText", () => {
  it("escapes text of at most max characters without cutting it", () => {
    expect(showText("a\u202eb", 3)).toBe("a\\u202Eb")
    expect(showText("a\nb", 10)).toBe("a\\nb")
  })

  it("cuts longer text by its characters before escaping, and counts the characters as sent", () => {
    expect(showText("\n\n\n\n", 2)).toBe("\\n\\n… (cut: showing 2 of 4 characters)")
    expect(showText("abcd", 3)).toBe("abc… (cut: showing 3 of 4 characters)")
    expect(showText("a😀b", 2)).toBe("a… (cut: showing 1 of 4 characters)")
  })
})

describe("showName", () => {
  it("shows a name of up to MAX_SHOWN_NAME characters whole, escaped", () => {
    expect(MAX_SHOWN_NAME).toBe(100)
    const name = "n".repeat(100)
    expect(showName(name)).toBe(name)
    expect(showName("read\u202efile")).toBe("read\\u202Efile")
  })

  it("cuts a longer name at MAX_SHOWN_NAME characters", () => {
    expect(showName("n".repeat(101))).toBe(`${"n".repeat(100)}… (cut: showing 100 of 101 characters)`)
  })
})
