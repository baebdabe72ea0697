// A 2025-11-25 stdio MCP server (SDK 1.x) whose tools ask the client questions
// (`elicitation/create`), for the bridge's elicitation tests. Each asks with plain `request`
// (no check of the client's capabilities, none of the question's shape: a hostile server's
// questions go out as the test wrote them) and answers with what came back, as JSON text.
// - `ask`: asks `params` (the call's `params` argument: message, requestedSchema, anything);
// - `flood`: asks `n` questions at once, answers with each outcome;
// - `ask_big`: asks a form of `n` text fields (made here, not sent as the call's arguments);
// - `ask_later`: answers at once, then asks 20 ms later (no call in flight); `last` waits for
//   that question's outcome and answers with it.
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { CallToolRequestSchema, ElicitResultSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"

const open = { type: "object", properties: {}, additionalProperties: true }
const tools = [
  { name: "ask", description: "Asks the question in params", inputSchema: open },
  { name: "flood", description: "Asks n questions at once", inputSchema: open },
  { name: "ask_big", description: "Asks a form of n fields", inputSchema: open },
  { name: "ask_later", description: "Asks after it answered", inputSchema: open },
  { name: "last", description: "The outcome of ask_later's question", inputSchema: open }
]

const server = new Server({ name: "asking", version: "1.0.0" }, { capabilities: { tools: {} } })
const outcome = (promise) =>
  promise.then((result) => ({ result }), (error) => ({ error: String(error?.message ?? error) }))
const text = (value) => ({ content: [{ type: "text", text: JSON.stringify(value) }] })
const simple = { message: "Your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } }

let later
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }))
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const args = request.params.arguments ?? {}
  const ask = (params) => server.request({ method: "elicitation/create", params }, ElicitResultSchema)
  switch (request.params.name) {
    case "ask":
      return text(await outcome(ask(args.params ?? simple)))
    case "flood":
      return text(await Promise.all(Array.from({ length: Number(args.n ?? 10) }, () => outcome(ask(simple)))))
    case "ask_big": {
      const properties = {}
      for (let i = 0; i < Number(args.n ?? 100); i++) properties[`field${i}`] = { type: "string", description: "d".repeat(40) }
      return text(await outcome(ask({ message: "Big?", requestedSchema: { type: "object", properties } })))
    }
    case "ask_later":
      later = new Promise((resolve) => setTimeout(() => resolve(outcome(ask(simple))), 20))
      return text("asked later")
    case "last":
      return text(await later)
    default:
      throw new Error(`unknown tool ${request.params.name}`)
  }
})
await server.connect(new StdioServerTransport())
