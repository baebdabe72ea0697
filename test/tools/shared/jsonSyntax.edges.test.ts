/**
 * `firstSyntaxError` at the edges of its character classes: every digit in every place a number
 * has digits, and the lowest characters a string may hold as they are (a space, not U+001F).
 */
import { describe, expect, it } from "@effect/vitest"
import { firstSyntaxError } from "../../../src/tools/shared/jsonSyntax.js"

describe("firstSyntaxError: character classes", () => {
  it("accepts each digit 0-9 as a number's first digit, its integer part, its fraction and its exponent", () => {
    for (const d of "0123456789") {
      for (const text of [`${d}`, `-${d}`, `1${d}`, `0.${d}`, `1.0${d}`, `1e${d}`, `1E+1${d}`, `[${d}]`]) {
        expect(firstSyntaxError(text), text).toBeUndefined()
        expect(() => JSON.parse(text)).not.toThrow()
      }
    }
    expect(firstSyntaxError("[19, 99.9e9]")).toBeUndefined()
  })

  it("accepts a space in a string as it is, and refuses the control character just below it", () => {
    expect(firstSyntaxError("\"a b\"")).toBeUndefined()
    expect(firstSyntaxError("{\"key with spaces\": \" \"}")).toBeUndefined()
    expect(firstSyntaxError("\"a\u001fb\"")).toEqual({
      offset: 2,
      expected: "a closing quote (a control character must be escaped)"
    })
  })
})
