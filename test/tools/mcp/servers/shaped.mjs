// A server with a tool that declares an outputSchema ({ n: number }) and answers with the
// structured content it is asked for, conforming or not.
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"

const server = new Server({ name: "shaped", version: "1.0.0" }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{
    name: "count",
    description: "Answers { n } as structured content",
    inputSchema: { type: "object", properties: { n: {} } },
    outputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
    annotations: { readOnlyHint: true }
  }]
}))
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const n = request.params.arguments?.n
  return { content: [{ type: "text", text: JSON.stringify({ n }) }], structuredContent: { n } }
})
await server.connect(new StdioServerTransport())
