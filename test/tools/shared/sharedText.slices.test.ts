import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import { Effect } from "effect"
import { shareBytes, shareString, type SharedText, TEXT_OF_SOURCE } from "../../../src/tools/shared/sharedText.js"

/** Code units `shareString` copies per step (its `STEP_CHARS`). */
const STEP = 256 * 1024

/** The worker's `textOf`, built from the source the worker is given. */
const textOf = new Function(`${TEXT_OF_SOURCE}\nreturn textOf`)() as (shared: SharedText) => string

/** An effect that must finish soon (on the real clock, hence `it.live`): a copy that never ends fails the test. */
const soon = <A, E>(effect: Effect.Effect<A, E>) => Effect.timeout(effect, "3 seconds")

afterEach(() => {
  vi.restoreAllMocks()
})

describe("shareString", () => {
  it.live("puts a text of several steps in shared memory exactly, pairs and lone surrogates too", () =>
    Effect.gen(function*() {
      // a pair cut by the step boundary, and lone halves
      const text = `${"é".repeat(STEP - 1)}😀\uD800${"x€\uDC00".repeat(STEP / 2)}end`
      const shared = yield* soon(shareString(text))
      expect(shared.encoding).toBe("utf16le")
      expect(shared.bytes.buffer).toBeInstanceOf(SharedArrayBuffer)
      expect(shared.bytes.byteLength).toBe(text.length * 2)
      expect(textOf(shared)).toBe(text)
    }))

  it.live("shares a short text and the empty text", () =>
    Effect.gen(function*() {
      expect(textOf(yield* soon(shareString("short ✓")))).toBe("short ✓")
      const empty = yield* soon(shareString(""))
      expect(empty.bytes.byteLength).toBe(0)
      expect(textOf(empty)).toBe("")
    }))

  it.live("never copies more than one step of the text in a single native call", () =>
    Effect.gen(function*() {
      const copied: Array<number> = []
      const original = Buffer.prototype.write
      vi.spyOn(Buffer.prototype, "write").mockImplementation(function(this: Buffer, ...args: Array<unknown>) {
        if (typeof args[0] === "string") copied.push(args[0].length)
        return Reflect.apply(original, this, args) as number
      })
      const text = "ab".repeat(STEP + 7)
      const shared = yield* soon(shareString(text))
      vi.restoreAllMocks()
      expect(textOf(shared)).toBe(text)
      expect(copied.length).toBeGreaterThanOrEqual(2)
      expect(Math.max(...copied)).toBeLessThanOrEqual(STEP)
      expect(copied.reduce((a, b) => a + b, 0)).toBe(text.length)
    }))
})

describe("shareBytes", () => {
  it.effect("copies a file's bytes, invalid UTF-8 and BOM included, for the worker to decode", () =>
    Effect.sync(() => {
      const bytes = Uint8Array.from([0xef, 0xbb, 0xbf, 0x68, 0xc3, 0xa9, 0xff, 0x21])
      const shared = shareBytes(bytes)
      expect(shared.encoding).toBe("utf8")
      expect(shared.bytes.buffer).toBeInstanceOf(SharedArrayBuffer)
      expect(Array.from(shared.bytes)).toEqual(Array.from(bytes))
      bytes[3] = 0x48
      expect(textOf(shared)).toBe("hé\uFFFD!")
    }))
})
