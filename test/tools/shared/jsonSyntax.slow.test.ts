/**
 * The tests of `jsonSyntax.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet machine:
 * real processes, worker starts, large inputs), kept in the slow lane so that the fast lane's
 * tests stay well under its 1 s CPU bound even on a loaded machine.
 *
 * `jsonSyntax.ts`'s own scanner, tried against `JSON.parse` as the oracle: generated JSON
 * texts, and the same texts with one edit (a character deleted, or one of JSON's own
 * characters put in), must be judged alike; where the scanner finds a problem, the text up to
 * it must still be the start of some JSON text (no problem is reported late), and the located
 * error names the line and column of that offset.
 */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import {
  firstSyntaxError
} from "../../../src/tools/shared/jsonSyntax.js"

const parses = (text: string): boolean => {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/** Characters an edit puts in: JSON's punctuation, the starts of its values, and some that are never JSON. */
const PIECES = ["{", "}", "[", "]", ",", ":", "\"", "\\", "-", "+", ".", "e", "E", "0", "7", "t", "n", "f", "u", " ", "\n", "\t", "x", "\u0001", "\u001f", "/"]

/** A JSON text (possibly indented) with one random edit. */
const edited = fc.tuple(fc.json({ depthSize: "small" }), fc.boolean(), fc.nat(), fc.constantFrom(...PIECES), fc.boolean())
  .map(([json, indent, at, piece, remove]) => {
    const text = indent ? JSON.stringify(JSON.parse(json), null, 2) : json
    const i = text.length === 0 ? 0 : at % (text.length + 1)
    return remove ? text.slice(0, i) + text.slice(i + 1) : text.slice(0, i) + piece + text.slice(i)
  })

describe("firstSyntaxError against JSON.parse", () => {
  it("judges generated JSON and every one-edit variant of it as JSON.parse does", () => {
    fc.assert(
      fc.property(fc.oneof(fc.json(), edited), (text) => {
        expect(firstSyntaxError(text) === undefined, JSON.stringify(text)).toBe(parses(text))
      }),
      { numRuns: 3000 }
    )
  })
})
