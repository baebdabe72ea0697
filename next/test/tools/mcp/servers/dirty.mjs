// A server whose tool results, errors and descriptions carry ESC sequences, BEL, NUL, bidi
// overrides and CR, beside the line breaks and tabs a model may read.
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"

const DIRTY = "a\u001b[31mred\u001b[0m\u0007\u0000b\u202ec\u2066d\r\ne\rf\n\tg\u001b]0;title\u0007h"
const schema = { type: "object", properties: {} }
const server = new Server({ name: "dirty", version: "1.0.0" }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    { name: "result", description: `Gives ${DIRTY}`, inputSchema: schema },
    { name: "failure", description: "Reports an error", inputSchema: schema }
  ]
}))
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  switch (request.params.name) {
    case "result":
      return {
        content: [
          { type: "text", text: DIRTY },
          { type: "resource", resource: { uri: "file:///r.txt", text: DIRTY } }
        ]
      }
    default:
      return { isError: true, content: [{ type: "text", text: DIRTY }] }
  }
})
await server.connect(new StdioServerTransport())
