/**
 * Our Streamable HTTP server (`serveMcpHttp`, the builtins, in this process on 127.0.0.1) as the
 * OpenAI Agents SDK sees it: `@openai/agents` 0.20.0's `MCPServerStreamableHttp` (under it, the
 * MCP SDK v2 client `@modelcontextprotocol/client`, its optional dependency, with
 * `versionNegotiation: { mode: "auto" }`), and the function tools an agent is given from it
 * (`getAllMcpTools`). No model is called: the tools are invoked as the runner would.
 *
 * - Era: it speaks 2026-07-28 to us (its first request is `server/discover`, every request
 *   carries `MCP-Protocol-Version: 2026-07-28`); nothing in its options picks 2025-11-25.
 * - Confirmation: it declares no elicitation capability and has no way to answer one (nothing
 *   in 0.20.0 handles elicitation or `input_required`), so we never ask it: a write that needs
 *   confirmation is refused (`CONFIRMATION_REQUIRED: Confirmation required`) and nothing is
 *   written. Its own gate is `needsApproval`/`requireApproval` on the agent's side; served with
 *   `confirmation: "auto"` (`--yes`), the write runs.
 * - Errors: `callTool` gives back the content and `isError` (an error result, no throw). The
 *   function tool an agent gets hands the model the error text as the tool's output (it keeps
 *   `isError` to itself): the run goes on, the model reads `CODE: message`.
 */
import { getAllMcpTools, MCPServerStreamableHttp, RunContext } from "@openai/agents"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { replyText as text } from "./replyText.js"
import { asExported, exported, HELLO, servedBuiltins } from "./thirdPartyClientsHarness.js"

/** What the client sent: each request's JSON-RPC method and `MCP-Protocol-Version` header. */
interface Sent {
  readonly method: string
  readonly version: string | null
}

const methodOf = (body: unknown): string => {
  if (typeof body !== "string") return ""
  const message: unknown = JSON.parse(body)
  return typeof message === "object" && message !== null && "method" in message && typeof message.method === "string"
    ? message.method
    : ""
}

/** An Agents SDK MCP server of `url`, connected for the scope, and what it sent. */
const connected = (url: string) =>
  Effect.gen(function*() {
    const sent: Array<Sent> = []
    const recording = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const headers = new Headers(init?.headers)
      if (init?.method === "POST") sent.push({ method: methodOf(init.body), version: headers.get("mcp-protocol-version") })
      return fetch(input, init)
    }
    const server = new MCPServerStreamableHttp({ url, name: "ours", fetch: recording, cacheToolsList: false })
    yield* Effect.acquireRelease(Effect.promise(() => server.connect()), () => Effect.promise(() => server.close()))
    return { server, sent }
  })

describe("the OpenAI Agents SDK's MCPServerStreamableHttp against serveMcpHttp", () => {
  it.live("speaks 2026-07-28; lists our tools as we export them; reads a file; a tool error is an error result", () =>
    Effect.scoped(Effect.gen(function*() {
      const { listing, url } = yield* servedBuiltins()
      const { sent, server } = yield* connected(url)
      const tools = yield* Effect.promise(() => server.listTools())
      expect(sent[0]?.method).toBe("server/discover")
      expect(sent.some((s) => s.method === "initialize")).toBe(false)
      expect(sent.filter((s) => s.method !== "").every((s) => s.version === "2026-07-28")).toBe(true)
      expect(tools.map((t) => t.name)).toEqual(listing.map((t) => t.name))
      expect(asExported(tools, listing)).toEqual(exported(listing))

      const read = yield* Effect.promise(() => server.callToolResult("read_file", { filepath: "hello.txt" }))
      expect(read.isError).not.toBe(true)
      expect(text(read)).toContain(HELLO.trim())
      const missing = yield* Effect.promise(() => server.callToolResult("read_file", { filepath: "nowhere.txt" }))
      expect(missing.isError).toBe(true)
      expect(text(missing)).toMatch(/^[A-Z_]+: /)
      const escape = yield* Effect.promise(() => server.callToolResult("read_file", { filepath: "../../etc/passwd" }))
      expect(escape.isError).toBe(true)
      expect(text(escape)).toMatch(/^PATH_TRAVERSAL: the path "\.\.\/\.\.\/etc\/passwd" is outside the workspace/)
    })), 120_000)

  it.live("a write that needs confirmation is refused (it cannot be asked); served with confirmation auto it runs", () =>
    Effect.scoped(Effect.gen(function*() {
      const { url, ws } = yield* servedBuiltins()
      const { server } = yield* connected(url)
      const refused = yield* Effect.promise(() => server.callToolResult("write_file", { filepath: "new.txt", content: "x" }))
      expect(refused.isError).toBe(true)
      expect(text(refused)).toBe("CONFIRMATION_REQUIRED: Confirmation required")
      expect(fs.existsSync(path.join(ws, "new.txt"))).toBe(false)

      const auto = yield* servedBuiltins("auto")
      const confirmed = yield* connected(auto.url)
      const written = yield* Effect.promise(() => confirmed.server.callToolResult("write_file", { filepath: "new.txt", content: "yes" }))
      expect(written.isError).not.toBe(true)
      expect(fs.readFileSync(path.join(auto.ws, "new.txt"), "utf8")).toBe("yes")
    })), 120_000)

  it.live("the agent's function tools: our descriptions and parameters; a refusal or an error is the tool's output, not a throw", () =>
    Effect.scoped(Effect.gen(function*() {
      const { listing, url, ws } = yield* servedBuiltins()
      const { server } = yield* connected(url)
      const tools = yield* Effect.promise(() => getAllMcpTools({ mcpServers: [server], convertSchemasToStrict: false }))
      const byName = new Map(tools.map((t) => [t.name, t]))
      expect([...byName.keys()].sort()).toEqual(listing.map((t) => t.name).sort())
      const readFile = byName.get("read_file")
      const writeFile = byName.get("write_file")
      const ours = listing.find((t) => t.name === "read_file")
      expect(readFile?.type).toBe("function")
      if (readFile?.type !== "function" || writeFile?.type !== "function") return
      expect(readFile.description).toBe(ours?.description)
      // our schema, opened up (non-strict: additionalProperties true)
      expect(readFile.parameters).toMatchObject({ ...ours?.inputSchema, additionalProperties: true })
      const context = new RunContext()
      const read = yield* Effect.promise(() => readFile.invoke(context, JSON.stringify({ filepath: "hello.txt" })))
      expect(JSON.stringify(read)).toContain("hello from the workspace")
      const missing = yield* Effect.promise(() => readFile.invoke(context, JSON.stringify({ filepath: "nowhere.txt" })))
      expect(JSON.stringify(missing)).toMatch(/"text":"[A-Z_]+: /)
      const refused = yield* Effect.promise(() => writeFile.invoke(context, JSON.stringify({ filepath: "agent.txt", content: "x" })))
      expect(refused).toMatchObject({ type: "text", text: "CONFIRMATION_REQUIRED: Confirmation required" })
      expect(fs.existsSync(path.join(ws, "agent.txt"))).toBe(false)
    })), 120_000)
})
