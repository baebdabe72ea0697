/**
 * `pathTraversal` of a `ToolCallHandler` session (issue 47, item 15), in a real temp
 * workspace: by default an escape is the defect, and it names the call (tool and id); with
 * `"answer"` the escaping call is answered `Error [PATH_TRAVERSAL] ...`, the turn's other
 * calls keep their results, a warning is logged and the audit record carries the call's id.
 *
 * The system holds only the builtin file tools (`list_files`, `read_file`, `write_file`, given
 * as `tools` with `builtins: false`); a log line's level is Effect 4's `"Warn"` (Effect 3's
 * `LogLevel.Warning`).
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { pathTraversalOf } from "../../src/domain/errors.js"
import { AuditLog, type AuditRecord } from "../../src/services/AuditLog.js"
import { ToolCallHandler } from "../../src/services/ToolCallHandler.js"
import { ToolSystem } from "../../src/services/ToolSystem.js"
import { Workspace } from "../../src/services/Workspace.js"
import { listFiles } from "../../src/tools/builtin/listFiles.js"
import { readFile } from "../../src/tools/builtin/readFile.js"
import { writeFile } from "../../src/tools/builtin/writeFile.js"
import { recordingLogs, textOf } from "../helpers/recordingLogs.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const ws = makeTempDirSync("escape-answer-")
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))
fs.writeFileSync(path.join(ws, "hello.txt"), "hello\n")

/** The audit records written, in order (the sink of the executor's own records). */
const records: Array<AuditRecord> = []
const audit = Layer.succeed(AuditLog, {
  enabled: true,
  includeArguments: false,
  write: (record) => Effect.sync(() => void records.push(record))
})
const live = ToolCallHandler.layer.pipe(
  Layer.provideMerge(ToolSystem.layerNode({ builtins: false, tools: [listFiles, readFile, writeFile], workspace: Workspace.layerFixed(ws), audit }))
)

const call = (id: string, name: string, args: unknown) => ({
  id,
  type: "function" as const,
  function: { name, arguments: JSON.stringify(args) }
})
const turn = [
  call("c_read", "read_file", { filepath: "hello.txt" }),
  call("c_escape", "list_files", { directory: "../../../etc" }),
  call("c_list", "list_files", {})
]

describe("pathTraversal", () => {
  it.effect("answer: the escaping call is answered, the others keep their results, a warning and an audit record", () =>
    Effect.gen(function*() {
      records.length = 0
      const handler = yield* ToolCallHandler
      const s = yield* handler.session({ pathTraversal: "answer" })
      const [messages, lines] = yield* recordingLogs(s.handleOpenAI(turn))
      expect(messages.map((m) => m.tool_call_id)).toEqual(["c_read", "c_escape", "c_list"])
      expect(messages[0]?.content).toBe("hello\n")
      expect(messages[1]?.content).toMatch(/^Error \[PATH_TRAVERSAL\]: "\.\.\/\.\.\/\.\.\/etc" is outside the workspace/)
      expect(messages[1]?.content).not.toContain(ws)
      expect(messages[2]?.content).toContain("hello.txt")
      const warnings = lines.filter((line) => line.level === "Warn").map(textOf)
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toContain("\"c_escape\" of \"list_files\" leads out of the workspace; the call is answered (pathTraversal: answer)")
      const escaped = records.filter((r) => r.errorCode === "PATH_TRAVERSAL")
      expect(escaped.map((r) => [r.tool, r.callId])).toEqual([["list_files", "c_escape"]])
      // the answer is an error answer: Anthropic's tool_result says so
      const [blocks] = yield* recordingLogs(
        s.handleAnthropic([{ type: "tool_use", id: "t_escape", name: "read_file", input: { filepath: "/etc/hostname" } }])
      )
      expect(blocks).toEqual([
        expect.objectContaining({ type: "tool_result", tool_use_id: "t_escape", is_error: true, content: expect.stringMatching(/^Error \[PATH_TRAVERSAL\]/) })
      ])
    }).pipe(Effect.provide(live)))

  it.effect("defect (the default): the turn fails with the PATH_TRAVERSAL defect, naming the call", () =>
    Effect.gen(function*() {
      const handler = yield* ToolCallHandler
      const s = yield* handler.session()
      const exit = yield* Effect.exit(s.handleOpenAI(turn))
      expect(Exit.isFailure(exit)).toBe(true)
      if (!Exit.isFailure(exit)) return
      const escape = pathTraversalOf(exit.cause)
      expect(Option.map(escape, (e) => e.path)).toEqual(Option.some("../../../etc"))
      expect(Option.map(escape, (e) => e.message)).toEqual(
        Option.some(expect.stringMatching(/^PATH_TRAVERSAL: .* in the call "c_escape" of "list_files"$/))
      )
      // the Anthropic shape names its call too
      const anthropic = yield* Effect.exit(
        s.handleAnthropic([{ type: "tool_use", id: "t_escape", name: "read_file", input: { filepath: "/etc/hostname" } }])
      )
      expect(Exit.isFailure(anthropic) && Option.map(pathTraversalOf(anthropic.cause), (e) => e.message)).toEqual(
        Option.some(expect.stringContaining("in the call \"t_escape\" of \"read_file\""))
      )
    }).pipe(Effect.provide(live)))
})
