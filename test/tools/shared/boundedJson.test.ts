/**
 * `boundedJson.ts`: the nesting count of a JSON text, and parsing within a bound.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import fc from "fast-check"
import { JsonRejected, nestsDeeperThan, parseJsonBounded } from "../../../src/tools/shared/boundedJson.js"

describe("boundedJson", () => {
  it.effect("counts objects and arrays inside one another, not brackets inside strings", () =>
    Effect.sync(() => {
      expect(nestsDeeperThan("[[{}]]", 3)).toBe(false)
      expect(nestsDeeperThan("[[{}]]", 2)).toBe(true)
      expect(nestsDeeperThan("[[],[],[],[]]", 2)).toBe(false)
      expect(nestsDeeperThan(JSON.stringify({ a: "[[[[[[", b: "\"[[[[\\\"{{{{" }), 1)).toBe(false)
      expect(nestsDeeperThan(JSON.stringify(["\\", [[1]]]), 2)).toBe(true)
    }))

  it("agrees with the depth of the parsed value on generated JSON (brackets and quotes in strings included)", () => {
    const depthOf = (value: unknown): number =>
      typeof value === "object" && value !== null
        ? 1 + Math.max(0, ...Object.values(value).map(depthOf))
        : 0
    const text = fc.oneof(
      fc.json({ maxDepth: 6 }),
      // strings made of JSON's own brackets, quotes and backslashes
      fc.array(fc.string({ unit: fc.constantFrom("[", "]", "{", "}", "\"", "\\", "a") }), { maxLength: 4 }).map((xs) => JSON.stringify([xs, { k: xs }]))
    )
    fc.assert(
      fc.property(text, (json) => {
        const depth = depthOf(JSON.parse(json))
        expect(nestsDeeperThan(json, depth), json).toBe(false)
        if (depth > 0) expect(nestsDeeperThan(json, depth - 1), json).toBe(true)
      }),
      { numRuns: 2000 }
    )
  })

  it.effect("parses JSON within the bound", () =>
    Effect.sync(() => {
      expect(parseJsonBounded("{\"results\":[{\"a\":[1,2]}]}", 4)).toStrictEqual(
        Result.succeed({ results: [{ a: [1, 2] }] })
      )
      expect(parseJsonBounded("\"[[[[\"", 1)).toStrictEqual(Result.succeed("[[[["))
    }))

  it.effect("a million deep (closed or not) is too-deep, quickly and without a stack overflow", () =>
    Effect.sync(() => {
      const started = performance.now()
      for (const text of ["[".repeat(1_000_000), `${"[".repeat(1_000_000)}${"]".repeat(1_000_000)}`]) {
        const result = parseJsonBounded(text)
        expect(result).toStrictEqual(Result.fail(new JsonRejected({ reason: "too-deep", maxDepth: 64 })))
      }
      expect(performance.now() - started).toBeLessThan(500)
      expect(new JsonRejected({ reason: "too-deep", maxDepth: 64 }).message).toBe("JSON nested deeper than 64 levels")
    }))

  it.effect("text that is not JSON is a syntax rejection whose message does not quote the text", () =>
    Effect.sync(() => {
      const result = parseJsonBounded("{\"results\": [ secret")
      expect(Result.isFailure(result)).toBe(true)
      if (Result.isFailure(result)) {
        expect(result.failure.reason).toBe("syntax")
        expect(result.failure.message).toBe("not JSON")
        expect(result.failure.cause).toBeInstanceOf(SyntaxError)
      }
      expect(Result.isFailure(parseJsonBounded(""))).toBe(true)
    }))
})
