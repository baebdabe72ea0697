import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { inSlices, SLICE_MS, yieldToLoop } from "../../../src/tools/shared/slices.js"
import { utf8Length } from "../../../src/tools/shared/utf8Length.js"

/** Code units `utf8Length` measures per step (its `STEP_CHARS`). */
const STEP = 256 * 1024

/** An effect that must finish soon (on the real clock, hence `it.live`): a loop that never ends fails the test instead of hanging it. */
const soon = <A, E>(effect: Effect.Effect<A, E>) => Effect.timeout(effect, "3 seconds")

const pendingImmediates = () => process.getActiveResourcesInfo().filter((resource) => resource === "Immediate").length

afterEach(() => {
  vi.restoreAllMocks()
})

describe("utf8Length", () => {
  it.live("counts a text of several steps as Buffer.byteLength does, pairs and lone surrogates included", () =>
    Effect.gen(function*() {
      const text = "aé€😀\uD800b\uDC00".repeat(Math.ceil((3 * STEP) / 9))
      expect(text.length).toBeGreaterThan(2 * STEP)
      expect(yield* soon(utf8Length(text))).toBe(Buffer.byteLength(text, "utf8"))
      expect(yield* soon(utf8Length(""))).toBe(0)
      expect(yield* soon(utf8Length("plain"))).toBe(5)
    }))

  it.live("counts a pair that straddles the end of a step as 4 bytes, not 3 + 3", () =>
    Effect.gen(function*() {
      // the high half is the last code unit of the first step, the low half the first of the next
      const straddling = `${"a".repeat(STEP - 1)}😀${"b".repeat(10)}`
      expect(yield* soon(utf8Length(straddling))).toBe(STEP - 1 + 4 + 10)
      // the pair ends the first step exactly: nothing to move
      const ending = `${"a".repeat(STEP - 2)}😀${"b".repeat(10)}`
      expect(yield* soon(utf8Length(ending))).toBe(STEP - 2 + 4 + 10)
    }))

  it.live("counts a lone high surrogate at the very end as 3 bytes (and finishes)", () =>
    Effect.gen(function*() {
      expect(yield* soon(utf8Length("ab\uD800"))).toBe(5)
      expect(yield* soon(utf8Length(`${"x".repeat(STEP + 5)}\uD800`))).toBe(STEP + 5 + 3)
    }))

  it.live("never measures more than one step of the text in a single native call", () =>
    Effect.gen(function*() {
      const measured: Array<number> = []
      const original = Buffer.byteLength
      vi.spyOn(Buffer, "byteLength").mockImplementation((value, encoding) => {
        if (typeof value === "string") measured.push(value.length)
        return original(value, encoding)
      })
      const text = `${"é".repeat(STEP - 1)}😀${"€".repeat(STEP)}`
      const bytes = yield* soon(utf8Length(text))
      vi.restoreAllMocks()
      expect(bytes).toBe(Buffer.byteLength(text, "utf8"))
      expect(measured.length).toBeGreaterThanOrEqual(3)
      expect(Math.max(...measured)).toBeLessThanOrEqual(STEP)
      expect(measured.reduce((a, b) => a + b, 0)).toBe(text.length)
    }))
})

describe("yieldToLoop", () => {
  it.live("resumes after what was already queued on the event loop has run", () =>
    Effect.gen(function*() {
      let ran = false
      setImmediate(() => {
        ran = true
      })
      yield* soon(yieldToLoop)
      expect(ran).toBe(true)
    }))

  it.live("leaves no wake-up pending once it is interrupted", () =>
    Effect.gen(function*() {
      const before = pendingImmediates()
      const fiber = Effect.runFork(yieldToLoop)
      expect(pendingImmediates()).toBe(before + 1)
      yield* Fiber.interrupt(fiber)
      expect(pendingImmediates()).toBe(before)
    }))
})

describe("inSlices", () => {
  it.live("calls the step until it reports done, and no more", () =>
    Effect.gen(function*() {
      let calls = 0
      yield* soon(inSlices(() => ++calls === 1000))
      expect(calls).toBe(1000)
      let once = 0
      yield* soon(inSlices(() => ++once >= 1))
      expect(once).toBe(1)
    }))

  it.live("gives the event loop a turn while a long loop runs", () =>
    Effect.gen(function*() {
      let calls = 0
      let seenAt: number | undefined
      setImmediate(() => {
        seenAt = calls
      })
      const started = performance.now()
      // each step busy for 1 ms: about 3 slices in all
      yield* soon(inSlices(() => {
        const until = performance.now() + 1
        while (performance.now() < until) {
          // busy
        }
        return ++calls === 3 * SLICE_MS
      }))
      expect(performance.now() - started).toBeGreaterThanOrEqual(3 * SLICE_MS)
      expect(seenAt).toBeDefined()
      expect(seenAt).toBeLessThan(calls)
    }))
})
