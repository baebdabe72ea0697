// A stdio server whose tools carry x-mcp-header declarations (SEP-2243), valid and invalid:
// headers do not exist on stdio, so the bridge takes every tool as it is. Answers a call with
// the tool's name. Speaks 2025-11-25 (`initialize`) and 2026-07-28 (`server/discover`, the
// `resultType` of each result). A raw JSON-RPC server over stdio.
import { createInterface } from "node:readline"

const str = (header) => ({ type: "string", ...(header === undefined ? {} : { "x-mcp-header": header }) })
const obj = (properties) => ({ type: "object", properties })
const tools = [
  { name: "mirror", inputSchema: obj({ region: str("Region"), priority: { type: "integer", "x-mcp-header": "Priority" } }) },
  { name: "plain", inputSchema: obj({ text: str() }) },
  { name: "badName", inputSchema: obj({ value: str("My Region") }) },
  { name: "badType", inputSchema: obj({ score: { type: "number", "x-mcp-header": "Score" } }) },
  { name: "dupe", inputSchema: obj({ a: str("Region"), b: str("region") }) },
  { name: "underItems", inputSchema: obj({ list: { type: "array", items: obj({ x: str("X") }) } }) },
  { name: "longName", inputSchema: obj({ value: str("A".repeat(100_000)) }) }
]

const answer = (id, result) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id, result })}\n`)
createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line)
  if (message.id === undefined) return
  const modern = message.params?._meta?.["io.modelcontextprotocol/protocolVersion"] !== undefined
  const complete = modern ? { resultType: "complete" } : {}
  if (message.method === "initialize") {
    answer(message.id, { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "param-headers", version: "1.0.0" } })
  } else if (message.method === "server/discover") {
    answer(message.id, { ...complete, ttlMs: 0, cacheScope: "private", supportedVersions: ["2026-07-28"], capabilities: { tools: {} }, serverInfo: { name: "param-headers", version: "1.0.0" } })
  } else if (message.method === "tools/list") {
    answer(message.id, { ...complete, ...(modern ? { ttlMs: 0, cacheScope: "private" } : {}), tools })
  } else if (message.method === "tools/call") {
    answer(message.id, { ...complete, content: [{ type: "text", text: message.params.name }] })
  } else {
    process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } })}\n`)
  }
})
