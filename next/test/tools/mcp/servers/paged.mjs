// A stdio MCP server that lists its tools in pages: `--tools N` tools ("t0", "t1", ...), `--page K`
// to a page (default 2), each page's `nextCursor` the index of the next page's first tool;
// `--names a,b,...` names them instead (a name may come twice); `--description TEXT` gives them
// all that description. Misbehaving on request:
// `--endless` (after the last tool, empty pages that always have a next one), `--page-delay MS`
// (each page answered after MS ms); `--list-log FILE` appends a line for each page asked.
import { appendFileSync } from "node:fs"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"

const flag = (name, fallback) => {
  const i = process.argv.indexOf(name)
  return i === -1 ? fallback : Number(process.argv[i + 1])
}
const page = flag("--page", 2)
const endless = process.argv.includes("--endless")
const pageDelay = flag("--page-delay", 0)
const listLogAt = process.argv.indexOf("--list-log")
const listLog = listLogAt === -1 ? undefined : process.argv[listLogAt + 1]
const namesAt = process.argv.indexOf("--names")
const describedAt = process.argv.indexOf("--description")
const names = namesAt === -1
  ? Array.from({ length: flag("--tools", 5) }, (_, i) => `t${i}`)
  : process.argv[namesAt + 1].split(",")
const tools = names.map((name, i) => ({
  name,
  description: describedAt === -1 ? `Tool number ${i}` : process.argv[describedAt + 1],
  inputSchema: { type: "object", properties: {} },
  annotations: { readOnlyHint: true }
}))

const server = new Server({ name: "paged", version: "1.0.0" }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, async (request) => {
  if (listLog !== undefined) appendFileSync(listLog, `page ${request.params?.cursor ?? "first"}\n`)
  if (pageDelay > 0) await new Promise((resolve) => setTimeout(resolve, pageDelay))
  const start = request.params?.cursor === undefined ? 0 : Number(request.params.cursor)
  const end = Math.min(start + page, tools.length)
  const more = end < tools.length || endless
  return more ? { tools: tools.slice(start, end), nextCursor: String(Math.max(end, start + 1)) } : { tools: tools.slice(start, end) }
})
server.setRequestHandler(CallToolRequestSchema, async (request) => ({ content: [{ type: "text", text: request.params.name }] }))
await server.connect(new StdioServerTransport())
