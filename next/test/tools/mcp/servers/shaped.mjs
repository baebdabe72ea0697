// A server whose tools declare an outputSchema ({ n: number }), so the bridge checks their
// structured content against it: `count` answers with the structured content it is asked for,
// conforming or not; `wait` answers { n: ms } after ms milliseconds. Flag: --cancel-log FILE
// (appends "cancelled <ms>" when a `wait` call is cancelled by the client).
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { appendFileSync } from "node:fs"

const i = process.argv.indexOf("--cancel-log")
const cancelLog = i === -1 ? undefined : process.argv[i + 1]
const outputSchema = { type: "object", properties: { n: { type: "number" } }, required: ["n"] }
const server = new Server({ name: "shaped", version: "1.0.0" }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{
    name: "count",
    description: "Answers { n } as structured content",
    inputSchema: { type: "object", properties: { n: {} } },
    outputSchema,
    annotations: { readOnlyHint: true }
  }, {
    name: "wait",
    description: "Answers { n: ms } after ms milliseconds",
    inputSchema: { type: "object", properties: { ms: { type: "integer" } }, required: ["ms"] },
    outputSchema,
    annotations: { readOnlyHint: true }
  }]
}))
server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const args = request.params.arguments ?? {}
  if (request.params.name === "wait") {
    if (cancelLog !== undefined) extra.signal.addEventListener("abort", () => appendFileSync(cancelLog, `cancelled ${args.ms}\n`))
    await new Promise((resolve) => setTimeout(resolve, args.ms))
  }
  const n = request.params.name === "wait" ? args.ms : args.n
  return { content: [{ type: "text", text: JSON.stringify({ n }) }], structuredContent: { n } }
})
await server.connect(new StdioServerTransport())
