/**
 * Our Streamable HTTP server (`serveMcpHttp`, the builtins, in this process on 127.0.0.1) as the
 * AI SDK's MCP client sees it: `@ai-sdk/mcp` 2.0.99 (`createMCPClient({ transport: { type:
 * "http", url } })`), its own client (not the MCP SDK's), nobody here wrote it.
 *
 * It speaks both eras:
 * - 2026-07-28 by default (it probes with `server/discover`, then every request carries the
 *   `_meta` envelope). Confirmation is our `input_required` result: the client hands the form to
 *   its `onElicitationRequest` handler and retries the call with `inputResponses`, so a yes runs
 *   the write once and a no runs nothing. Declaring no `elicitation` capability gets the plain
 *   refusal (we only ask a client that says it can answer).
 * - 2025-11-25 with `protocolVersionDiscovery: false` (`initialize`). Over our stateless HTTP no
 *   server-to-client request can be made, so a call that needs confirmation is refused
 *   (`CONFIRMATION_REQUIRED`) with the note saying why and what to do, even though the client
 *   registered an elicitation handler: the handler is never called.
 *
 * Its `tools()` (the AI SDK tool set a model is given) keeps our descriptions and titles, takes our
 * input schema with `additionalProperties: false` added, and its `execute` hands an error
 * result back as a value (`isError: true`), not a throw: a tool error is something the model
 * reads, not a crash of the agent loop.
 */
import { createMCPClient, ElicitationRequestSchema, type MCPClient } from "@ai-sdk/mcp"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { replyText as text } from "./replyText.js"
import { asExported, exported, HELLO, servedBuiltins } from "./thirdPartyClientsHarness.js"

interface ClientOptions {
  /** `false`: 2025-11-25 (`initialize`); default: 2026-07-28 (`server/discover`). */
  readonly discovery?: boolean
  /** Declare form elicitation and answer every question so; `undefined`: declare none. */
  readonly answer?: "accept" | "decline" | undefined
}

/** An AI SDK MCP client of `url` for the scope, and the questions it was asked. */
const clientOf = (url: string, options: ClientOptions = {}) =>
  Effect.gen(function*() {
    const questions: Array<string> = []
    const client: MCPClient = yield* Effect.acquireRelease(
      Effect.promise(() =>
        createMCPClient({
          transport: { type: "http", url },
          clientName: "third-party-ai-sdk",
          ...(options.discovery === false ? { protocolVersionDiscovery: false } : {}),
          ...(options.answer === undefined ? {} : { capabilities: { elicitation: {} } })
        })
      ),
      (client) => Effect.promise(() => client.close())
    )
    const answer = options.answer
    if (answer !== undefined) {
      client.onElicitationRequest(ElicitationRequestSchema, (request) => {
        questions.push(request.params.message)
        return answer === "accept" ? { action: "accept", content: { confirm: true } } : { action: "decline" }
      })
    }
    return { client, questions }
  })

const call = (client: MCPClient, name: string, args: Record<string, unknown>) =>
  Effect.promise(() => client.callTool({ name, arguments: args }))

describe("the AI SDK's MCP client (@ai-sdk/mcp) against serveMcpHttp", () => {
  for (const era of ["2026-07-28", "2025-11-25"] as const) {
    it.live(`${era}: lists our tools as we export them; reads a file; a tool error is an error result`, () =>
      Effect.scoped(Effect.gen(function*() {
        const { listing, url } = yield* servedBuiltins()
        const { client } = yield* clientOf(url, { discovery: era === "2026-07-28" })
        expect(client.initializeResult.protocolVersion).toBe(era)
        expect(client.serverInfo.name).toBe("effect-tool-system")
        const { tools } = yield* Effect.promise(() => client.listTools())
        expect(tools.map((t) => t.name)).toEqual(listing.map((t) => t.name))
        expect(asExported(tools, listing)).toEqual(exported(listing))
        expect(tools.find((t) => t.name === "read_file")).toMatchObject({
          title: "Read file",
          annotations: { title: "Read file", readOnlyHint: true, destructiveHint: false, idempotentHint: true }
        })
        expect(tools.find((t) => t.name === "write_file")?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true })

        const read = yield* call(client, "read_file", { filepath: "hello.txt" })
        expect("isError" in read ? read.isError : undefined).not.toBe(true)
        expect(text(read)).toContain(HELLO.trim())

        const missing = yield* call(client, "read_file", { filepath: "nowhere.txt" })
        expect("isError" in missing ? missing.isError : undefined).toBe(true)
        expect(text(missing)).toMatch(/^[A-Z_]+: /)
        const escape = yield* call(client, "read_file", { filepath: "../../etc/passwd" })
        expect("isError" in escape ? escape.isError : undefined).toBe(true)
        expect(text(escape)).toMatch(/^PATH_TRAVERSAL: the path "\.\.\/\.\.\/etc\/passwd" is outside the workspace/)
        expect(text(escape)).not.toContain("root:")
      })), 120_000)
  }

  it.live("2026-07-28: a write that needs confirmation asks the client's elicitation handler; yes writes once, no writes nothing", () =>
    Effect.scoped(Effect.gen(function*() {
      const { url, ws } = yield* servedBuiltins()
      const yes = yield* clientOf(url, { answer: "accept" })
      const written = yield* call(yes.client, "write_file", { filepath: "yes.txt", content: "confirmed" })
      expect("isError" in written ? written.isError : undefined).not.toBe(true)
      expect(fs.readFileSync(path.join(ws, "yes.txt"), "utf8")).toBe("confirmed")
      expect(yes.questions).toEqual([`Run the tool "write_file" with {"filepath":"yes.txt","content":"confirmed"}?`])

      const no = yield* clientOf(url, { answer: "decline" })
      const refused = yield* call(no.client, "write_file", { filepath: "no.txt", content: "declined" })
      expect("isError" in refused ? refused.isError : undefined).toBe(true)
      expect(text(refused)).toMatch(/^CONFIRMATION_REQUIRED: /)
      expect(no.questions.length).toBe(1)
      expect(fs.existsSync(path.join(ws, "no.txt"))).toBe(false)

      // no elicitation capability declared: refused outright, nothing asked
      const mute = yield* clientOf(url)
      const plain = yield* call(mute.client, "write_file", { filepath: "mute.txt", content: "x" })
      expect("isError" in plain ? plain.isError : undefined).toBe(true)
      expect(text(plain)).toBe("CONFIRMATION_REQUIRED: Confirmation required")
      expect(fs.existsSync(path.join(ws, "mute.txt"))).toBe(false)
    })), 120_000)

  it.live("2025-11-25 over stateless HTTP: the write is refused with the note, its elicitation handler never called", () =>
    Effect.scoped(Effect.gen(function*() {
      const { url, ws } = yield* servedBuiltins()
      const { client, questions } = yield* clientOf(url, { discovery: false, answer: "accept" })
      expect(client.initializeResult.protocolVersion).toBe("2025-11-25")
      const refused = yield* call(client, "write_file", { filepath: "legacy.txt", content: "x" })
      expect("isError" in refused ? refused.isError : undefined).toBe(true)
      expect(text(refused)).toMatch(/^CONFIRMATION_REQUIRED: .*stateless.*2026-07-28.*--yes/s)
      expect(questions).toEqual([])
      expect(fs.existsSync(path.join(ws, "legacy.txt"))).toBe(false)
      // served with confirmation "auto" (--yes), the same client's write runs
      const auto = yield* servedBuiltins("auto")
      const confirmed = yield* clientOf(auto.url, { discovery: false })
      const written = yield* call(confirmed.client, "write_file", { filepath: "auto.txt", content: "auto" })
      expect("isError" in written ? written.isError : undefined).not.toBe(true)
      expect(fs.readFileSync(path.join(auto.ws, "auto.txt"), "utf8")).toBe("auto")
    })), 120_000)

  it.live("tools(): the AI SDK tool set keeps our descriptions and titles; execute returns an error result, it does not throw", () =>
    Effect.scoped(Effect.gen(function*() {
      const { listing, url } = yield* servedBuiltins()
      const { client } = yield* clientOf(url)
      const tools = yield* Effect.promise(() => client.tools())
      expect(Object.keys(tools).sort()).toEqual(listing.map((t) => t.name).sort())
      const readFile = tools.read_file
      const ours = listing.find((t) => t.name === "read_file")
      expect(readFile?.description).toBe(ours?.description)
      expect(readFile?.title).toBe("Read file")
      // the model is given our input schema, closed (additionalProperties: false)
      const schema = readFile?.inputSchema
      const given = typeof schema === "object" && schema !== null && "jsonSchema" in schema
        ? yield* Effect.promise(() => Promise.resolve(schema.jsonSchema))
        : undefined
      expect(given).toEqual({ ...ours?.inputSchema, additionalProperties: false })
      const options = { toolCallId: "call-1", messages: [], context: {} }
      const read = yield* Effect.promise(() => Promise.resolve(readFile?.execute({ filepath: "hello.txt" }, options)))
      expect(text(read ?? {})).toContain(HELLO.trim())
      const failed = yield* Effect.promise(() => Promise.resolve(readFile?.execute({ filepath: "nowhere.txt" }, options)))
      expect(failed).toMatchObject({ isError: true })
    })), 120_000)
})
