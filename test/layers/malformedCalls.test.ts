/**
 * Every call a model sends gets an answer, whatever its shape (issue 47, item 7): arguments
 * that are not JSON text, no `function`, a name or an id that is not a string, an id used
 * twice, calls that are not a list. Nothing throws, each answer says what was wrong and is
 * paired with the call's id (a stable derived one when the id is not a string), and the
 * turn's well-formed calls keep their results. The same for Anthropic's `tool_use` blocks.
 *
 * The system holds only the builtin file tools (`list_files`, `read_file`, `write_file`, given
 * as `tools` with `builtins: false`).
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ToolCallHandler } from "../../src/services/ToolCallHandler.js"
import { ToolSystem } from "../../src/services/ToolSystem.js"
import { Workspace } from "../../src/services/Workspace.js"
import { listFiles } from "../../src/tools/builtin/listFiles.js"
import { readFile } from "../../src/tools/builtin/readFile.js"
import { writeFile } from "../../src/tools/builtin/writeFile.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const ws = makeTempDirSync("malformed-calls-")
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))
fs.writeFileSync(path.join(ws, "hello.txt"), "hello\n")

const live = ToolCallHandler.layer.pipe(
  Layer.provideMerge(ToolSystem.layerNode({ builtins: false, tools: [listFiles, readFile, writeFile], workspace: Workspace.layerFixed(ws) }))
)

const session = Effect.flatMap(ToolCallHandler, (handler) => handler.session())

const read = (id: string) => ({ id, type: "function", function: { name: "read_file", arguments: "{\"filepath\":\"hello.txt\"}" } })

/** The answers of a turn, run to its exit: a throw or a defect shows up as a failed exit. */
const exitOf = <A>(effect: Effect.Effect<A>) => Effect.exit(Effect.suspend(() => effect))

describe("handleOpenAI: malformed calls", () => {
  it.effect("answers each malformed call under its id, says what was wrong, and keeps the other calls' results", () =>
    Effect.gen(function*() {
      const s = yield* session
      const calls = [
        read("ok_1"),
        { id: "args_object", type: "function", function: { name: "read_file", arguments: { filepath: "hello.txt" } } },
        { id: "args_null", type: "function", function: { name: "read_file", arguments: null } },
        { id: "args_number", type: "function", function: { name: "read_file", arguments: 7 } },
        { id: "no_function", type: "function" },
        { id: "name_number", type: "function", function: { name: 42, arguments: "{}" } },
        { type: "function", function: { name: "read_file", arguments: "{\"filepath\":\"hello.txt\"}" } },
        { id: 17, type: "function", function: { name: "read_file", arguments: "{\"filepath\":\"hello.txt\"}" } },
        read("ok_1"),
        "not a call",
        read("ok_2")
      ]
      const exit = yield* exitOf(s.handleOpenAI(calls))
      expect(Exit.isSuccess(exit)).toBe(true)
      if (!Exit.isSuccess(exit)) return
      const messages = exit.value
      expect(messages.map((m) => m.tool_call_id)).toEqual([
        "ok_1",
        "args_object",
        "args_null",
        "args_number",
        "no_function",
        "name_number",
        "malformed_call_6",
        "malformed_call_7",
        "ok_1",
        "malformed_call_9",
        "ok_2"
      ])
      expect(messages.every((m) => m.role === "tool")).toBe(true)
      const content = messages.map((m) => m.content)
      // the well-formed calls ran
      expect(content[0]).toBe("hello\n")
      expect(content[10]).toBe("hello\n")
      // each malformed one says what was wrong, and that it was not run
      const malformed = /^Error \[INVALID_ARGUMENTS\]: this tool call is malformed and was not run: /
      for (const i of [1, 2, 3, 4, 5, 6, 7, 8, 9]) expect(content[i]).toMatch(malformed)
      expect(content[1]).toContain("its arguments are an object, not JSON text")
      expect(content[2]).toContain("its arguments are null, not JSON text")
      expect(content[3]).toContain("its arguments are a number, not JSON text")
      expect(content[4]).toContain("its \"function\" is missing")
      expect(content[5]).toContain("its function name is a number, not a string")
      expect(content[6]).toContain("its id is missing, not a string; it is answered under the id \"malformed_call_6\"")
      expect(content[7]).toContain("its id is a number, not a string; it is answered under the id \"malformed_call_7\"")
      expect(content[8]).toContain("another call of this turn has the same id \"ok_1\"")
      expect(content[9]).toContain("the call is a string, not an object")
    }).pipe(Effect.provide(live)))

  it.effect("calls that are not a list: none for nothing, one call sent bare is answered, anything else is one answer", () =>
    Effect.gen(function*() {
      const s = yield* session
      expect(yield* s.handleOpenAI(undefined)).toEqual([])
      expect(yield* s.handleOpenAI(null)).toEqual([])
      const bare = yield* s.handleOpenAI(read("bare"))
      expect(bare).toEqual([{ role: "tool", tool_call_id: "bare", content: "hello\n" }])
      const text = yield* exitOf(s.handleOpenAI("read_file"))
      expect(Exit.isSuccess(text) && text.value.map((m) => [m.tool_call_id, m.content.split("\n")[0]])).toEqual([
        ["malformed_call_0", "Error [INVALID_ARGUMENTS]: this tool call is malformed and was not run: the tool calls are a string, not a list of calls"]
      ])
    }).pipe(Effect.provide(live)))
})

describe("handleAnthropic: malformed tool_use blocks", () => {
  it.effect("every tool_use block gets a tool_result, malformed ones saying what was wrong", () =>
    Effect.gen(function*() {
      const s = yield* session
      const exit = yield* exitOf(s.handleAnthropic([
        { type: "text", text: "Reading." },
        { type: "tool_use", id: "u_ok", name: "read_file", input: { filepath: "hello.txt" } },
        { type: "tool_use", id: 5, name: "read_file", input: { filepath: "hello.txt" } },
        { type: "tool_use", id: "u_name", name: ["read_file"], input: { filepath: "hello.txt" } },
        { type: "tool_use", id: "u_input", name: "read_file" },
        { type: "tool_use", id: "u_ok", name: "read_file", input: { filepath: "hello.txt" } },
        null,
        { type: "tool_use", id: "u_ok_2", name: "read_file", input: { filepath: "hello.txt" } }
      ]))
      expect(Exit.isSuccess(exit)).toBe(true)
      if (!Exit.isSuccess(exit)) return
      const results = exit.value
      expect(results.map((r) => [r.tool_use_id, r.is_error])).toEqual([
        ["u_ok", false],
        ["malformed_call_2", true],
        ["u_name", true],
        ["u_input", true],
        ["u_ok", true],
        ["u_ok_2", false]
      ])
      expect(results.every((r) => r.type === "tool_result")).toBe(true)
      expect(results[0]?.content).toBe("hello\n")
      expect(results[1]?.content).toContain("its id is a number, not a string; it is answered under the id \"malformed_call_2\"")
      expect(results[2]?.content).toContain("its name is an array, not a string")
      expect(results[3]?.content).toContain("its input is missing, not an object")
      expect(results[4]?.content).toContain("another call of this turn has the same id \"u_ok\"")
      expect(results[5]?.content).toBe("hello\n")
      // a content that is text holds no calls
      expect(yield* s.handleAnthropic("just text")).toEqual([])
    }).pipe(Effect.provide(live)))
})
