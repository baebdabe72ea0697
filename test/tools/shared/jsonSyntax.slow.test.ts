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
import fc from "fast-check"
import {
  firstSyntaxError
} from "../../../src/tools/shared/jsonSyntax.js"
import { parses } from "./jsonSyntaxHarness.js"

/** Characters an edit puts in: JSON's punctuation, the starts of its values, and some that are never JSON. */
const PIECES = ["{", "}", "[", "]", ",", ":", "\"", "\\", "-", "+", ".", "e", "E", "0", "7", "t", "n", "f", "u", " ", "\n", "\t", "x", "\u0001", "\u001f", "/"]

/** A JSON text (possibly indented) with one random edit. */
const edited = fc.tuple(fc.json({ depthSize: "small" }), fc.boolean(), fc.nat(), fc.constantFrom(...PIECES), fc.boolean())
  .map(([json, indent, at, piece, remove]) => {
    const text = indent ? JSON.stringify(JSON.parse(json), null, 2) : json
    const i = text.length === 0 ? 0 : at % (text.length + 1)
    return remove ? text.slice(0, i) + text.slice(i + 1) : text.slice(0, i) + piece + text.slice(i)
  })

/** Whether `prefix` can be completed into JSON: some ending from a small set makes it parse. */
const completable = (prefix: string): boolean => {
  const endings = ["", "0", "\"", "]", "}", "0]", "0}", "\"]", "\"}", ":0}", "\":0}", "0]]", "]]", "}}", "]}", "}]", "0}}", "0]}", "0}]"]
  // a prefix cut inside an escape or a number needs a few more characters first
  const fillers = ["", "0", "00", "000", "0000", "u0000", "\"", "e0", "e+0", ".0"]
  for (const filler of fillers) {
    for (const ending of endings) {
      const attempt = prefix + filler + ending
      if (parses(attempt)) return true
      // close every container still open, innermost first
      const closers: Array<string> = []
      let inString = false
      for (let i = 0; i < attempt.length; i++) {
        const c = attempt[i]
        if (inString) {
          if (c === "\\") i++
          else if (c === "\"") inString = false
        } else if (c === "\"") inString = true
        else if (c === "{") closers.push("}")
        else if (c === "[") closers.push("]")
        else if (c === "}" || c === "]") closers.pop()
      }
      if (parses(attempt + closers.reverse().join(""))) return true
    }
  }
  return false
}

describe("firstSyntaxError against JSON.parse", () => {
  it("judges generated JSON and every one-edit variant of it as JSON.parse does", () => {
    fc.assert(
      fc.property(fc.oneof(fc.json(), edited), (text) => {
        expect(firstSyntaxError(text) === undefined, JSON.stringify(text)).toBe(parses(text))
      }),
      { numRuns: 3000 }
    )
  })

  it("reports the first problem, not a later one: the text before it can still become JSON", () => {
    fc.assert(
      fc.property(edited, (text) => {
        const problem = firstSyntaxError(text)
        if (problem === undefined) return
        expect(problem.offset).toBeGreaterThanOrEqual(0)
        expect(problem.offset).toBeLessThanOrEqual(text.length)
        expect(completable(text.slice(0, problem.offset)), JSON.stringify(text.slice(0, problem.offset))).toBe(true)
      }),
      { numRuns: 1500 }
    )
  })
})
