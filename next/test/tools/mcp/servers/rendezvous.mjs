// A server that answers nothing until another has started: `--mine FILE` is created at once,
// and initialize is answered only once `--theirs FILE` exists. Two of them, each waiting for
// the other, come up only when they are started side by side. Lists one tool, `ping`.
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { existsSync, writeFileSync } from "node:fs"

const flag = (name) => process.argv[process.argv.indexOf(name) + 1]
writeFileSync(flag("--mine"), `${process.pid}\n`)
while (!existsSync(flag("--theirs"))) await new Promise((resolve) => setTimeout(resolve, 20))

const server = new Server({ name: "rendezvous", version: "1.0.0" }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{ name: "ping", description: "Answers pong", inputSchema: { type: "object", properties: {} }, annotations: { readOnlyHint: true } }]
}))
server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: "text", text: "pong" }] }))
await server.connect(new StdioServerTransport())
