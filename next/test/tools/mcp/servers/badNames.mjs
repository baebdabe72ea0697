// A server whose tool names do not fit model APIs, and one tool whose schema cannot be used.
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"

const names = ["read.file", "a b c", "ünïcødé", "x".repeat(80), "fine_name"]
const tools = names.map((name) => ({
  name,
  description: `Says ${name}`,
  inputSchema: { type: "object", properties: {} },
  annotations: { readOnlyHint: true }
}))
tools.push({
  name: "remote_ref",
  description: "A schema with a remote $ref",
  inputSchema: { type: "object", properties: { a: { $ref: "http://127.0.0.1:1/schema.json" } } }
})
const server = new Server({ name: "bad-names", version: "1.0.0" }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }))
server.setRequestHandler(CallToolRequestSchema, async (request) => ({
  content: [{ type: "text", text: `called ${request.params.name}` }]
}))
await server.connect(new StdioServerTransport())
