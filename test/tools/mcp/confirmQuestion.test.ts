/**
 * The MCP server's confirmation question (issue 47, item 8), asked of a real SDK client over
 * the SDK's in-memory transport: it shows all of the arguments, or says plainly that they are
 * cut and how long they are; bidi overrides and control characters are shown as escapes, so
 * what the person approves is what runs. And a 5 MB unknown tool name is answered without
 * stalling the server in "did you mean".
 */
import { describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Schema } from "effect"
import { Tool, ToolSystem, Workspace } from "../../../src/index.js"
import { MAX_QUESTION_ARGS } from "../../../src/tools/mcp/confirmation.js"
import { serveMcp } from "../../../src/tools/mcp/serve.js"
import { resultText as text } from "../../../src/tools/mcp/proxy.js"
import { MAX_BLOCK_MS, measureBlocking } from "../../helpers/loopDelay.js"
import { tempDir } from "../../helpers/tempDir.js"

const runCommand = Tool.make("run_thing", {
  description: "Runs a command (needs confirmation)",
  parameters: Schema.Struct({ command: Schema.String }),
  requiresConfirmation: true,
  handler: ({ command }) => Effect.succeed(`ran ${command.length} characters`)
})

/** A client that supports elicitation and says yes, connected to our server; `asked` collects the questions. */
const served = Effect.gen(function*() {
  const ws = yield* tempDir("mcp-question-")
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  yield* serveMcp(serverSide).pipe(
    Effect.provide(ToolSystem.layerNode({ tools: [runCommand], workspace: Workspace.layerFixed(ws) })),
    Effect.forkScoped
  )
  const asked: Array<string> = []
  const client = new Client({ name: "c", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } })
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params.message)
    return Promise.resolve({ action: "accept", content: { confirm: true } })
  })
  yield* Effect.acquireRelease(Effect.promise(() => client.connect(clientSide)), () => Effect.promise(() => client.close()))
  const call = (name: string, args: Record<string, unknown>) => Effect.promise(() => client.callTool({ name, arguments: args }))
  return { asked, call, client }
})

// live clock: the MCP SDK's real client and server on an in-memory transport (its request timeouts are Node timers)
describe("the MCP server's confirmation question", () => {
  it.live("shows arguments of 5,000 characters whole, and says plainly when longer ones are cut", () =>
    Effect.gen(function*() {
      const { asked, call } = yield* served
      // a harmless head and a tail that matters, 5,000 characters apart
      const command = `echo hi ${" ".repeat(4980)}; rm -rf ~`
      expect(text(yield* call("run_thing", { command }))).toBe(`ran ${command.length} characters`)
      expect(asked[0]).toBe(`Run the tool "run_thing" with ${JSON.stringify({ command })}?`)
      expect(asked[0]).toContain("rm -rf ~")
      const huge = "x".repeat(MAX_QUESTION_ARGS * 2)
      yield* call("run_thing", { command: huge })
      const total = JSON.stringify({ command: huge }).length
      expect(asked[1]).toContain(`(cut: showing ${MAX_QUESTION_ARGS} of ${total} characters)`)
      expect(asked[1]?.startsWith(`Run the tool "run_thing" with {"command":"xxx`)).toBe(true)
    }))

  it.live("shows right-to-left overrides, isolates and control characters as escapes", () =>
    Effect.gen(function*() {
      const { asked, call } = yield* served
      const command = "ls \u202Eftp.exe\u202C \u2066x\u2069 \u200F \u061C bell\u0007 esc\u001b[2J c1\u0085 tab\tend"
      yield* call("run_thing", { command })
      const question = asked[0] ?? ""
      expect(question).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/)
      for (const escaped of ["\\u202E", "\\u202C", "\\u2066", "\\u2069", "\\u200F", "\\u061C", "\\u0085"]) {
        expect(question).toContain(escaped)
      }
      expect(question.toLowerCase()).toContain("bell\\u0007 esc\\u001b[2j")
      expect(question).toContain("tab\\tend")
    }))

  it.live("answers a call of a 5 MB unknown tool name without blocking the event loop", () =>
    Effect.gen(function*() {
      const { client } = yield* served
      const name = "read_fil" + "e".repeat(5 * 1024 * 1024)
      const { maxBlockMs, value } = yield* Effect.promise(() =>
        measureBlocking(() => client.callTool({ name, arguments: {} }))
      )
      expect(value.isError).toBe(true)
      expect(text(value)).toMatch(/^TOOL_NOT_FOUND: /)
      expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
    }), 30_000)
})
