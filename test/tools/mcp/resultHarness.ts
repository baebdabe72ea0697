/**
 * The tools and clients of the served-results tests (structured output, the result cap): our
 * registry served by `serveMcp` on an in-memory pair (the stdio path, without a process) or by
 * `serveMcpHttp` on 127.0.0.1, and talked to by SDK v2's client (`@modelcontextprotocol/client`
 * 2.4.0) in either era: `legacy` speaks 2025-11-25, `auto` 2026-07-28.
 */
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect, Schema } from "effect"
import { Tool, ToolSystem, Workspace } from "../../../src/index.js"
import { serveMcpHttp } from "../../../src/tools/mcp/http.js"
import { serveMcp } from "../../../src/tools/mcp/serve.js"
import type { McpServeOptions } from "../../../src/tools/mcp/server.js"

/** A reading with an object success schema: an outputSchema, and structured content. */
export const Reading = Schema.Struct({
  n: Schema.Number,
  label: Schema.String.annotate({ description: "What was read" }),
  tags: Schema.Array(Schema.String),
  pair: Schema.Tuple([Schema.String, Schema.Number]),
  note: Schema.optional(Schema.String),
  at: Schema.DateFromString
})

export const measure = Tool.make("measure", {
  description: "Measures n",
  parameters: Schema.Struct({ n: Schema.Number }),
  success: Reading,
  readOnly: true,
  handler: ({ n }) =>
    Effect.succeed({ n, label: `n=${n}`, tags: ["a", "b"], pair: ["p", n] as const, at: new Date(Date.UTC(2026, 0, 2)) })
})

/** The same output, no success schema: no outputSchema, no structured content. */
export const plain = Tool.make("plain", {
  description: "Returns an object, without a success schema",
  parameters: Schema.Struct({ n: Schema.Number }),
  readOnly: true,
  handler: ({ n }) => Effect.succeed({ n })
})

/** A success schema that is not an object: no outputSchema either. */
export const stringy = Tool.make("stringy", {
  description: "Returns a string, with a success schema",
  parameters: Schema.Struct({}),
  success: Schema.String,
  readOnly: true,
  handler: () => Effect.succeed("just text")
})

/** Says `text` repeated `times` times (a large result); not read-only. */
export const big = Tool.make("big", {
  description: "Returns text, repeated",
  parameters: Schema.Struct({ text: Schema.String, times: Schema.Number }),
  handler: ({ text, times }) => Effect.succeed(text.repeat(times))
})

/** `big`, read-only (so that a read-only mode lists it). */
export const bigReadOnly = Tool.make("big_read_only", {
  description: "Returns text, repeated (read-only)",
  parameters: Schema.Struct({ text: Schema.String, times: Schema.Number }),
  readOnly: true,
  handler: ({ text, times }) => Effect.succeed(text.repeat(times))
})

/** A large result of a tool with an outputSchema. */
export const bigStructured = Tool.make("big_structured", {
  description: "Returns a large object",
  parameters: Schema.Struct({ times: Schema.Number }),
  success: Schema.Struct({ text: Schema.String }),
  readOnly: true,
  handler: ({ times }) => Effect.succeed({ text: "y".repeat(times) })
})

export const allTools = [measure, plain, stringy, big, bigReadOnly, bigStructured] as const

export type Era = "legacy" | "auto"
export type Wire = "stdio" | "http"

const system = (ws: string) =>
  ToolSystem.layerNode({ builtins: false, tools: allTools, workspace: Workspace.layerFixed(ws) })

/** An SDK v2 client in `era`, connected on `transport` for the scope. */
const connect = (transport: Parameters<Client["connect"]>[0], era: Era) =>
  Effect.gen(function*() {
    const client = new Client({ name: "results-test", version: "1.0.0" }, { versionNegotiation: { mode: era } })
    yield* Effect.acquireRelease(Effect.promise(() => client.connect(transport)), () => Effect.promise(() => client.close()))
    return client
  })

/** The tools served in workspace `ws` over `wire` with `options`, and an SDK v2 client in `era`. */
export const servedClient = (ws: string, wire: Wire, era: Era, options: McpServeOptions = {}) =>
  Effect.gen(function*() {
    if (wire === "http") {
      const { url } = yield* serveMcpHttp(options).pipe(Effect.provide(system(ws)))
      return yield* connect(new StreamableHTTPClientTransport(new URL(url)), era)
    }
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    yield* serveMcp(serverSide, options).pipe(Effect.provide(system(ws)), Effect.forkScoped)
    return yield* connect(clientSide, era)
  })

/** The text items of a reply, and its resource links. */
export const partsOf = (reply: object) => {
  const content: ReadonlyArray<unknown> = "content" in reply && Array.isArray(reply.content) ? reply.content : []
  const texts: Array<string> = []
  const links: Array<{ readonly uri: string; readonly name: string }> = []
  for (const item of content) {
    if (typeof item !== "object" || item === null || !("type" in item)) continue
    if (item.type === "text" && "text" in item && typeof item.text === "string") texts.push(item.text)
    if (item.type === "resource_link" && "uri" in item && typeof item.uri === "string" && "name" in item && typeof item.name === "string") {
      links.push({ uri: item.uri, name: item.name })
    }
  }
  return { texts, links }
}
