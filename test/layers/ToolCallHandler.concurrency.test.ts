/**
 * How `ToolCallHandler` schedules one turn's calls: read-only calls at once (up to the
 * session's limit), calls with side effects alone and in their given order. The tools sleep
 * on the test's `TestClock`: each step waits until the calls that should be asleep are, then
 * moves the clock just far enough to wake them (`wakeAfter`), so "at once" and "one after
 * another" are what the clock shows, with no real waiting.
 *
 * On Effect 4: the tests that wait for sleepers run under `countingSleeps` (Effect 4's
 * TestClock does not list them). `ToolSystem.layerNode()` holds only the builtin file tools
 * (`read_file`, `write_file`, given as `tools` with `builtins: false`).
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Fiber, Layer, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { OpenAIToolCall } from "../../src/domain/toolCalls.js"
import { WorkspacePath } from "../../src/domain/WorkspacePath.js"
import { ConfirmationHandler } from "../../src/services/ConfirmationHandler.js"
import { ToolCallHandler, type SessionOptions } from "../../src/services/ToolCallHandler.js"
import { ToolSystem } from "../../src/services/ToolSystem.js"
import { Workspace } from "../../src/services/Workspace.js"
import { readFile } from "../../src/tools/builtin/readFile.js"
import { writeFile } from "../../src/tools/builtin/writeFile.js"
import * as Tool from "../../src/tools/define.js"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { countingSleeps, wakeAfter } from "../helpers/testClock.js"

const ws = makeTempDirSync("calls-conc-")
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))

/** Calls in flight now, and the most seen at once. */
const flight = { now: 0, max: 0 }
const SLEEP_MS = 200

const nap = Tool.make("nap", {
  description: "Sleeps 200 ms of the fiber's clock",
  parameters: Schema.Struct({ n: Schema.Number }),
  readOnly: true,
  handler: ({ n }) =>
    Effect.acquireUseRelease(
      Effect.sync(() => {
        flight.now += 1
        flight.max = Math.max(flight.max, flight.now)
      }),
      () => Effect.as(Effect.sleep(`${SLEEP_MS} millis`), n),
      () => Effect.sync(() => (flight.now -= 1))
    )
})

/** A read-modify-write with a pause in the middle: two of these overlapping lose an update. */
const appendSlowly = Tool.make("append_slowly", {
  description: "Appends text to a file, slowly",
  parameters: Schema.Struct({ filepath: WorkspacePath, text: Schema.String }),
  handler: ({ filepath, text }) =>
    Effect.gen(function*() {
      const before = fs.existsSync(filepath) ? fs.readFileSync(filepath, "utf8") : ""
      yield* Effect.sleep("30 millis")
      fs.writeFileSync(filepath, before + text)
      return before + text
    })
})

const live = ToolCallHandler.layer.pipe(
  Layer.provide(ConfirmationHandler.layerAutoApprove),
  Layer.provideMerge(ToolSystem.layerNode({ builtins: false, tools: [readFile, writeFile, nap, appendSlowly], workspace: Workspace.layerFixed(ws) }))
)

let nextId = 0
const call = (name: string, args: unknown): OpenAIToolCall => ({
  id: `call_${++nextId}`,
  type: "function",
  function: { name, arguments: JSON.stringify(args) }
})

const session = (options?: SessionOptions) => Effect.flatMap(ToolCallHandler, (handler) => handler.session(options))

describe("ToolCallHandler concurrency", () => {
  it.effect("20 read-only calls in one turn take as long as the slowest, not the sum", () =>
    Effect.gen(function*() {
      const s = yield* session()
      flight.max = 0
      const calls = Array.from({ length: 20 }, (_, n) => call("nap", { n }))
      const turn = yield* Effect.forkChild(s.handleOpenAI(calls))
      // all 20 asleep at once, and one nap's time ends the turn (the sum would be 4,000 ms)
      yield* wakeAfter(SLEEP_MS, 20)
      const messages = yield* Fiber.join(turn)
      expect(yield* Clock.currentTimeMillis).toBe(SLEEP_MS)
      expect(messages.map((m) => m.content)).toEqual(calls.map((_, n) => String(n)))
      expect(messages.map((m) => m.tool_call_id)).toEqual(calls.map((c) => c.id))
      expect(flight.max).toBe(20)
    }).pipe(Effect.provide(live), countingSleeps))

  it.effect("the session's limit bounds how many run at once", () =>
    Effect.gen(function*() {
      const s = yield* session({ concurrency: 3 })
      flight.max = 0
      const turn = yield* Effect.forkChild(s.handleOpenAI(Array.from({ length: 9 }, (_, n) => call("nap", { n }))))
      // three rounds of three
      for (let round = 0; round < 3; round++) yield* wakeAfter(SLEEP_MS, 3)
      const messages = yield* Fiber.join(turn)
      expect(messages).toHaveLength(9)
      expect(flight.max).toBe(3)
    }).pipe(Effect.provide(live), countingSleeps))

  it.effect("a malformed call between read-only calls does not split them: they still run at once", () =>
    Effect.gen(function*() {
      const s = yield* session()
      flight.max = 0
      // named after a tool with side effects, whose calls run alone: a malformed one runs nothing
      const malformed = { id: "bad", type: "function", function: { name: "write_file", arguments: 42 } }
      const turn = yield* Effect.forkChild(s.handleOpenAI([call("nap", { n: 1 }), malformed, call("nap", { n: 2 })]))
      yield* wakeAfter(SLEEP_MS, 2)
      const messages = yield* Fiber.join(turn)
      expect(yield* Clock.currentTimeMillis).toBe(SLEEP_MS)
      expect(flight.max).toBe(2)
      expect(messages.map((m) => m.tool_call_id)).toEqual([expect.any(String), "bad", expect.any(String)])
      expect(messages[1]?.content).toContain("not JSON text")
    }).pipe(Effect.provide(live), countingSleeps))

  it.effect("two write_file calls to one path in one turn apply in their given order", () =>
    Effect.gen(function*() {
      const s = yield* session()
      const messages = yield* s.handleOpenAI([
        call("write_file", { filepath: "order.txt", content: "first" }),
        call("read_file", { filepath: "order.txt" }),
        call("write_file", { filepath: "order.txt", content: "second" }),
        call("read_file", { filepath: "order.txt" })
      ])
      expect(messages.map((m) => m.content)).toEqual([
        "Wrote 5 bytes to order.txt",
        "first",
        "Wrote 6 bytes to order.txt (overwrote an existing file)",
        "second"
      ])
      expect(fs.readFileSync(path.join(ws, "order.txt"), "utf8")).toBe("second")
    }).pipe(Effect.provide(live), countingSleeps))

  it.effect("calls with side effects never overlap: a slow read-modify-write loses nothing", () =>
    Effect.gen(function*() {
      const s = yield* session()
      const letters = ["a", "b", "c", "d", "e", "f"]
      const turn = yield* Effect.forkChild(s.handleOpenAI(letters.map((text) => call("append_slowly", { filepath: "log.txt", text }))))
      // one pause after another
      for (const _ of letters) yield* wakeAfter(30)
      const messages = yield* Fiber.join(turn)
      expect(fs.readFileSync(path.join(ws, "log.txt"), "utf8")).toBe("abcdef")
      expect(messages.map((m) => m.content)).toEqual(["a", "ab", "abc", "abcd", "abcde", "abcdef"])
    }).pipe(Effect.provide(live), countingSleeps))

  it.effect("two turns handled at the same time by one session do not overlap their writes either", () =>
    Effect.gen(function*() {
      const s = yield* session()
      const turn = (letters: ReadonlyArray<string>) =>
        s.handleOpenAI(letters.map((text) => call("append_slowly", { filepath: "two-turns.txt", text })))
      const both = yield* Effect.forkChild(Effect.all([turn(["1", "2", "3"]), turn(["x", "y", "z"])], { concurrency: 2 }))
      for (let i = 0; i < 6; i++) yield* wakeAfter(30)
      yield* Fiber.join(both)
      const text = fs.readFileSync(path.join(ws, "two-turns.txt"), "utf8")
      expect(text).toHaveLength(6)
      expect(text.replace(/[xyz]/g, "")).toBe("123")
      expect(text.replace(/[123]/g, "")).toBe("xyz")
    }).pipe(Effect.provide(live), countingSleeps))
})
