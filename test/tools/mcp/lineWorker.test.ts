import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { MAX_COPIED_DEPTH, type ParsedLine, parseInWorker } from "../../../src/tools/mcp/lineWorker.js"

const parse = (text: string) =>
  Effect.callback<ParsedLine>((resume) => parseInWorker(Buffer.from(text), 100, (parsed) => resume(Effect.succeed(parsed))))

const depthOf = (value: unknown): number => {
  let depth = 0
  let node = value
  while (typeof node === "object" && node !== null) {
    depth++
    node = Object.values(node).find((child) => typeof child === "object" && child !== null)
  }
  return depth
}

// live clock: a real worker thread parses each line
describe("parseInWorker", () => {
  it.live("a message nested 100,000 levels comes back cut past the copied depth, not lost", () =>
    Effect.gen(function*() {
      const levels = 100_000
      const parsed = yield* parse(`{"id":1,"result":${"{\"a\":".repeat(levels)}1${"}".repeat(levels)}}`)
      if (!parsed.ok) return expect.fail(parsed.error.message)
      const value = parsed.value as { id: number; result: unknown }
      expect(value.id).toBe(1)
      expect(depthOf(value)).toBe(MAX_COPIED_DEPTH)
      expect(JSON.stringify(value)).toContain(`"[cut: nested deeper than ${MAX_COPIED_DEPTH} levels]"`)
    }))

  it.live("a shallow message comes back whole; an error message is cut and says so", () =>
    Effect.gen(function*() {
      const parsed = yield* parse(JSON.stringify({ id: 2, error: { code: -1, message: "x".repeat(500) }, deep: { a: { b: [1, { c: 2 }] } } }))
      if (!parsed.ok) return expect.fail(parsed.error.message)
      expect(parsed.value).toEqual({
        id: 2,
        error: { code: -1, message: `${"x".repeat(100)}\n… [message cut at 100 of 500 characters]` },
        deep: { a: { b: [1, { c: 2 }] } }
      })
    }))

  it.live("a line that is not JSON answers a syntax error", () =>
    Effect.gen(function*() {
      const parsed = yield* parse("{not json")
      expect(parsed.ok).toBe(false)
      if (!parsed.ok) expect(parsed.error).toBeInstanceOf(SyntaxError)
    }))
})
