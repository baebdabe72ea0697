/**
 * `serveMcp` on a transport the application brings (here the SDK's in-memory pair): the
 * function behind `effect-tool-system mcp`, without a process. Tags filter the list, outputs
 * that are not text are JSON, a tool that escapes the workspace is an error result, and the
 * serving fiber ends when the client closes. A call that needs confirmation asks an eliciting
 * client (the default), is confirmed up front with `auto`, and is refused otherwise.
 */
import { describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Fiber, Schema } from "effect"
import { Tool, ToolSystem, Workspace, WorkspacePath } from "../../../src/index.js"
import { serveMcp } from "../../../src/tools/mcp/serve.js"
import type { McpConfirmation } from "../../../src/tools/mcp/server.js"
import { replyText as text } from "./replyText.js"
import { recordingLogsWith, textOf } from "../../helpers/recordingLogs.js"
import { tempDir } from "../../helpers/tempDir.js"
import { makeDeleteThing } from "./helpers.js"
import { VERSION } from "../../../src/version.js"

const stats = Tool.make("stats", {
  description: "Counts things",
  parameters: Schema.Struct({ n: Schema.Number }),
  readOnly: true,
  tags: ["numbers"],
  handler: ({ n }) => Effect.succeed({ n, double: n * 2 })
})

const escape = Tool.make("escape", {
  description: "Resolves a path it made itself, outside the workspace",
  parameters: Schema.Struct({}),
  readOnly: true,
  tags: ["paths"],
  handler: () => Effect.flatMap(Workspace, (ws) => ws.resolve("/etc/passwd"))
})

const pathArg = Tool.make("path_arg", {
  description: "Takes a path",
  parameters: Schema.Struct({ file: WorkspacePath }),
  readOnly: true,
  tags: ["paths"],
  handler: ({ file }) => Effect.succeed(file)
})

/** A read-only tool of the "numbers" tag, without parameters, that succeeds with `output`. */
const constant = (name: string, description: string, output: string | undefined) =>
  Tool.make(name, {
    description,
    parameters: Schema.Struct({}),
    readOnly: true,
    tags: ["numbers"],
    handler: () => Effect.succeed(output)
  })

const oddName = constant("odd__name-x", "A name with a run of separators", "odd")
// names that are separators at the ends, or only separators
const edgeName = constant("_edge_name_", "A name led and ended by separators", "edge")
const separators = constant("__", "A name of separators only", "separators")
const nothing = constant("nothing", "Succeeds with no output", undefined)

const { deletions, tool: deleteThing } = makeDeleteThing()

const saveNote = Tool.make("save_note", {
  description: "Keeps a note (needs confirmation)",
  parameters: Schema.Struct({ note: Schema.String }),
  requiresConfirmation: true,
  handler: ({ note }) => Effect.succeed(`kept ${note.length} characters`)
})

/**
 * A client connected to a server with `confirmation`; `answer` (when given) makes it a client
 * that supports elicitation, answering each question with it. `asked` collects the questions.
 */
const served = (
  confirmation: McpConfirmation | undefined,
  answer?: (
    question: string
  ) => boolean | { readonly action: "accept" | "decline" | "cancel"; readonly content: { readonly confirm: boolean } }
) =>
  Effect.gen(function*() {
    const ws = yield* tempDir("mcp-confirm-")
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    yield* serveMcp(serverSide, confirmation === undefined ? {} : { confirmation }).pipe(
      Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [stats, deleteThing, saveNote], workspace: Workspace.layerFixed(ws) })),
      Effect.forkScoped
    )
    const asked: Array<string> = []
    const schemas: Array<unknown> = []
    const client = new Client({ name: "c", version: "1.0.0" }, { capabilities: answer === undefined ? {} : { elicitation: { form: {} } } })
    if (answer !== undefined) {
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        asked.push(request.params.message)
        if ("requestedSchema" in request.params) schemas.push(request.params.requestedSchema)
        const given = answer(request.params.message)
        return Promise.resolve(
          typeof given === "object" ? given : given ? { action: "accept", content: { confirm: true } } : { action: "decline" }
        )
      })
    }
    yield* Effect.acquireRelease(Effect.promise(() => client.connect(clientSide)), () => Effect.promise(() => client.close()))
    const call = (name: string, args: Record<string, unknown>) => Effect.promise(() => client.callTool({ name, arguments: args }))
    return { asked, call, client, schemas }
  })

// live clock: the MCP SDK's real client and server on an in-memory transport (its request timeouts are Node timers)
describe("serveMcp: a call that needs confirmation", () => {
  it.live("asks a client that supports elicitation (by default), and runs only on its yes", () =>
    Effect.gen(function*() {
      const { asked, call, client, schemas } = yield* served(
        undefined,
        // yes to id 1 (and to the note); an accepted form with the box not ticked for id 3;
        // a decline that ticks the box anyway for id 4; no to the rest
        (question) =>
          question.includes("\"id\":3")
            ? { action: "accept", content: { confirm: false } }
            : question.includes("\"id\":4")
            ? { action: "decline", content: { confirm: true } }
            : question.includes("\"id\":1") || question.includes("save_note")
      )
      // the server's default name and version
      expect(client.getServerVersion()).toMatchObject({ name: "effect-tool-system", version: VERSION })
      const before = deletions()
      const yes = yield* call("delete_thing", { id: 1 })
      expect(yes.isError).toBeUndefined()
      expect(text(yes)).toBe(`deleted 1 (${before + 1})`)
      const no = yield* call("delete_thing", { id: 2 })
      expect(no.isError).toBe(true)
      expect(text(no)).toMatch(/^CONFIRMATION_REQUIRED: /)
      // accepted, but without the box ticked: no
      const unticked = yield* call("delete_thing", { id: 3 })
      expect(text(unticked)).toMatch(/^CONFIRMATION_REQUIRED: /)
      // declined, whatever else the answer holds: no
      const declined = yield* call("delete_thing", { id: 4 })
      expect(text(declined)).toMatch(/^CONFIRMATION_REQUIRED: /)
      expect(deletions()).toBe(before + 1)
      expect(asked).toEqual([1, 2, 3, 4].map((id) => `Run the tool "delete_thing" with {"id":${id}}?`))
      // long arguments are shown whole (confirmQuestion.test.ts: and cut with a note past the limit)
      const long = yield* call("save_note", { note: "x".repeat(5000) })
      expect(text(long)).toBe("kept 5000 characters")
      expect(asked[4]).toBe(`Run the tool "save_note" with ${`{"note":"${"x".repeat(5000)}"}`}?`)
      asked.pop()
      // each question asks for one yes/no field
      const question = {
        type: "object",
        properties: { confirm: { type: "boolean", title: "Run it", description: `Run "delete_thing" now` } },
        required: ["confirm"]
      }
      expect(schemas.slice(0, 4)).toEqual([question, question, question, question])
      // a call that needs no confirmation asks nothing
      expect(text(yield* call("stats", { n: 1 }))).toContain("\"double\": 2")
      expect(asked).toHaveLength(4)
    }))

  it.live("is refused for a client without elicitation, unless confirmation is auto; refuse never asks", () =>
    Effect.gen(function*() {
      const before = deletions()
      // refused without a question: nothing failed, so nothing is logged (the server logs where it was started)
      const [refused, lines] = yield* recordingLogsWith(() => Effect.flatMap(served("ask"), (plain) => plain.call("delete_thing", { id: 3 })))
      expect(text(refused)).toMatch(/^CONFIRMATION_REQUIRED: /)
      expect(lines.map(textOf)).toEqual([])
      const auto = yield* served("auto", () => false)
      expect(text(yield* auto.call("delete_thing", { id: 4 }))).toBe(`deleted 4 (${before + 1})`)
      expect(auto.asked).toEqual([])
      const refuse = yield* served("refuse", () => true)
      expect(text(yield* refuse.call("delete_thing", { id: 5 }))).toMatch(/^CONFIRMATION_REQUIRED: /)
      expect(refuse.asked).toEqual([])
      expect(deletions()).toBe(before + 1)
    }))
})

// live clock: the MCP SDK's real client and server on an in-memory transport (its request timeouts are Node timers)
describe("serveMcp", () => {
  it.live("serves a ToolSystem on the application's transport until the client closes", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-inproc-")
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
      const serving = yield* serveMcp(serverSide, { tags: ["numbers", "paths"], name: "in-process" }).pipe(
        Effect.provide(
          ToolSystem.layerNode({ builtins: false, tools: [stats, escape, pathArg, oddName, edgeName, separators, nothing, deleteThing], workspace: Workspace.layerFixed(ws) })
        ),
        Effect.forkChild
      )
      const client = new Client({ name: "c", version: "1.0.0" })
      yield* Effect.promise(() => client.connect(clientSide))
      expect(client.getServerVersion()?.name).toBe("in-process")
      // no bridge: no list of tools that changes
      expect(client.getServerCapabilities()?.tools).toEqual({})
      const { tools } = yield* Effect.promise(() => client.listTools())
      // only the tools of those tags (not delete_thing), each with a title made of its name, also among its annotations
      expect(tools.map((t) => [t.name, t.title, t.annotations?.title])).toEqual([
        ["__", "__", "__"],
        ["_edge_name_", "Edge name", "Edge name"],
        ["escape", "Escape", "Escape"],
        ["nothing", "Nothing", "Nothing"],
        ["odd__name-x", "Odd name x", "Odd name x"],
        ["path_arg", "Path arg", "Path arg"],
        ["stats", "Stats", "Stats"]
      ])
      expect(tools.find((t) => t.name === "stats")?.annotations?.readOnlyHint).toBe(true)
      const r = yield* Effect.promise(() => client.callTool({ name: "stats", arguments: { n: 21 } }))
      expect(JSON.parse(text(r))).toEqual({ n: 21, double: 42 })
      // no output: an empty text
      const empty = yield* Effect.promise(() => client.callTool({ name: "nothing", arguments: {} }))
      expect(empty).toEqual({ content: [{ type: "text", text: "" }] })
      // an escape raised by a handler, and one in an argument: error results, no crash
      const died = yield* Effect.promise(() => client.callTool({ name: "escape", arguments: {} }))
      expect(died.isError).toBe(true)
      expect(text(died)).toMatch(/^PATH_TRAVERSAL: the path "\/etc\/passwd" is outside the workspace/)
      const arg = yield* Effect.promise(() => client.callTool({ name: "path_arg", arguments: { file: "../../x" } }))
      expect(text(arg)).toMatch(/^PATH_TRAVERSAL: /)
      const fine = yield* Effect.promise(() => client.callTool({ name: "path_arg", arguments: { file: "a.txt" } }))
      expect(text(fine)).toBe(`${ws}/a.txt`)
      yield* Effect.promise(() => client.close())
      yield* Fiber.join(serving).pipe(Effect.timeout("2 seconds"))
    }))
})
