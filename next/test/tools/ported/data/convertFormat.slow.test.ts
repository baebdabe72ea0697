/**
 * convert_format's check of a parsed document, in the conversion's worker: at most 256 levels
 * of objects and arrays (scalars below do not count), and at most a million values. In the
 * slow lane: the limit is the point, so the worker is handed arrays of 999,999 and 1,000,000
 * values, about 2.5-3.5 s of CPU. The rest of the tool's tests are in `convertFormat.test.ts`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { convertInWorker } from "../../../../src/tools/ported/data/convertWorker.js"
import { convertJob } from "../../../../src/tools/ported/data/formats.js"

describe("convert_format", () => {
  it.live("the tree check: at most 256 levels of objects and arrays (scalars below do not count), and a million values", () =>
    Effect.gen(function*() {
      const nested = (levels: number): unknown => {
        let value: unknown = 1
        for (let i = 0; i < levels; i++) value = i % 2 === 0 ? [value] : { k: value }
        return value
      }
      // the worker's check, on the value JSON.parse gives (the tool checks the text's nesting first)
      const problem = (value: unknown) =>
        Effect.map(convertInWorker(convertJob("json", "json", JSON.stringify(value), ",", 10)), (a) => (a.ok ? undefined : "message" in a ? a.message : a.stage))
      expect(yield* problem(nested(256))).toBeUndefined()
      expect(yield* problem(nested(257))).toBe("the document is nested more than 256 deep (or an alias refers to its own anchor)")
      expect(yield* problem(Array.from({ length: 999_999 }, () => 0))).toBeUndefined()
      expect(yield* problem(Array.from({ length: 1_000_000 }, () => 0))).toBe(
        "the document holds more than 1000000 values (aliases expanded)"
      )
      expect(yield* problem("scalar")).toBeUndefined()
      expect(yield* problem(null)).toBeUndefined()
    }), 30_000)
})
