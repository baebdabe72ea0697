/**
 * A `ToolCallHandler` session in detail: how a turn is split into calls that run together and
 * calls that run alone (read-only runs around a call with side effects, an unknown tool, an
 * `ask_user`), the concurrency option, what the `ConfirmationHandler` is asked (and about
 * which calls), the `isError` of every kind of outcome, `ask_user`'s argument bounds, the
 * offered specs, the system prompt and the remembered approvals. The tools sleep on the test's
 * `TestClock`: each step waits until the calls that should be asleep are, then moves the clock
 * just far enough to wake them (`wakeAfter`).
 *
 * On Effect 4: the tests that wait for sleepers run under `countingSleeps` (Effect 4's
 * TestClock does not list them); calls' inputs are `Result`s (Effect 3's `Either`), and the
 * domain's `ToolExecutionResult` module is imported as `ExecutionResult`.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Ref, Result, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as AgentMode from "../../src/domain/AgentMode.js"
import { ConfirmationRequired, ToolError } from "../../src/domain/errors.js"
import * as ExecutionResult from "../../src/domain/ToolExecutionResult.js"
import type { ToolCall } from "../../src/domain/toolCalls.js"
import { WorkspacePath } from "../../src/domain/WorkspacePath.js"
import { ConfirmationHandler, type ConfirmationRequest } from "../../src/services/ConfirmationHandler.js"
import { QuestionHandler } from "../../src/services/QuestionHandler.js"
import { ToolCallHandler, type SessionOptions } from "../../src/services/ToolCallHandler.js"
import { ToolExecutor } from "../../src/services/ToolExecutor.js"
import { ToolRegistry } from "../../src/services/ToolRegistry.js"
import { ToolSystem } from "../../src/services/ToolSystem.js"
import { Workspace } from "../../src/services/Workspace.js"
import { TestQuestionHandler } from "../../src/testing.js"
import { ASK_USER_TOOL_SPEC } from "../../src/tools/builtin/askUser.js"
import * as Tool from "../../src/tools/define.js"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { countingSleeps, wakeAfter } from "../helpers/testClock.js"

const ws = makeTempDirSync("session-")
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))

/** What ran, in order: `<name> start` / `<name> end`. */
const events: Array<string> = []
/** Naps in flight now, and the most seen at once. */
const flight = { now: 0, max: 0 }
const reset = () => {
  events.length = 0
  flight.now = 0
  flight.max = 0
}

const NAP_MS = 100
const APPEND_MS = 20
const ASK_MS = 20

const nap = Tool.make("nap", {
  description: "Sleeps a little",
  parameters: Schema.Struct({ n: Schema.Number }),
  readOnly: true,
  handler: ({ n }) =>
    Effect.acquireUseRelease(
      Effect.sync(() => {
        events.push(`nap${n} start`)
        flight.now += 1
        flight.max = Math.max(flight.max, flight.now)
      }),
      () => Effect.as(Effect.sleep(`${NAP_MS} millis`), n),
      () =>
        Effect.sync(() => {
          flight.now -= 1
          events.push(`nap${n} end`)
        })
    )
})

/** A read-modify-write with a pause in the middle: two of these overlapping lose an update. */
const appendSlowly = Tool.make("append_slowly", {
  description: "Appends text to a file, slowly",
  parameters: Schema.Struct({ filepath: WorkspacePath, text: Schema.String }),
  handler: ({ filepath, text }) =>
    Effect.gen(function*() {
      events.push(`append ${text} start`)
      const before = fs.existsSync(filepath) ? fs.readFileSync(filepath, "utf8") : ""
      yield* Effect.sleep(`${APPEND_MS} millis`)
      fs.writeFileSync(filepath, before + text)
      events.push(`append ${text} end`)
      return before + text
    })
})

const confirmParameters = Schema.Struct({
  note: Schema.optional(Schema.String),
  meta: Schema.optional(Schema.Unknown)
})

/** Read-only, but a person must confirm it. */
const confirmRead = Tool.make("confirm_read", {
  description: "Reads, once confirmed",
  parameters: confirmParameters,
  readOnly: true,
  requiresConfirmation: true,
  handler: (args) => Effect.succeed({ read: args })
})

/** Side effects, and a person must confirm it. */
const confirmWrite = Tool.make("confirm_write", {
  description: "Writes, once confirmed",
  parameters: confirmParameters,
  requiresConfirmation: true,
  handler: (args) => Effect.succeed({ wrote: args })
})

const zetaConfirm = Tool.make("zeta_confirm", {
  description: "Also needs a confirmation",
  parameters: Schema.Struct({}),
  readOnly: true,
  requiresConfirmation: true,
  handler: () => Effect.succeed("zeta")
})

const fails = Tool.make("fails", {
  description: "Always fails",
  parameters: Schema.Struct({}),
  readOnly: true,
  handler: () => Effect.fail(new ToolError({ tool: "fails", message: "it broke" }))
})

/** An application's own tool named like the intercepted one. */
const ownAskUser = Tool.make("ask_user", {
  description: "The application's own ask_user",
  parameters: Schema.Struct({ q: Schema.String }),
  readOnly: true,
  handler: ({ q }) => Effect.succeed(q)
})

const system = ToolSystem.layerNode({
  builtins: false,
  tools: [nap, appendSlowly, confirmRead, confirmWrite, zetaConfirm, fails, ownAskUser],
  workspace: Workspace.layerFixed(ws)
})
const live = ToolCallHandler.layer.pipe(Layer.provideMerge(system))

const session = (options?: SessionOptions) => Effect.flatMap(ToolCallHandler, (handler) => handler.session(options))

let nextId = 0
const call = (name: string, args: unknown, strictArguments = false): ToolCall => ({
  id: `c${++nextId}`,
  name,
  input: Result.succeed(args),
  strictArguments
})
const malformed = (name: string): ToolCall => ({
  id: `c${++nextId}`,
  name,
  input: Result.fail({ text: "{oops", problem: "Unexpected token" }),
  strictArguments: false
})

/** A `ConfirmationHandler` that records each request and answers with `decision`. */
const recordingConfirmation = (
  requests: Ref.Ref<ReadonlyArray<ConfirmationRequest>>,
  decision: { readonly approved: boolean; readonly remember?: boolean; readonly reason?: string }
) => ConfirmationHandler.layer((request) => Effect.as(Ref.update(requests, (list) => [...list, request]), decision))

/** A `QuestionHandler` that takes a little time and records when it asks. */
const slowQuestions = QuestionHandler.layer((question) =>
  Effect.gen(function*() {
    events.push("ask start")
    yield* Effect.sleep(`${ASK_MS} millis`)
    events.push("ask end")
    return `answer to ${question.question}`
  })
)

describe("a turn's calls: together or alone", () => {
  it.effect("calls with side effects after a read-only call still run alone, one after another", () =>
    Effect.gen(function*() {
      reset()
      const s = yield* session()
      const file = "after-read.txt"
      const turn = yield* Effect.forkChild(s.handle([
        call("nap", { n: 1 }),
        call("append_slowly", { filepath: file, text: "a" }),
        call("append_slowly", { filepath: file, text: "b" }),
        call("append_slowly", { filepath: file, text: "c" })
      ]))
      yield* wakeAfter(NAP_MS)
      for (let i = 0; i < 3; i++) yield* wakeAfter(APPEND_MS)
      const outcomes = yield* Fiber.join(turn)
      expect(outcomes.map((o) => o.content)).toEqual(["1", "a", "ab", "abc"])
      expect(fs.readFileSync(path.join(ws, file), "utf8")).toBe("abc")
      expect(events).toEqual([
        "nap1 start",
        "nap1 end",
        "append a start",
        "append a end",
        "append b start",
        "append b end",
        "append c start",
        "append c end"
      ])
    }).pipe(Effect.provide(live), countingSleeps))

  it.effect("read-only calls after a call with side effects still run together", () =>
    Effect.gen(function*() {
      reset()
      const s = yield* session()
      const turn = yield* Effect.forkChild(s.handle([
        call("append_slowly", { filepath: "before-read.txt", text: "x" }),
        call("nap", { n: 1 }),
        call("nap", { n: 2 }),
        call("nap", { n: 3 })
      ]))
      yield* wakeAfter(APPEND_MS)
      yield* wakeAfter(NAP_MS, 3)
      const outcomes = yield* Fiber.join(turn)
      expect(outcomes.map((o) => o.content)).toEqual(["x", "1", "2", "3"])
      expect(flight.max).toBe(3)
      expect(events.slice(0, 2)).toEqual(["append x start", "append x end"])
    }).pipe(Effect.provide(live), countingSleeps))

  it.effect("a call of an unknown tool does not split the read-only calls around it", () =>
    Effect.gen(function*() {
      reset()
      const s = yield* session()
      const turn = yield* Effect.forkChild(s.handle([call("nap", { n: 1 }), call("no_such_tool", {}), call("nap", { n: 2 })]))
      yield* wakeAfter(NAP_MS, 2)
      const outcomes = yield* Fiber.join(turn)
      expect(outcomes.map((o) => o.isError)).toEqual([false, true, false])
      expect(outcomes[1]?.content).toMatch(/^Error \[TOOL_NOT_FOUND\]/)
      expect(flight.max).toBe(2)
    }).pipe(Effect.provide(live), countingSleeps))

  it.effect("an ask_user call runs alone: after the calls before it, before the calls after it", () =>
    Effect.gen(function*() {
      reset()
      const s = yield* session()
      const turn = yield* Effect.forkChild(s.handle([
        call("nap", { n: 1 }),
        call("ask_user", { question: "Which?" }),
        call("nap", { n: 2 })
      ]))
      yield* wakeAfter(NAP_MS)
      yield* wakeAfter(ASK_MS)
      yield* wakeAfter(NAP_MS)
      const outcomes = yield* Fiber.join(turn)
      expect(outcomes.map((o) => o.content)).toEqual(["1", "answer to Which?", "2"])
      expect(events).toEqual(["nap1 start", "nap1 end", "ask start", "ask end", "nap2 start", "nap2 end"])
    }).pipe(Effect.provide(slowQuestions), Effect.provide(live), countingSleeps))

  it.effect("a concurrency that is not a finite number means the default, 32; a fraction is rounded down", () =>
    Effect.gen(function*() {
      const naps = (count: number) => Array.from({ length: count }, (_, n) => call("nap", { n }))
      for (const concurrency of [Number.POSITIVE_INFINITY, Number.NaN]) {
        reset()
        const s = yield* session({ concurrency })
        // 32 at once, then the other 8
        const turn = yield* Effect.forkChild(s.handle(naps(40)))
        yield* wakeAfter(NAP_MS, 32)
        yield* wakeAfter(NAP_MS, 8)
        expect(yield* Fiber.join(turn)).toHaveLength(40)
        expect(flight.max).toBe(32)
        // and a call that runs alone still gets all of them (a lock of no permits would hold it forever)
        const alone = yield* Effect.forkChild(s.handle([call("append_slowly", { filepath: "inf.txt", text: "i" })]))
        yield* wakeAfter(APPEND_MS)
        expect((yield* Fiber.join(alone))[0]?.isError).toBe(false)
      }
      reset()
      const rounded = yield* Effect.forkChild((yield* session({ concurrency: 2.7 })).handle(naps(6)))
      for (let round = 0; round < 3; round++) yield* wakeAfter(NAP_MS, 2)
      yield* Fiber.join(rounded)
      expect(flight.max).toBe(2)
    }).pipe(Effect.provide(live), countingSleeps))
})

describe("what the ConfirmationHandler is asked", () => {
  it.effect("only about calls that wait for a confirmation", () =>
    Effect.gen(function*() {
      reset()
      const requests = yield* Ref.make<ReadonlyArray<ConfirmationRequest>>([])
      const s = yield* session()
      const turn = yield* Effect.forkChild(s.handle([
        call("nap", { n: 1 }),
        call("fails", {}),
        call("no_such_tool", {}),
        call("confirm_read", {})
      ]).pipe(Effect.provide(recordingConfirmation(requests, { approved: true }))))
      yield* wakeAfter(NAP_MS)
      const outcomes = yield* Fiber.join(turn)
      expect(outcomes.map((o) => o.isError)).toEqual([false, true, true, false])
      expect(outcomes[1]?.content).toMatch(/^Error \[TOOL_ERROR\]: it broke/)
      expect(outcomes[2]?.content).toMatch(/^Error \[TOOL_NOT_FOUND\]/)
      expect(outcomes[3]?.result?.output).toEqual({ read: {} })
      expect((yield* Ref.get(requests)).map((r) => r.tool)).toEqual(["confirm_read"])
      // the read-only call ran once, not again after a confirmation
      expect(events.filter((e) => e === "nap1 start")).toHaveLength(1)
    }).pipe(Effect.provide(live), countingSleeps))

  it.effect("why: a tool with side effects says so; a read-only one does not", () =>
    Effect.gen(function*() {
      const requests = yield* Ref.make<ReadonlyArray<ConfirmationRequest>>([])
      const s = yield* session({ mode: AgentMode.Default })
      yield* s.handle([call("confirm_write", { note: "w" }), call("confirm_read", { note: "r" })]).pipe(
        Effect.provide(recordingConfirmation(requests, { approved: true }))
      )
      expect(yield* Ref.get(requests)).toEqual([
        {
          tool: "confirm_write",
          version: "1.0.0",
          arguments: { note: "w" },
          reason: "\"confirm_write\" runs only after a person confirms it (it has side effects)",
          mode: AgentMode.Default
        },
        {
          tool: "confirm_read",
          version: "1.0.0",
          arguments: { note: "r" },
          reason: "\"confirm_read\" runs only after a person confirms it",
          mode: AgentMode.Default
        }
      ])
    }).pipe(Effect.provide(live)))

  it.effect("the arguments: a strict call's nulls for left-out fields are dropped; a plain call's are kept", () =>
    Effect.gen(function*() {
      const requests = yield* Ref.make<ReadonlyArray<ConfirmationRequest>>([])
      const s = yield* session()
      const outcomes = yield* s.handle([
        call("confirm_read", { note: null, meta: 1 }, true),
        call("confirm_read", { meta: null }, false)
      ]).pipe(Effect.provide(recordingConfirmation(requests, { approved: true })))
      expect((yield* Ref.get(requests)).map((r) => r.arguments)).toEqual([{ meta: 1 }, { meta: null }])
      // and the tool ran with the same arguments
      expect(outcomes.map((o) => o.result?.output)).toEqual([{ read: { meta: 1 } }, { read: { meta: null } }])
    }).pipe(Effect.provide(live)))

  it.effect("a call the registry does not list (answered by an executor of its own): its arguments as sent", () =>
    Effect.gen(function*() {
      const requests = yield* Ref.make<ReadonlyArray<ConfirmationRequest>>([])
      const remote = Layer.succeed(ToolExecutor, {
        execute: (name, args, options) =>
          Effect.succeed(
            options?.confirm === true
              ? ExecutionResult.succeed(name, "2.0.0", { ran: args }, 0)
              : ExecutionResult.fromError(name, "2.0.0", new ConfirmationRequired({ tool: name }), 0)
          ),
        explain: () => Effect.die("not used")
      })
      const handler = ToolCallHandler.layer.pipe(Layer.provide(Layer.merge(ToolRegistry.layerEmpty, remote)))
      const outcomes = yield* Effect.flatMap(ToolCallHandler, (h) => h.session()).pipe(
        Effect.flatMap((s) => s.handle([call("remote_tool", { a: null }, true)])),
        Effect.provide(recordingConfirmation(requests, { approved: true })),
        Effect.provide(handler)
      )
      expect(yield* Ref.get(requests)).toEqual([
        {
          tool: "remote_tool",
          version: "2.0.0",
          arguments: { a: null },
          reason: "\"remote_tool\" runs only after a person confirms it",
          mode: AgentMode.Default
        }
      ])
      expect(outcomes[0]).toMatchObject({ isError: false, content: "{\"ran\":{\"a\":null}}" })
    }))
})

describe("the isError of each kind of outcome", () => {
  it.effect("declined, malformed and refused calls are errors; results and answers are not", () =>
    Effect.gen(function*() {
      const s = yield* session()
      const [declined] = yield* s.handle([call("confirm_read", {})]).pipe(Effect.provide(ConfirmationHandler.layerDenyAll))
      expect(declined).toMatchObject({ isError: true, result: { success: false, errorCode: "CONFIRMATION_REQUIRED" } })
      expect(declined?.content).toMatch(/^Error \[CONFIRMATION_REQUIRED\]: the user declined/)
      const [bad] = yield* s.handle([malformed("nap")])
      expect(bad).toMatchObject({ isError: true, result: null })
      expect(bad?.content).toMatch(/^Error \[INVALID_ARGUMENTS\]: the arguments of "nap" are not valid JSON/)
      const asked = yield* s.handle([
        malformed("ask_user"),
        call("ask_user", { question: "" }),
        call("ask_user", { question: "Which branch?" })
      ]).pipe(Effect.provide(TestQuestionHandler.layerScripted(["main"])))
      expect(asked.map((o) => [o.isError, o.result])).toEqual([[true, null], [true, null], [false, null]])
      expect(asked.map((o) => o.content)).toEqual([
        expect.stringMatching(/^Error \[INVALID_ARGUMENTS\]: the arguments of "ask_user" are not valid JSON/),
        expect.stringMatching(/^Error \[INVALID_ARGUMENTS\]: Invalid arguments for "ask_user": question/),
        "main"
      ])
    }).pipe(Effect.provide(live)))
})

describe("ask_user's arguments", () => {
  it.effect("arguments past the bounds are refused before they are decoded, and no one is asked", () =>
    Effect.gen(function*() {
      const asked = yield* Ref.make(0)
      let deep: unknown = "bottom"
      for (let i = 0; i < 70; i++) deep = [deep]
      const s = yield* session()
      const [o] = yield* s.handle([call("ask_user", { question: "Deep?", extra: deep })]).pipe(
        Effect.provide(QuestionHandler.layer(() => Effect.as(Ref.update(asked, (n) => n + 1), "no")))
      )
      expect(o).toMatchObject({ isError: true, result: null })
      expect(o?.content).toMatch(/^Error \[INVALID_ARGUMENTS\]: Invalid arguments for "ask_user": .*nested deeper than 64 levels/)
      expect(o?.content).not.toContain("extra")
      expect(yield* Ref.get(asked)).toBe(0)
    }).pipe(Effect.provide(live)))
})

describe("the session's offer and prompt", () => {
  it.effect("with a QuestionHandler, ask_user is offered once, as the intercepted spec, after the registry's tools", () =>
    Effect.gen(function*() {
      const s = yield* session()
      const withHandler = yield* s.specs.pipe(Effect.provide(TestQuestionHandler.layerScripted([])))
      expect(withHandler.map((spec) => spec.name)).toEqual([
        "append_slowly",
        "confirm_read",
        "confirm_write",
        "fails",
        "nap",
        "zeta_confirm",
        "ask_user"
      ])
      expect(withHandler[withHandler.length - 1]?.description).toBe(ASK_USER_TOOL_SPEC.description)
      const anthropic = yield* s.anthropicTools.pipe(Effect.provide(TestQuestionHandler.layerScripted([])))
      expect(anthropic.filter((t) => t.name === "ask_user")).toHaveLength(1)
      // without one, the registry's list as it is
      const without = yield* s.specs
      expect(without.map((spec) => spec.name)).toContain("ask_user")
      expect(without.find((spec) => spec.name === "ask_user")?.description).toBe("The application's own ask_user")
    }).pipe(Effect.provide(live)))

  it.effect("an empty system prompt becomes the mode's addendum alone", () =>
    Effect.gen(function*() {
      const explore = yield* session({ mode: AgentMode.Explore })
      expect(AgentMode.Explore.systemPromptAddendum).not.toBe("")
      expect(explore.systemPrompt("")).toBe(AgentMode.Explore.systemPromptAddendum)
      expect(explore.systemPrompt("Be brief.")).toBe(`Be brief.\n\n${AgentMode.Explore.systemPromptAddendum}`)
      expect((yield* session()).systemPrompt("")).toBe("")
    }).pipe(Effect.provide(live)))

  it.effect("the remembered approvals are listed by name", () =>
    Effect.gen(function*() {
      const requests = yield* Ref.make<ReadonlyArray<ConfirmationRequest>>([])
      const s = yield* session({ mode: AgentMode.Default })
      yield* s.handle([call("zeta_confirm", {}), call("confirm_write", {}), call("confirm_read", {})]).pipe(
        Effect.provide(recordingConfirmation(requests, { approved: true, remember: true }))
      )
      expect(yield* s.approvedTools).toEqual(["confirm_read", "confirm_write", "zeta_confirm"])
      // remembered: not asked again
      yield* s.handle([call("confirm_read", {}), call("zeta_confirm", {})]).pipe(
        Effect.provide(recordingConfirmation(requests, { approved: true, remember: true }))
      )
      expect(yield* Ref.get(requests)).toHaveLength(3)
    }).pipe(Effect.provide(live)))
})

