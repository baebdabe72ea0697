/**
 * `ToolCallHandler`: a model's tool calls in, the conversation's tool messages out, in
 * OpenAI's and Anthropic's shapes; refusals as messages the model can act on; a workspace
 * escape as a defect; confirmations and `ask_user` through the optional handlers.
 *
 * On Effect 4: calls' inputs are `Result`s (Effect 3's `Either`).
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Option, Ref, Result, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as AgentMode from "../../src/domain/AgentMode.js"
import { isPathTraversal, pathTraversalOf } from "../../src/domain/errors.js"
import type { OpenAIToolCall, ToolCall } from "../../src/domain/toolCalls.js"
import type { OpenAITool } from "../../src/domain/ToolSpec.js"
import { ConfirmationHandler, type ConfirmationRequest } from "../../src/services/ConfirmationHandler.js"
import { QuestionHandler } from "../../src/services/QuestionHandler.js"
import { ToolCallHandler, type SessionOptions } from "../../src/services/ToolCallHandler.js"
import { ToolPolicy } from "../../src/services/ToolPolicy.js"
import { ToolSystem } from "../../src/services/ToolSystem.js"
import { Workspace } from "../../src/services/Workspace.js"
import { TestQuestionHandler } from "../../src/testing.js"
import * as Tool from "../../src/tools/define.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const ws = makeTempDirSync("calls-")
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))
fs.writeFileSync(path.join(ws, "hello.txt"), "hello\nworld\n")
fs.writeFileSync(path.join(ws, ".env"), "SECRET=1\n")

const limited = Tool.make("limited", {
  description: "Twice a minute",
  parameters: Schema.Struct({}),
  readOnly: true,
  rateLimitRpm: 2,
  handler: () => Effect.succeed({ ok: true })
})

const system = ToolSystem.layerNode({
  tools: [limited],
  workspace: Workspace.layerFixed(ws),
  policy: ToolPolicy.layer(({ args }) =>
    Effect.succeed(JSON.stringify(args).includes(".env") ? Option.some("secrets stay out") : Option.none())
  )
})
const live = ToolCallHandler.layer.pipe(Layer.provideMerge(system))

const session = (options?: SessionOptions) => Effect.flatMap(ToolCallHandler, (handler) => handler.session(options))

let nextId = 0
const call = (name: string, args: unknown): OpenAIToolCall => ({
  id: `call_${++nextId}`,
  type: "function",
  function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args) }
})

const names = (tools: ReadonlyArray<OpenAITool>) => tools.map((t) => t.function.name)

describe("ToolCallHandler, OpenAI shape", () => {
  it.effect("answers each call with a tool message, in the order of the calls", () =>
    Effect.gen(function*() {
      const s = yield* session()
      const calls = [call("read_file", { filepath: "hello.txt" }), call("list_files", {}), call("read_file", { filepath: "hello.txt", max_lines: 1 })]
      const messages = yield* s.handleOpenAI(calls)
      expect(messages.map((m) => m.tool_call_id)).toEqual(calls.map((c) => c.id))
      expect(messages.every((m) => m.role === "tool")).toBe(true)
      expect(messages[0]?.content).toBe("hello\nworld\n")
      expect(messages[1]?.content).toContain("hello.txt")
      expect(messages[2]?.content).toMatch(/^hello\n/)
    }).pipe(Effect.provide(live)))

  it.effect("malformed JSON, unknown tools, bad arguments and refusals become messages the model can act on", () =>
    Effect.gen(function*() {
      const s = yield* session()
      const [malformed, unknown, invalid, vetoed, ok] = yield* s.handleOpenAI([
        call("read_file", "{\"filepath\": \"hello.txt\""),
        call("read_fil", { filepath: "hello.txt" }),
        call("read_file", { filepath: 42 }),
        call("read_file", { filepath: ".env" }),
        call("read_file", "")
      ])
      expect(malformed?.content).toMatch(/^Error \[INVALID_ARGUMENTS\]: the arguments of "read_file" are not valid JSON/)
      expect(malformed?.content).toContain("Send the arguments as one JSON object")
      expect(unknown?.content).toMatch(/^Error \[TOOL_NOT_FOUND\]: .*did you mean: read_file/)
      expect(unknown?.content).toContain("Call only the tools you were given")
      expect(invalid?.content).toMatch(/^Error \[INVALID_ARGUMENTS\]: Invalid arguments for "read_file": filepath/)
      expect(vetoed?.content).toMatch(/^Error \[POLICY_VETO\]: .*secrets stay out/)
      expect(vetoed?.content).toContain("Do not retry it unchanged")
      // empty argument text is a call without arguments: read_file then misses its filepath
      expect(ok?.content).toMatch(/^Error \[INVALID_ARGUMENTS\].*filepath/)
    }).pipe(Effect.provide(live)))

  it.effect("a rate limit says when to come back", () =>
    Effect.gen(function*() {
      const s = yield* session()
      const outcomes = yield* s.handle([1, 2, 3].map((n) => ({ id: `${n}`, name: "limited", input: Result.succeed({}), strictArguments: false })))
      const refused = outcomes.filter((o) => o.isError)
      expect(refused).toHaveLength(1)
      expect(refused[0]?.content).toMatch(/^Error \[RATE_LIMITED\]: .*retry after \d+ ms/)
      expect(refused[0]?.result?.success === false && refused[0]?.result.retryAfterMs).toBeGreaterThan(0)
    }).pipe(Effect.provide(live)))

  it.effect("a workspace escape is not a message: the PATH_TRAVERSAL defect fails the turn", () =>
    Effect.gen(function*() {
      const s = yield* session()
      const alone = yield* Effect.exit(s.handleOpenAI([call("read_file", { filepath: "../../etc/passwd" })]))
      expect(Exit.isFailure(alone) && isPathTraversal(alone.cause)).toBe(true)
      // among other calls running concurrently, too
      const mixed = yield* Effect.exit(
        s.handleOpenAI([call("read_file", { filepath: "hello.txt" }), call("list_files", { directory: "/etc" })])
      )
      expect(Exit.isFailure(mixed)).toBe(true)
      if (Exit.isFailure(mixed)) expect(Option.map(pathTraversalOf(mixed.cause), (e) => e.path)).toEqual(Option.some("/etc"))
      // and in the Anthropic shape
      const anthropic = yield* Effect.exit(
        s.handleAnthropic([{ type: "tool_use", id: "t1", name: "read_file", input: { filepath: "/etc/hostname" } }])
      )
      expect(Exit.isFailure(anthropic) && isPathTraversal(anthropic.cause)).toBe(true)
    }).pipe(Effect.provide(live)))
})

describe("ToolCallHandler, Anthropic shape", () => {
  it.effect("runs the tool_use blocks of an assistant message and answers with tool_result blocks", () =>
    Effect.gen(function*() {
      const s = yield* session()
      const text: { readonly type: "text"; readonly text: string } = { type: "text", text: "Let me look." }
      const results = yield* s.handleAnthropic([
        text,
        { type: "tool_use", id: "toolu_1", name: "read_file", input: { filepath: "hello.txt" } },
        { type: "tool_use", id: "toolu_2", name: "write_file", input: { filepath: "x.md", content: "x" } }
      ])
      expect(results).toEqual([
        { type: "tool_result", tool_use_id: "toolu_1", content: "hello\nworld\n", is_error: false },
        {
          type: "tool_result",
          tool_use_id: "toolu_2",
          content: expect.stringMatching(/^Error \[CONFIRMATION_REQUIRED\]: Confirmation required\n.*no one can confirm/),
          is_error: true
        }
      ])
      const tools = yield* s.anthropicTools
      expect(tools.find((t) => t.name === "read_file")).toMatchObject({ input_schema: { type: "object" } })
    }).pipe(Effect.provide(live)))
})

describe("ToolCallHandler, modes and exports", () => {
  it.effect("the tool list follows the mode, and the mode's addendum is there for the system prompt", () =>
    Effect.gen(function*() {
      const all = names(yield* (yield* session()).openAITools)
      expect(all).toEqual(expect.arrayContaining(["read_file", "write_file", "execute_javascript", "limited"]))
      const explore = yield* session({ mode: AgentMode.Explore })
      const exploreTools = names(yield* explore.openAITools)
      expect(exploreTools).toContain("read_file")
      expect(exploreTools).not.toContain("write_file")
      expect(exploreTools).not.toContain("execute_javascript")
      expect(explore.systemPromptAddendum).toBe(AgentMode.Explore.systemPromptAddendum)
      expect(explore.systemPrompt("You are helpful.")).toBe(`You are helpful.\n\n${AgentMode.Explore.systemPromptAddendum}`)
      const plan = names(yield* (yield* session({ mode: AgentMode.Plan })).openAITools)
      expect(plan).toContain("write_file")
      expect((yield* session()).systemPrompt("base")).toBe("base")
      const blocked = yield* explore.handleOpenAI([call("write_file", { filepath: "n.md", content: "x" })])
      expect(blocked[0]?.content).toMatch(/^Error \[MODE_BLOCKED\]: Tool "write_file" is not allowed in mode "explore"/)
    }).pipe(Effect.provide(live)))

  it.effect("a strict session exports strict tools and drops the nulls the model sends for left-out fields", () =>
    Effect.gen(function*() {
      const strict = yield* session({ strict: true })
      const tool = (yield* strict.openAITools).find((t) => t.function.name === "read_file")
      expect(tool?.function.strict).toBe(true)
      expect(tool?.function.parameters).toMatchObject({ additionalProperties: false, required: ["filepath", "max_lines"] })
      const args = { filepath: "hello.txt", max_lines: null }
      expect((yield* strict.handleOpenAI([call("read_file", args)]))[0]?.content).toBe("hello\nworld\n")
      const plain = yield* session()
      expect((yield* plain.handleOpenAI([call("read_file", args)]))[0]?.content).toMatch(/^Error \[INVALID_ARGUMENTS\]/)
    }).pipe(Effect.provide(live)))
})

describe("ToolCallHandler, confirmation", () => {
  const write = (file: string, content: string) => call("write_file", { filepath: file, content })

  it.effect("without a ConfirmationHandler the refusal stands", () =>
    Effect.gen(function*() {
      const [m] = yield* (yield* session()).handleOpenAI([write("c0.md", "x")])
      expect(m?.content).toMatch(/^Error \[CONFIRMATION_REQUIRED\]/)
      expect(fs.existsSync(path.join(ws, "c0.md"))).toBe(false)
    }).pipe(Effect.provide(live)))

  it.effect("an approving handler is asked (tool, arguments, why) and the call runs confirmed", () =>
    Effect.gen(function*() {
      const asked = yield* Ref.make<ReadonlyArray<ConfirmationRequest>>([])
      const handler = ConfirmationHandler.layer((request) =>
        Effect.as(Ref.update(asked, (list) => [...list, request]), { approved: true })
      )
      const s = yield* session()
      const [m] = yield* Effect.provide(s.handleOpenAI([write("c1.md", "one")]), handler)
      expect(m?.content).toBe("Wrote 3 bytes to c1.md")
      expect(fs.readFileSync(path.join(ws, "c1.md"), "utf8")).toBe("one")
      const requests = yield* Ref.get(asked)
      expect(requests).toHaveLength(1)
      expect(requests[0]).toMatchObject({
        tool: "write_file",
        version: "1.0.0",
        arguments: { filepath: "c1.md", content: "one" },
        reason: expect.stringContaining("confirm"),
        mode: AgentMode.Default
      })
      // not remembered: the next call asks again
      yield* Effect.provide(s.handleOpenAI([write("c1.md", "two")]), handler)
      expect(yield* Ref.get(asked)).toHaveLength(2)
      expect(yield* s.approvedTools).toEqual([])
    }).pipe(Effect.provide(live)))

  it.effect("a refusal tells the model the user declined, and nothing runs", () =>
    Effect.gen(function*() {
      const s = yield* session()
      const [m] = yield* Effect.provide(s.handleOpenAI([write("c2.md", "x")]), ConfirmationHandler.layerDenyAll)
      expect(m?.content).toMatch(/^Error \[CONFIRMATION_REQUIRED\]: the user declined to run "write_file": this session approves nothing/)
      expect(m?.content).toContain("Do not retry this call")
      expect(fs.existsSync(path.join(ws, "c2.md"))).toBe(false)
    }).pipe(Effect.provide(live)))

  it.effect("an approval remembered for the session is not asked again in that session only", () =>
    Effect.gen(function*() {
      const count = yield* Ref.make(0)
      const handler = ConfirmationHandler.layer(() => Effect.as(Ref.update(count, (n) => n + 1), { approved: true, remember: true }))
      const s = yield* session()
      const messages = yield* Effect.provide(s.handleOpenAI([write("c3.md", "1"), write("c3.md", "2"), write("c3.md", "3")]), handler)
      expect(messages.map((m) => m.content)).toEqual([
        "Wrote 1 bytes to c3.md",
        "Wrote 1 bytes to c3.md (overwrote an existing file)",
        "Wrote 1 bytes to c3.md (overwrote an existing file)"
      ])
      expect(yield* Ref.get(count)).toBe(1)
      expect(yield* s.approvedTools).toEqual(["write_file"])
      const other = yield* session()
      yield* Effect.provide(other.handleOpenAI([write("c3.md", "4")]), handler)
      expect(yield* Ref.get(count)).toBe(2)
    }).pipe(Effect.provide(live)))

  it.effect("a handler given to the layer itself is used too", () =>
    Effect.gen(function*() {
      const [m] = yield* (yield* session()).handleOpenAI([write("c4.md", "x")])
      expect(m?.content).toBe("Wrote 1 bytes to c4.md")
    }).pipe(
      Effect.provide(ToolCallHandler.layer.pipe(Layer.provide(ConfirmationHandler.layerAutoApprove), Layer.provideMerge(system)))
    ))
})

describe("ToolCallHandler, ask_user", () => {
  const ask = (args: unknown): ToolCall => ({ id: `q${++nextId}`, name: "ask_user", input: Result.succeed(args), strictArguments: false })

  it.effect("without a QuestionHandler ask_user is not offered and answers that it is unavailable", () =>
    Effect.gen(function*() {
      const s = yield* session()
      expect(names(yield* s.openAITools)).not.toContain("ask_user")
      const [o] = yield* s.handle([ask({ question: "Which branch?" })])
      expect(o).toMatchObject({ isError: true, result: null })
      expect(o?.content).toMatch(/"ask_user" is unavailable/)
    }).pipe(Effect.provide(live)))

  it.effect("with one, ask_user is offered in every mode and its calls are answered by it", () =>
    Effect.gen(function*() {
      const s = yield* session({ mode: AgentMode.Explore, strict: true })
      const tools = yield* s.openAITools
      expect(names(tools)).toContain("ask_user")
      expect(tools.find((t) => t.function.name === "ask_user")?.function.strict).toBe(true)
      const messages = yield* s.handleOpenAI([
        call("ask_user", { question: "Which branch?", choices: null, multi: null }),
        call("ask_user", { question: "Which files?", choices: ["a", "b"], multi: true }),
        call("ask_user", { question: "" }),
        call("ask_user", "{oops")
      ])
      expect(messages.map((m) => m.content)).toEqual([
        "main",
        "[\"a\",\"b\"]",
        expect.stringMatching(/^Error \[INVALID_ARGUMENTS\]: Invalid arguments for "ask_user": question/),
        expect.stringMatching(/^Error \[INVALID_ARGUMENTS\]: the arguments of "ask_user" are not valid JSON/)
      ])
    }).pipe(Effect.provide(TestQuestionHandler.layerScripted(["main", ["a", "b"]])), Effect.provide(live)))
})
