/**
 * `jsonSyntax.ts`'s own scanner, tried against `JSON.parse` as the oracle: generated JSON
 * texts, and the same texts with one edit (a character deleted, or one of JSON's own
 * characters put in), must be judged alike; where the scanner finds a problem, the text up to
 * it must still be the start of some JSON text (no problem is reported late), and the located
 * error names the line and column of that offset. The generated texts (fast-check) are in
 * `jsonSyntax.slow.test.ts`; here, the expected names and the located error.
 */
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import {
  DATA_JSON_MAX_DEPTH,
  excerptAt,
  firstSyntaxError,
  parseJsonLocated,
  positionOf,
  syntaxErrorOf
} from "../../../src/tools/shared/jsonSyntax.js"
import { parses } from "./jsonSyntaxHarness.js"

describe("firstSyntaxError against JSON.parse", () => {
  it("names what it expected at each kind of problem", () => {
    const cases: ReadonlyArray<readonly [string, number, string]> = [
      ["", 0, "a value (an object, array, string, number, true, false or null)"],
      ["[1 2]", 3, "',' or ']' after an array item"],
      ["{\"a\":1 \"b\":2}", 7, "',' or '}' after a property value"],
      ["{1:2}", 1, "a property name in double quotes"],
      ["{\"a\" 1}", 5, "':' after the property name"],
      ["\"ab", 3, "a closing quote"],
      ["\"a\u0001\"", 2, "a closing quote (a control character must be escaped)"],
      ["\"a\u001f\"", 2, "a closing quote (a control character must be escaped)"],
      ["\"\\u12g4\"", 1, "four hex digits after \\u"],
      ["\"\\q\"", 1, "a valid escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX)"],
      ["-", 1, "a digit"],
      ["-a", 1, "a digit"],
      ["1.", 2, "a digit after the decimal point"],
      ["1.e5", 2, "a digit after the decimal point"],
      ["1e", 2, "a digit in the exponent"],
      ["1e+", 3, "a digit in the exponent"],
      ["1E-x", 3, "a digit in the exponent"],
      ["01", 1, "the end of the text after the JSON value"],
      ["{} {}", 3, "the end of the text after the JSON value"],
      ["[1,]", 3, "a value (an object, array, string, number, true, false or null)"],
      ["{\"a\":1,}", 7, "a property name in double quotes"],
      ["tru", 0, "a value (an object, array, string, number, true, false or null)"],
      ["[nul]", 1, "a value (an object, array, string, number, true, false or null)"]
    ]
    for (const [text, offset, expected] of cases) {
      expect(firstSyntaxError(text), JSON.stringify(text)).toEqual({ offset, expected })
    }
    for (const valid of ["0", "-0", "-0.5e+10", "1E-2", "1e5", "\"\\u00aF\\/\\b\\f\\n\\r\\t\\\"\\\\\"", " [ ] ", "{ }", "[[],{}]", "true", "false", "null"]) {
      expect(firstSyntaxError(valid), valid).toBeUndefined()
    }
  })
})

describe("locating the problem", () => {
  it("counts lines at \\n and columns in characters (a surrogate pair is one)", () => {
    expect(positionOf("ab\ncd\nef", 7)).toEqual({ line: 3, column: 2, lineStart: 6 })
    expect(positionOf("ab\ncd", 2)).toEqual({ line: 1, column: 3, lineStart: 0 })
    expect(positionOf("ab\ncd", 3)).toEqual({ line: 2, column: 1, lineStart: 3 })
    expect(positionOf("😀😀x", 4)).toEqual({ line: 1, column: 3, lineStart: 0 })
    // a lone low surrogate at the start of the count is a character of its own
    expect(positionOf("\udc00\udc00x", 2)).toEqual({ line: 1, column: 3, lineStart: 0 })
    // and so is one after a character below the high surrogates
    expect(positionOf("a\udc00x", 2)).toEqual({ line: 1, column: 3, lineStart: 0 })
    // a lone high surrogate joins no character above the low surrogates
    expect(positionOf("\ud800\ue000x", 2)).toEqual({ line: 1, column: 3, lineStart: 0 })
  })

  it("shows the line around the problem with a caret under it; control characters as spaces", () => {
    expect(excerptAt("[1, x]", 4, 0)).toBe("  [1, x]\n      ^")
    expect(excerptAt("[1,\n x]", 5, 4)).toBe("   x]\n   ^")
    expect(excerptAt("[\t1 x]", 4, 0)).toBe("  [ 1 x]\n      ^")
    // 60 characters before, 20 after, cut at the line's end
    const long = `[${"1,".repeat(50)}x${",1".repeat(30)}]`
    const [line, caret] = excerptAt(long, 101, 0).split("\n")
    expect(line).toBe(`  …${long.slice(41, 121)}`)
    expect(caret?.indexOf("^")).toBe(2 + 1 + 60)
    expect(excerptAt("[x]\n[2]", 1, 0)).toBe("  [x]\n   ^")
    // a cut never starts inside a surrogate pair
    const emoji = `[${"😀".repeat(40)} x]`
    const shown = excerptAt(emoji, emoji.length - 2, 0).split("\n")[0] ?? ""
    expect(shown.startsWith("  …😀")).toBe(true)
    // and a character above the low surrogates where it starts is kept
    const privateUse = `[${"1,".repeat(5)}\ue000${"2".repeat(59)}x]`
    const at = privateUse.indexOf("x")
    expect(excerptAt(privateUse, at, 0).split("\n")[0]).toBe(`  …${privateUse.slice(at - 60, at + 2)}`)
    expect(privateUse.charAt(at - 60)).toBe("\ue000")
  })

  it("the error names line, column, what was expected and what was found", () => {
    const text = "{\n  \"a\": [1,\n    2 3]\n}"
    const error = syntaxErrorOf(text, new SyntaxError("whatever"))
    expect([error.reason, error.line, error.column]).toEqual(["syntax", 3, 7])
    expect(error.message).toBe(
      "not valid JSON: line 3, column 7: expected ',' or ']' after an array item, found '3'\n      2 3]\n        ^"
    )
    expect(syntaxErrorOf("[1,", undefined).message).toContain("found the end of the text")
    expect(syntaxErrorOf("\uFEFF1", undefined).message).toContain("found U+FEFF")
    expect(syntaxErrorOf("[\u0085]", undefined).message).toContain("found U+0085")
    expect(syntaxErrorOf("[😀]", undefined).message).toContain("found '😀'")
  })

  it("where the scan finds no problem, V8's reason is given without the text it quotes", () => {
    const error = syntaxErrorOf("[1]", new SyntaxError("Unexpected token 'x', \"[x] secret\" is not valid JSON"))
    expect(error.message).toBe("not valid JSON: Unexpected token 'x'")
    expect(error.line).toBeUndefined()
    expect(syntaxErrorOf("[1]", "odd").message).toBe("not valid JSON: odd")
  })

  it("parseJsonLocated: JSON parses; deeper than the bound is refused before parsing", () => {
    expect(parseJsonLocated("{\"a\":[1,2]}")).toEqual(Result.succeed({ a: [1, 2] }))
    const deep = parseJsonLocated(`${"[".repeat(DATA_JSON_MAX_DEPTH + 1)}${"]".repeat(DATA_JSON_MAX_DEPTH + 1)}`)
    expect(Result.isFailure(deep) && [deep.failure.reason, deep.failure.message]).toEqual([
      "too-deep",
      `the JSON is nested deeper than ${DATA_JSON_MAX_DEPTH} levels`
    ])
    expect(Result.isSuccess(parseJsonLocated(`${"[".repeat(DATA_JSON_MAX_DEPTH)}${"]".repeat(DATA_JSON_MAX_DEPTH)}`))).toBe(true)
    expect(Result.isFailure(parseJsonLocated("[[1]]", 1))).toBe(true)
    const bad = parseJsonLocated("[1,]")
    expect(Result.isFailure(bad) && [bad.failure.reason, bad.failure.line, bad.failure.column]).toEqual(["syntax", 1, 4])
  })
})

describe("the edges of locating (each case fails under a mutant Stryker found alive)", () => {
  it("JSON's four whitespace characters are skipped everywhere a value may be", () => {
    for (const ws of [" ", "\t", "\n", "\r"]) {
      const text = `${ws}[${ws}1${ws},${ws}{${ws}"a"${ws}:${ws}2${ws}}${ws}]${ws}`
      expect(parses(text)).toBe(true)
      expect(firstSyntaxError(text), JSON.stringify(text)).toBeUndefined()
    }
  })

  it("counts a pair at either end of the surrogate ranges once, and a lone high surrogate and what follows it apart", () => {
    // U+10000 is \ud800\udc00, U+10FFFF is \udbff\udfff; then a lone high surrogate and an 'a'
    const text = "\u{10000}\u{10FFFF}\ud800ax"
    expect(positionOf(text, 6)).toEqual({ line: 1, column: 5, lineStart: 0 })
  })

  it("the excerpt ends 20 characters after the problem even when the line goes on", () => {
    const text = `[x${"a".repeat(50)}\n]`
    expect(excerptAt(text, 1, 0)).toBe(`  [x${"a".repeat(19)}\n   ^`)
  })

  it("a cut that would start on the low half of a pair starts after it, on a high half as it is", () => {
    for (const pair of ["😀", "\u{10000}", "\u{10FFFF}"]) {
      const text = `[${pair.repeat(40)} x]`
      // from = 82 - 60 = 22, the low half of the 11th pair: the excerpt starts at the 12th
      expect(excerptAt(text, 82, 0)).toBe(`  …${pair.repeat(29)} x]\n  ${" ".repeat(31)}^`)
      // from = 23, a high half
      expect(excerptAt(text, 83, 0)).toBe(`  …${pair.repeat(29)} x]\n  ${" ".repeat(32)}^`)
    }
    // a line that starts with a lone low surrogate keeps it
    expect(excerptAt("\udc00 x", 2, 0)).toBe("  \udc00 x\n    ^")
  })

  it("a control character at the problem shows as a space that is kept; trailing ones are trimmed", () => {
    expect(excerptAt("[1,\u0001 ]", 3, 0)).toBe("  [1,  ]\n     ^")
    expect(excerptAt("[x\u0001\u0001", 1, 0)).toBe("  [x\n   ^")
  })

  it("names a C0 or C1 control character or DEL found at the problem by its code point", () => {
    expect(syntaxErrorOf("[\u0001]", undefined).message).toContain("found U+0001")
    expect(syntaxErrorOf("[\u007f]", undefined).message).toContain("found U+007F")
    expect(syntaxErrorOf("[\u009f]", undefined).message).toContain("found U+009F")
    expect(syntaxErrorOf("[\u00a0]", undefined).message).toContain("found '\u00a0'")
    // a space is shown as itself: the scan stops at one after a minus sign
    expect(syntaxErrorOf("[- 1]", undefined).message).toBe("not valid JSON: line 1, column 3: expected a digit, found ' '\n  [- 1]\n    ^")
  })

  it("V8's reason loses a quoted text also without a comma before it, and is cut at 200 characters", () => {
    expect(syntaxErrorOf("[1]", new SyntaxError("Bad control character \"[x] secret\"")).message).toBe(
      "not valid JSON: Bad control character"
    )
    expect(syntaxErrorOf("[1]", new SyntaxError("y".repeat(300))).message).toBe(`not valid JSON: ${"y".repeat(200)}`)
  })
})
