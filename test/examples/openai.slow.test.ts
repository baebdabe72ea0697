/**
 * `examples/openai.ts` as a child process. Without a key it explains how to run it and exits 0;
 * with one it talks to an OpenAI-compatible server — here a scripted one on 127.0.0.1, never
 * the network — and runs the model's tool calls through `ToolCallHandler`.
 * On Effect 4: `Effect.callback` for Effect 3's `Effect.async`; `it.effect`, which is scoped in
 * Effect 4, for `it.scoped`.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import * as AgentMode from "../../src/domain/AgentMode.js"
import { sendJson, testServer } from "../helpers/httpServer.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const root = path.resolve(import.meta.dirname, "../..")
const ws = makeTempDirSync("openai-example-")
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))
fs.writeFileSync(path.join(ws, "README.md"), "# Widget\nMakes widgets.\n")

const run = (env: NodeJS.ProcessEnv, args: ReadonlyArray<string> = []) =>
  Effect.callback<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resume) => {
    const child = execFile(
      "npx",
      ["tsx", "examples/openai.ts", ...args],
      { cwd: root, timeout: 90_000, env: { ...process.env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "", ...env } },
      (error, stdout, stderr) =>
        resume(Effect.succeed({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr }))
    )
    return Effect.sync(() => child.kill())
  })

const message = (content: string | null, toolCalls?: ReadonlyArray<unknown>) => ({
  id: "chatcmpl-1",
  object: "chat.completion",
  choices: [{ index: 0, finish_reason: toolCalls ? "tool_calls" : "stop", message: { role: "assistant", content, ...(toolCalls ? { tool_calls: toolCalls } : {}) } }]
})

describe("examples/openai.ts", () => {
  it.effect("without OPENAI_API_KEY it says how to run it and exits 0", () =>
    Effect.gen(function*() {
      const { code, stdout } = yield* run({})
      expect(code).toBe(0)
      expect(stdout).toContain("OPENAI_API_KEY=sk-... npx tsx examples/openai.ts")
      expect(stdout).toContain("npm run demo")
    }), 120_000)

  it.effect("with a key it runs the model's tool calls until the model answers (scripted server on 127.0.0.1)", () =>
    Effect.gen(function*() {
      let turn = 0
      const server = yield* testServer((_request, response) => {
        turn += 1
        sendJson(response, 200, turn === 1
          ? message(null, [
            { id: "call_1", type: "function", function: { name: "read_file", arguments: "{\"filepath\":\"README.md\",\"max_lines\":null}" } },
            { id: "call_2", type: "function", function: { name: "write_file", arguments: "{\"filepath\":\"x.md\",\"content\":\"x\"}" } }
          ])
          : message("It makes widgets."))
      })
      const { code, stderr, stdout } = yield* run(
        { OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: `${server.origin}/v1`, OPENAI_MODEL: "scripted", WORKSPACE_ROOT: ws },
        ["What", "is", "this?"]
      )
      // npx may print npm notices on stderr; nothing else may be there
      expect(stderr).not.toMatch(/Error|\n\s+at /)
      expect(code).toBe(0)
      expect(stdout).toContain("scripted in explore mode")
      expect(stdout).toContain("It makes widgets.")
      expect(server.requests).toHaveLength(2)
      const [first, second] = server.requests
      expect(first?.path).toBe("/v1/chat/completions")
      expect(first?.headers.authorization).toBe("Bearer test-key")
      const firstBody = JSON.parse(first?.body ?? "{}")
      expect(firstBody.model).toBe("scripted")
      expect(firstBody.messages[0].content).toContain(AgentMode.Explore.systemPromptAddendum)
      expect(firstBody.messages[1]).toEqual({ role: "user", content: "What is this?" })
      const names: Array<string> = firstBody.tools.map((t: { function: { name: string } }) => t.function.name)
      expect(names).toContain("read_file")
      expect(names).not.toContain("write_file")
      expect(firstBody.tools.every((t: { function: { strict?: boolean } }) => t.function.strict === true)).toBe(true)
      // the second request carries the assistant's calls and our tool messages, in order
      const secondBody = JSON.parse(second?.body ?? "{}")
      const tail = secondBody.messages.slice(2)
      expect(tail[0]).toMatchObject({ role: "assistant", tool_calls: [{ id: "call_1" }, { id: "call_2" }] })
      expect(tail[1]).toEqual({ role: "tool", tool_call_id: "call_1", content: "# Widget\nMakes widgets.\n" })
      expect(tail[2]).toMatchObject({ role: "tool", tool_call_id: "call_2", content: expect.stringMatching(/^Error \[MODE_BLOCKED\]/) })
      expect(fs.existsSync(path.join(ws, "x.md"))).toBe(false)
    }), 120_000)
})
