// A server with one tool, `environment`: its working directory and the variables of its
// environment named in `names` (null for those it does not have).
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"

const server = new Server({ name: "environment", version: "1.0.0" }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{
    name: "environment",
    description: "The server's working directory and the named variables",
    inputSchema: { type: "object", properties: { names: { type: "array", items: { type: "string" } } }, required: ["names"] },
    annotations: { readOnlyHint: true }
  }]
}))
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const names = request.params.arguments?.names ?? []
  const variables = Object.fromEntries(names.map((name) => [name, process.env[name] ?? null]))
  return { content: [{ type: "text", text: JSON.stringify({ cwd: process.cwd(), variables }) }] }
})
await server.connect(new StdioServerTransport())
